"""The compiled page model, or one clear error naming the fix: there is no slow fallback."""

from __future__ import annotations

try:
    from newsextract.extraction.pagemodel._text import (
        PROPERTY_BITS,
        fill_text_counts,
        fold_text,
        headline_matches,
        mojibake_runs,
        single_spaced,
        token_table,
        upper_case_table,
    )
    from newsextract.extraction.pagemodel._walk import (
        AttributeJudge,
        ClassNames,
        Inherited,
        Places,
        block_columns,
        block_list,
        cleaning_parts,
        element_tree,
        is_hidden,
        kept_by_cleaning,
        named_candidates,
        normalise_text,
        source_counts,
        structured_parts,
        tag_attribute_matches,
        tag_or_attribute,
        text_chars,
        text_counts,
        with_attributes,
        without_overlong_tags,
    )
except ImportError as error:  # pragma: no cover - a checkout that was never built
    raise ImportError(
        "newsextract's compiled page model is not built: run pip install -e . "
        "(or pip install .) on a machine with a C compiler"
    ) from error

__all__ = [
    "PROPERTY_BITS",
    "AttributeJudge",
    "ClassNames",
    "Inherited",
    "Places",
    "block_columns",
    "block_list",
    "cleaning_parts",
    "element_tree",
    "fill_text_counts",
    "fold_text",
    "headline_matches",
    "is_hidden",
    "kept_by_cleaning",
    "mojibake_runs",
    "named_candidates",
    "normalise_text",
    "single_spaced",
    "source_counts",
    "structured_parts",
    "tag_attribute_matches",
    "tag_or_attribute",
    "text_chars",
    "text_counts",
    "token_table",
    "upper_case_table",
    "with_attributes",
    "without_overlong_tags",
]

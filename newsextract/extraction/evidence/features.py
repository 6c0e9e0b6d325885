"""Layout features of a page's blocks (method E), one row a block, as a numpy matrix.

Everything is read from the block table (:mod:`..pagemodel.blocktable`): ancestor chains,
neighbours, subtree totals and readability's container vote, filled in C. Feature names
are part of the trained model, so a change here needs ``newsextract train`` to be run again.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from newsextract.extraction.evidence._layout import (
    SUBTREE_LEVELS_DEFAULT,
    fill_layout,
)
from newsextract.extraction.evidence._names import name_scores
from newsextract.extraction.pagemodel.blocktable import (
    COUNT_NAMES,
    ELEMENT_FLAG_NAMES,
    OWN_TAGS,
    BlockTable,
)


@cache
def feature_names() -> tuple[str, ...]:
    """Column names of :func:`layout_features`, stored with the trained model."""
    names = ["log_chars", "log_words", "link_density", "rel_index", "rel_char_pos", "depth"]
    names += [f"rate_{name}" for name in COUNT_NAMES]
    names += [f"tag_{tag}" for tag in OWN_TAGS] + ["tag_other", "tag_heading"]
    names += [f"self_{name}" for name in ELEMENT_FLAG_NAMES[:3]]
    names += [f"near_{name}" for name in ELEMENT_FLAG_NAMES[:3]]
    names += [f"any_{name}" for name in ELEMENT_FLAG_NAMES]
    for level in SUBTREE_LEVELS_DEFAULT:
        names += [f"up{level}_share", f"up{level}_links", f"up{level}_blocks", f"up{level}_ends"]
    for offset in (-2, -1, 1, 2):
        names += [f"nb{offset}_log_chars", f"nb{offset}_links", f"nb{offset}_ends"]
    names += ["win_chars", "win_links", "page_log_chars", "page_blocks", "same_parent_prev"]
    names += ["name_self", "name_near", "name_max", "name_min", "name_sum"]
    names += list(CONTAINER_FEATURE_NAMES)
    return tuple(names)


#: Columns written as counts whose ``log1p`` is the feature (taken by numpy, as ever).
LOG_FEATURES = frozenset(
    {"log_chars", "log_words", "rate_line_breaks", "rate_inline_tags", "rate_images"}
    | {f"up{level}_blocks" for level in SUBTREE_LEVELS_DEFAULT}
    | {f"nb{offset}_log_chars" for offset in (-2, -1, 1, 2)}
    | {"win_chars"}
)
CONTAINER_FEATURE_NAMES = (
    "box_in_best",
    "box_best_distance",
    "box_in_best_parent",
    "box_best_share",
    "box_parent_ratio",
    "box_chain_ratio",
    "box_majority_distance",
)


def layout_features(table: BlockTable, names: dict[str, float] | None = None) -> np.ndarray:
    """The layout feature matrix, one row a block, columns as :func:`feature_names`."""
    out = np.zeros((len(table.chars), len(feature_names())))
    fill_layout_features(table, names or {}, out)
    take_logs(out, log_columns(feature_names(), LOG_FEATURES))
    return out


def fill_layout_features(table: BlockTable, names: dict[str, float], out: np.ndarray) -> None:
    """Write the layout features into the first columns of ``out``, those of
    :data:`LOG_FEATURES` as the counts whose logarithm :func:`take_logs` takes.

    The block's own text, tag and place; the flags and class/id scores of the elements that
    enclose it; the totals of their subtrees; its neighbours; the page; and readability's
    container vote, which needs no training: every block of at least
    CONTAINER_MIN_CHARS_DEFAULT characters (the constants live in ``_layout``) scores 1 + its
    punctuation + one point a hundred characters (at most 3), given to its parent in full and
    to its grandparent by half, and a container's score is discounted by its link density.
    Compiled (``_layout``), value for value as the numpy code it replaced
    (``tests/reference_features.py``).
    """
    n = len(table.chars)
    if n == 0:
        return
    score = np.zeros(len(table.element_names) + 1)  # the last slot stands for "no element"
    name_scores(table.element_names, names, score)  # each distinct word list once, compiled
    total = float(table.chars.sum())
    written = fill_layout(
        table.chars,
        table.words,
        table.link_chars,
        table.counts,
        table.tags,
        table.ancestors,
        table.levels,
        table.element_flags,
        table.element_any,
        score,
        _HEADING_INDEX,
        total,
        float(np.log1p(total)),
        float(np.log1p(n)),
        out,
    )
    assert written == len(feature_names()), "the compiled layout features differ from the names"


def log_columns(names: tuple[str, ...], logged: frozenset[str]) -> np.ndarray:
    """The indexes of those of ``names`` that are in ``logged``."""
    return np.array([i for i, name in enumerate(names) if name in logged], dtype=np.intp)


def take_logs(out: np.ndarray, columns: np.ndarray) -> None:
    """``log1p`` of the given columns, in place, in one numpy call."""
    out[:, columns] = np.log1p(out[:, columns])


#: 1.0 at the indexes of OWN_TAGS (and tag_other) that are headings, for a lookup per block.
_HEADING_INDEX = np.array([float(tag in ("h1", "h2", "h3", "h4")) for tag in OWN_TAGS] + [0.0])

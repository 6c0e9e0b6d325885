"""Context features of method E's second stage: the top-down step on the DOM.

Each block's first-stage posterior is seen with its neighbours' and with the content mass
(posterior times characters) of the elements that enclose it, readability's container vote
included.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from newsextract.extraction.evidence._layout import fill_context
from newsextract.extraction.evidence.features import log_columns, take_logs
from newsextract.extraction.pagemodel.blocktable import BlockTable

#: Ancestor levels whose content mass becomes a context feature (the top-down step).
CONTEXT_LEVELS_DEFAULT = (1, 2, 3, 5, 8)


@cache
def context_feature_names() -> tuple[str, ...]:
    """Column names of :func:`context_features`."""
    names = ["logit", "nb-2_p", "nb-1_p", "nb1_p", "nb2_p", "win3_p", "win8_p"]
    for level in CONTEXT_LEVELS_DEFAULT:
        names += [f"up{level}_mean_p", f"up{level}_mass"]
    names += ["in_best", "best_mass", "best_purity", "in_span", "page_max_p", "page_mass"]
    names += ["title_match", "after_title", "log_chars", "link_density"]
    return tuple(names)


def context_features(table: BlockTable, p: np.ndarray, title: np.ndarray) -> np.ndarray:
    """Second-stage features: a block's first-stage posterior seen with its surroundings.

    This is the top-down part of method E done on the DOM: each enclosing element is judged
    by the content mass (posterior times characters) of its subtree, and a block inside the
    element holding most of the page's content mass gets that as evidence; readability's
    vote picks that element (the most mass, discounted by its noise). Filled in C
    (``_layout``), value for value as the numpy code it replaced.
    """
    n = len(p)
    out = np.zeros((n, len(context_feature_names())))
    if n == 0:
        return out
    p = np.ascontiguousarray(p, dtype=np.float64)
    chars = np.maximum(table.chars, 1.0)
    mass = p * chars
    total_mass = max(float(mass.sum()), 1e-9)
    fill_context(
        p,
        mass,
        chars,
        table.chars,
        table.link_chars,
        np.ascontiguousarray(title, dtype=np.float64),
        table.ancestors,
        table.levels,
        len(table.element_flags),
        _CONTEXT_LEVELS,
        total_mass,
        float(np.log1p(total_mass)),
        out,
    )
    out[:, _LOGIT] = np.log(out[:, _LOGIT])  # the odds, clipped, become the logit
    take_logs(out, _LOG_COLUMNS)
    return out


_CONTEXT_LEVELS = np.array(CONTEXT_LEVELS_DEFAULT, dtype=np.int64)
_LOGIT = [context_feature_names().index("logit")]
_LOG_COLUMNS = log_columns(context_feature_names(), frozenset({"log_chars"}))

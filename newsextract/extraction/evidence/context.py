"""Context features of method E's second stage: the top-down step on the DOM.

Each block's first-stage posterior is seen with its neighbours' and with the content mass
(posterior times characters) of the elements that enclose it, readability's container vote
included.
"""

from __future__ import annotations

import numpy as np

from newsextract.extraction.evidence.features import shift, window_sum
from newsextract.extraction.pagemodel.blocktable import BlockTable

#: Ancestor levels whose content mass becomes a context feature (the top-down step).
CONTEXT_LEVELS_DEFAULT = (1, 2, 3, 5, 8)


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
    element holding most of the page's content mass gets that as evidence.
    """
    n = len(p)
    if n == 0:
        return np.zeros((0, len(context_feature_names())))
    chars = np.maximum(table.chars, 1.0)
    mass = p * chars
    total_mass = max(float(mass.sum()), 1e-9)
    logit = np.log(np.clip(p, 1e-4, 1 - 1e-4) / np.clip(1 - p, 1e-4, 1))
    columns = [logit] + [shift(p, k) for k in (-2, -1, 1, 2)]
    both = np.stack([mass, chars])
    columns += [_window_mean(both, 3), _window_mean(both, 8)]
    element_mass, element_chars = _element_totals(table, mass, chars)
    width = table.ancestors.shape[1]
    # Every level at once: (blocks, levels) arrays, one column pair a level.
    enclosing = table.ancestors[:, [min(level, width - 1) for level in CONTEXT_LEVELS_DEFAULT]]
    here = enclosing >= 0
    pick = np.where(here, enclosing, 0)
    picked_mass = element_mass[pick]
    mean_p = np.where(here, picked_mass / element_chars[pick], p[:, None])
    share = np.where(here, picked_mass / total_mass, 1.0)
    for level in range(len(CONTEXT_LEVELS_DEFAULT)):
        columns += [mean_p[:, level], share[:, level]]
    columns += _best_container(table, element_mass, element_chars, total_mass)
    columns += [_inside_span(p), np.full(n, p.max()), np.full(n, np.log1p(total_mass))]
    after = np.cumsum(title) > 0
    columns += [title.astype(float), after.astype(float), np.log1p(table.chars)]
    columns.append(table.link_chars / chars)
    return np.column_stack(columns)


def _window_mean(mass_and_chars: np.ndarray, half: int) -> np.ndarray:
    mass, chars = window_sum(mass_and_chars, half)
    mean: np.ndarray = mass / chars
    return mean


def _element_totals(
    table: BlockTable, mass: np.ndarray, chars: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    anc = table.chains()
    valid = anc >= 0
    rows = np.repeat(np.arange(len(anc)), valid.sum(axis=1))
    ids = anc[valid]
    size = max(len(table.element_flags), 1)
    element_mass = np.bincount(ids, mass[rows], minlength=size)
    element_chars = np.maximum(np.bincount(ids, chars[rows], minlength=size), 1.0)
    return element_mass, element_chars


def _best_container(
    table: BlockTable, element_mass: np.ndarray, element_chars: np.ndarray, total_mass: float
) -> list[np.ndarray]:
    """Readability's vote: the element with the most content mass, discounted by its noise."""
    n = len(table.chars)
    score = element_mass**2 / element_chars
    best = int(np.argmax(score))
    inside = (table.chains() == best).any(axis=1).astype(float)
    purity = element_mass[best] / element_chars[best]
    return [inside, np.full(n, element_mass[best] / total_mass), np.full(n, purity)]


def _inside_span(p: np.ndarray) -> np.ndarray:
    """1 between the first and the last block the first stage is confident about."""
    sure = np.flatnonzero(p >= 0.5)
    span = np.zeros(len(p))
    if len(sure):
        span[sure[0] : sure[-1] + 1] = 1.0
    return span

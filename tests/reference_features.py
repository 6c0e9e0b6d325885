"""The oracle of the compiled features of method E: the numpy code they replaced.

A faithful copy of ``layout_columns``, ``wording_features`` and ``context_features`` (and the
helpers they called) from ``newsextract/extraction/evidence/features.py``, ``wording.py`` and
``context.py`` before the features were filled in C (only renamed). The compiled features
must equal these on every page: tests/test_extraction_features.py compares the two on
generated and real pages.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from newsextract.extraction.evidence._layout import (
    CONTAINER_MIN_CHARS_DEFAULT,
    MAJORITY_SHARE_DEFAULT,
    WINDOW_HALF_DEFAULT,
)
from newsextract.extraction.evidence._names import name_scores
from newsextract.extraction.evidence.context import CONTEXT_LEVELS_DEFAULT, context_feature_names
from newsextract.extraction.evidence.features import (
    CONTAINER_FEATURE_NAMES,
    SUBTREE_LEVELS_DEFAULT,
    feature_names,
)
from newsextract.extraction.evidence.stopwords import MIN_RUNNING_TOKENS_DEFAULT, StopWords
from newsextract.extraction.evidence.wording import (
    WORDING_FEATURE_NAMES,
    _own_common_flags,
    _stop_flags,
)
from newsextract.extraction.pagemodel.blocktable import OWN_TAGS, BlockTable

_RATE_COLUMNS = [0, 1, 2, 3, 4, 8]
_LOG_COLUMNS = [9, 10, 11]
_WORD_RATE_COLUMNS = [12]  # counts of words become shares of the block's words


def reference_first_stage_features(
    table: BlockTable, names: dict[str, float], stops: StopWords
) -> np.ndarray:
    """The first-stage matrix as it was built: layout columns, then wording, stacked."""
    return np.hstack([*layout_columns(table, names), reference_wording_features(table, stops)])


def layout_columns(table: BlockTable, names: dict[str, float] | None = None) -> list[np.ndarray]:
    """:func:`layout_features` as the column groups it is made of, for a caller that joins
    them with more columns: the matrix is then copied once (a page of 25,000 blocks makes a
    matrix of 30 MB)."""
    n = len(table.chars)
    if n == 0:
        return [np.zeros((0, len(feature_names())))]
    chars = table.chars
    safe = np.maximum(chars, 1.0)
    links = table.link_chars / safe
    ends = np.minimum(table.counts[:, 1], 20.0)
    own = _own_features(table, safe, links)
    flags = _ancestor_flags(table)
    totals = element_totals(table, ends)
    subtree = _subtree_features(table, totals)
    neighbours = _neighbour_features(np.log1p(chars), links, ends)
    page = _page_features(table, links)
    named = _name_features(table, names or {})
    container = container_features(table, totals)
    return [*own, *flags, subtree, *neighbours, page, named, container]


def _own_features(table: BlockTable, safe: np.ndarray, links: np.ndarray) -> list[np.ndarray]:
    n = len(safe)
    cum = np.cumsum(table.chars) - table.chars
    total = max(float(table.chars.sum()), 1.0)
    depth = (table.chains() >= 0).sum(axis=1)
    base = np.column_stack(
        [
            np.log1p(table.chars),
            np.log1p(table.words),
            links,
            np.arange(n) / max(n - 1, 1),
            cum / total,
            depth,
        ]
    )
    rates = table.counts.copy()
    rates[:, _RATE_COLUMNS] /= safe[:, None]  # counts of characters become rates
    rates[:, _LOG_COLUMNS] = np.log1p(rates[:, _LOG_COLUMNS])  # counts of things stay counts
    rates[:, _WORD_RATE_COLUMNS] /= np.maximum(table.words, 1.0)[:, None]
    tag_onehot = np.zeros((n, len(OWN_TAGS) + 1))
    tag_onehot[np.arange(n), table.tags] = 1.0
    heading = _HEADING_INDEX[table.tags]
    return [base, rates, tag_onehot, heading[:, None]]


#: 1.0 at the indexes of OWN_TAGS (and tag_other) that are headings, for a lookup per block.
_HEADING_INDEX = np.array([float(tag in ("h1", "h2", "h3", "h4")) for tag in OWN_TAGS] + [0.0])


def _ancestor_flags(table: BlockTable) -> list[np.ndarray]:
    anc = table.ancestors
    own = table.element_flags[anc[:, 0], :3]
    columns = _level_columns(anc, (1, 2, 3))
    here = columns >= 0
    flags = table.element_flags[np.where(here, columns, 0), :3] * here[:, :, None]
    return [own, flags.max(axis=1), table.element_any[anc[:, 0]]]


def _level_columns(ancestors: np.ndarray, levels: tuple[int, ...]) -> np.ndarray:
    """Each block's ancestor at each of ``levels`` (the last column past the width), as
    (blocks, levels): every level at once instead of one numpy call each."""
    width = ancestors.shape[1]
    picked: np.ndarray = ancestors[:, [min(level, width - 1) for level in levels]]
    return picked


def _name_features(table: BlockTable, names: dict[str, float]) -> np.ndarray:
    """Learned class/id word log-odds: the block's own element, its parent, the chain."""
    size = len(table.element_names)
    score = np.zeros(size + 1)  # the last slot stands for "no element"
    name_scores(table.element_names, names, score)  # each distinct word list once, compiled
    chain = score[table.ancestors]  # -1 picks the empty last slot
    near = chain[:, 1:4] if chain.shape[1] > 1 else chain[:, :1]
    return np.column_stack(
        [chain[:, 0], near.mean(axis=1), chain.max(axis=1), chain.min(axis=1), chain.sum(axis=1)]
    )


@dataclass(frozen=True)
class ElementTotals:
    """Sums over each element's subtree (its blocks' values), indexed by element id."""

    chars: np.ndarray
    link_chars: np.ndarray
    blocks: np.ndarray
    ends: np.ndarray
    parent: np.ndarray  # parent element id, -1 at the top of the chains


def element_totals(table: BlockTable, ends: np.ndarray) -> ElementTotals:
    anc = table.chains()
    n_elements = len(table.element_flags)
    valid = anc >= 0
    rows = np.repeat(np.arange(len(anc)), valid.sum(axis=1))
    ids = anc[valid]
    parent = np.full(n_elements, -1, dtype=np.int64)
    if anc.shape[1] > 1:
        child, up = anc[:, :-1], anc[:, 1:]
        parent[child[child >= 0]] = up[child >= 0]
    return ElementTotals(
        np.bincount(ids, table.chars[rows], minlength=n_elements),
        np.bincount(ids, table.link_chars[rows], minlength=n_elements),
        np.bincount(ids, minlength=n_elements).astype(float),
        np.bincount(ids, ends[rows], minlength=n_elements),
        parent,
    )


def _subtree_features(table: BlockTable, totals: ElementTotals) -> np.ndarray:
    """Totals of the subtree of each block's ancestor at a few levels: readability's signal."""
    chars, link_chars, blocks = totals.chars, totals.link_chars, totals.blocks
    total = max(float(table.chars.sum()), 1.0)
    columns = _level_columns(table.ancestors, SUBTREE_LEVELS_DEFAULT)
    here = columns >= 0
    pick = np.where(here, columns, 0)
    picked_chars, picked_blocks = chars[pick], blocks[pick]
    share = np.where(here, picked_chars / total, 1.0)
    dens = np.where(here, link_chars[pick] / np.maximum(picked_chars, 1.0), 0.0)
    count = np.where(here, np.log1p(picked_blocks), 0.0)
    end_rate = np.where(here, totals.ends[pick] / np.maximum(picked_blocks, 1.0), 0.0)
    # (blocks, levels, 4) read row by row: the four values of each level in turn.
    return np.stack([share, dens, count, end_rate], axis=2).reshape(len(pick), -1)


def container_features(table: BlockTable, totals: ElementTotals) -> np.ndarray:
    """Readability's container vote without training: where is the page's main text box?

    Every block of at least CONTAINER_MIN_CHARS_DEFAULT characters scores 1 + its punctuation
    + one point a hundred characters (at most 3), given to its parent in full and to its
    grandparent by half; a container's score is then discounted by its link density. Per
    block: inside the best container, how many levels below it, inside its parent (a
    sibling box), the best one's share of the page's text, its parent's and the best of its
    chain's score relative to the best, and the levels up to the nearest enclosing element
    that holds most of the page's text. None of these depends on a site's naming.
    """
    anc = table.chains()
    n, width = table.ancestors.shape
    scores = np.where(
        table.chars >= CONTAINER_MIN_CHARS_DEFAULT,
        1.0 + table.counts[:, 0] + np.minimum(table.chars / 100.0, 3.0),
        0.0,
    )
    size = len(totals.chars) + 1  # the last slot stands for "no element" (-1)
    box = np.zeros(size)
    for level, share in ((1, 1.0), (2, 0.5)):
        if level < width:
            column = np.where(table.ancestors[:, level] >= 0, table.ancestors[:, level], size - 1)
            box += np.bincount(column, scores * share, minlength=size)
    box[:-1] *= 1.0 - totals.link_chars / np.maximum(totals.chars, 1.0)
    box[-1] = 0.0
    best = int(np.argmax(box[:-1])) if size > 1 else -1
    top = float(box[best]) if best >= 0 else 0.0
    columns = np.zeros((n, len(CONTAINER_FEATURE_NAMES)))
    total = max(float(table.chars.sum()), 1.0)
    majority = np.where(anc >= 0, totals.chars[anc] / total, 0.0) >= MAJORITY_SHARE_DEFAULT
    has_majority = majority.any(axis=1)
    columns[:, 6] = np.where(has_majority, np.argmax(majority, axis=1), width)
    if top <= 0.0:
        return columns
    at_best = anc == best
    inside = at_best.any(axis=1)
    parent = totals.parent[best]
    columns[:, 0] = inside
    columns[:, 1] = np.where(inside, np.argmax(at_best, axis=1), -1.0)
    columns[:, 2] = (anc == parent).any(axis=1) if parent >= 0 else 0.0
    columns[:, 3] = totals.chars[best] / total
    columns[:, 4] = box[table.ancestors[:, 1]] / top if width > 1 else 0.0
    columns[:, 5] = box[anc].max(axis=1) / top
    return columns


def _neighbour_features(
    log_chars: np.ndarray, links: np.ndarray, ends: np.ndarray
) -> list[np.ndarray]:
    """The three values of the blocks 2 and 1 before and 1 and 2 after, as :func:`shift`
    gives them, read from one padded copy."""
    n = len(log_chars)
    padded = np.empty((n + 4, 3))
    padded[:] = (0.0, 1.0, 0.0)  # past the ends: no characters, all links, no endings
    padded[2 : n + 2, 0], padded[2 : n + 2, 1], padded[2 : n + 2, 2] = log_chars, links, ends
    return [padded[2 + offset : 2 + offset + n] for offset in (-2, -1, 1, 2)]


def shift(values: np.ndarray, offset: int, fill: float = 0.0) -> np.ndarray:
    """``values`` moved by ``offset`` places (the neighbour's value), ``fill`` past the ends."""
    out = np.full_like(values, fill)
    if offset < 0 and -offset < len(values):
        out[-offset:] = values[:offset]
    elif offset > 0 and offset < len(values):
        out[:-offset] = values[offset:]
    return out


def _page_features(table: BlockTable, links: np.ndarray) -> np.ndarray:
    n = len(table.chars)
    win_chars, win_link_chars = window_sum(np.stack([table.chars, table.link_chars]), 3)
    win_links = win_link_chars / np.maximum(win_chars, 1.0)
    total = float(table.chars.sum())
    parents = table.ancestors[:, 1] if table.ancestors.shape[1] > 1 else table.ancestors[:, 0]
    same_parent = np.zeros(n)
    same_parent[1:] = parents[1:] == parents[:-1]
    return np.column_stack(
        [
            np.log1p(win_chars),
            win_links,
            np.full(n, np.log1p(total)),
            np.full(n, np.log1p(n)),
            same_parent,
        ]
    )


def window_sum(values: np.ndarray, half: int) -> np.ndarray:
    """Sum of ``values[i - half : i + half + 1]`` for every i, clipped at the ends; each row of
    a 2-D array at once."""
    n = values.shape[-1]
    cum = np.zeros((*values.shape[:-1], n + 1))
    np.cumsum(values, axis=-1, out=cum[..., 1:])
    index = np.arange(n)
    ends, starts = np.minimum(index + half + 1, n), np.maximum(index - half, 0)
    result: np.ndarray = cum[..., ends] - cum[..., starts]
    return result


def reference_wording_features(table: BlockTable, stops: StopWords) -> np.ndarray:
    """One row a block, columns as :data:`WORDING_FEATURE_NAMES`."""
    n = len(table.chars)
    columns = np.zeros((n, len(WORDING_FEATURE_NAMES)))
    if n == 0 or not table.tokens:
        return columns
    sizes = np.bincount(table.token_block, minlength=n).astype(float)
    ids, vocabulary = table.word_ids
    running = sizes[table.token_block] >= MIN_RUNNING_TOKENS_DEFAULT
    stop_flags, share = _stop_flags(stops, vocabulary, ids, running)
    own_flags = _own_common_flags(ids, table.token_block, running, len(vocabulary), n)
    for column, flags in ((0, stop_flags), (3, own_flags)):
        hits = np.bincount(table.token_block, flags.astype(float), minlength=n)
        columns[:, column] = hits / np.maximum(sizes, 1.0)
        window_hits, window_sizes = window_sum(np.stack([hits, sizes]), WINDOW_HALF_DEFAULT)
        columns[:, column + 1] = window_hits / np.maximum(window_sizes, 1.0)
    columns[:, 2] = share
    columns[:, 5] = np.log1p(table.token_chars / np.maximum(sizes, 1.0))
    columns[:, 6] = np.log1p(table.words / np.maximum(table.counts[:, 1], 1.0))
    return columns


def reference_context_features(table: BlockTable, p: np.ndarray, title: np.ndarray) -> np.ndarray:
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

"""The article as a region: runs of prose paragraphs, not independent block votes.

An article's paragraphs follow each other under one container, with a few inserts between
them (a subheading, a caption, a related link). A block that reads as prose (enough words,
sentences, few links, the page's common words) and sits in such a run shares the run's
fate: when the body holds most of a run, the run's prose paragraphs between the kept ones join
it (not those after them: comments follow an article as a run of prose too); when the body
holds almost nothing of the page's longest run, that run is the article. Whatever the
classifier scores, a long run of prose never comes out empty, nor does a page whose whole
text is one long paragraph. Last, the article's container (the smallest element that holds
most of the body) decides the short gaps between kept blocks: a table, a list (however low its
short items scored) or a subheading between two kept paragraphs, at their depth in the tree, is
the article's; a gallery, a caption box, a related-links list or a repeated label is not. The
headline opens the article: the prose between it and the first kept block is the lead. What
the body holds far after the article, outside the container of its main run of prose and
scored low, is another page's teasers: a "most popular" box, a popover's terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from newsextract.extraction.pagemodel.blocktable import OWN_TAGS, BlockTable

#: A prose paragraph has at least this many words (CJK: characters count as words) ...
PROSE_MIN_WORDS_DEFAULT = 12
#: ... this small a share of its characters in links ...
PROSE_MAX_LINK_DENSITY_DEFAULT = 0.25
#: ... and at least this share of its words among the page's common words (its stop words,
#: or the words its running blocks share), when the page has any.
PROSE_MIN_COMMON_DEFAULT = 0.15
#: Blocks between two prose paragraphs of one run (subheadings, captions, inserts).
RUN_GAP_DEFAULT = 3
#: Two paragraphs are in one run when their nearest common container is at most this many
#: levels above the deeper one.
RUN_MAX_LEVELS_DEFAULT = 3
#: A run counts when it has this many prose paragraphs and characters.
RUN_MIN_PARAGRAPHS_DEFAULT = 3
RUN_MIN_CHARS_DEFAULT = 600
#: A body with fewer characters than this is no article. Dragnet has real bodies of 40-80
#: characters (a photo caption, a one-line post), so the bar is low.
MIN_BODY_CHARS_DEFAULT = 20
#: When the kept blocks make no article (none, or a title line), a prose paragraph this long
#: is the article: a page whose whole text is one block (an essay in one <p>). Three essays of
#: chinese_wced, 11,000 characters each, came out empty from a left-out model trained on
#: slightly other features (chinese_wced 0.913 to 0.936 with it). With today's left-out models:
#: cleaneval -0.0007 (a blog whose gold is a short post below a long quoted news story), no
#: other set moved. A title line kept alone above such an essay (the page's headline not found
#: as one): chinese_wced 0.9293 to 0.9369 left out, no other set moved.
LONE_PARAGRAPH_MIN_CHARS_DEFAULT = 2000
#: A run whose prose the body holds at least this share of is the article's: its other
#: prose paragraphs are kept too.
RUN_KEPT_SHARE_DEFAULT = 0.5
#: A body with less than this share of the longest run's characters missed the article.
MISSED_SHARE_DEFAULT = 0.25
#: The article's container is the smallest element holding this share of the body's characters.
CONTAINER_SHARE_DEFAULT = 0.8
#: A gap between two kept blocks inside the container is filled when it has at most this many
#: blocks and a character-weighted mean score of at least GAP_MIN_SCORE_DEFAULT. Leave-one-set-
#: out (``--cross-fit 1``) against no filling: wcxb_dev +0.012 (articles +0.007; by site within
#: it +0.007 and +0.003), cleaneval +0.005, dragnet and cleanportaleval +0.002, msv_chaos
#: -0.002, msv_big9_dev and trafilatura_eval_dev -0.001. Filling every gap of any score, or
#: blocks deeper in the tree than the kept blocks around them (galleries, embedded posts,
#: "most read" boxes), cost msv_chaos 0.007-0.02 and trafilatura_eval_dev 0.005-0.015.
GAP_MAX_BLOCKS_DEFAULT = 30
GAP_MIN_SCORE_DEFAULT = 0.1
#: Blocks with more of their characters in links than this are never filled in.
GAP_MAX_LINK_DENSITY_DEFAULT = 0.3
#: A list item in a gap may sit one level deeper than the kept blocks around it: its list is
#: the extra level. Leave-one-set-out (``--cross-fit 1``): wcxb_dev +0.001 (articles +0.001,
#: by site +0.0003), dragnet and cleaneval +0.0001, no set lower. Table cells too added
#: nothing more. Filling the stretch after the last kept block too (inside the container, a
#: mean score of at least 0.3): chinese_wced +0.002, wcxb_dev and cleaneval +0.001, both
#: msv sets -0.0002; at 0.1, msv and trafilatura_eval_dev lost 0.001-0.002: not taken.
#: In general a block may sit one level deeper for each list element among the three elements
#: above it: a paragraph in an item (WordPress's block editor writes ``<li><p>``) sits two
#: deeper, an item of a sublist three; an item of a list boxed in a ``<div>`` still one. Three
#: levels against two, left out: wcxb_dev articles +0.0002 and +0.00003 (seeds 1/2, 11/12),
#: dragnet +0.00004 and -0.00001, no other set moved by 0.00001.
GAP_LIST_LEVELS = 3
_LIST_ITEM_TAGS = [OWN_TAGS.index("li")]
#: A gap whose characters are at least this share list items (``<li>``, or a block whose
#: parent is a list element) is filled whatever its score: an enumeration between two kept
#: paragraphs is the article's, though its short items read as a menu to the classifier.
GAP_MIN_LIST_SHARE_DEFAULT = 0.5
#: Kept blocks after the article's main run, outside its container, are a detached tail when
#: more than this many blocks lie between them and the article's last kept block ...
TAIL_MIN_DISTANCE_DEFAULT = 15
#: ... and their character-weighted mean score is below this. Leave-one-set-out
#: (``--cross-fit 1``): msv_chaos +0.0011, chinese_wced +0.0006, dragnet and msv_big9_dev
#: +0.0003, cleaneval +0.0001, wcxb_dev -0.0001 (11 pages up, 6 down: two of them Stack
#: Overflow answers); shipped, wcxb_dev +0.0009. A distance of 5 cost wcxb_dev 0.0006 (articles
#: whose sections are siblings), of 0 cost it 0.0015.
TAIL_MAX_SCORE_DEFAULT = 0.6


@dataclass(frozen=True)
class RegionConfig:
    min_words: int = PROSE_MIN_WORDS_DEFAULT
    max_link_density: float = PROSE_MAX_LINK_DENSITY_DEFAULT
    min_common: float = PROSE_MIN_COMMON_DEFAULT
    gap: int = RUN_GAP_DEFAULT
    max_levels: int = RUN_MAX_LEVELS_DEFAULT
    min_paragraphs: int = RUN_MIN_PARAGRAPHS_DEFAULT
    min_chars: int = RUN_MIN_CHARS_DEFAULT
    lone_min_chars: int = LONE_PARAGRAPH_MIN_CHARS_DEFAULT
    kept_share: float = RUN_KEPT_SHARE_DEFAULT
    missed_share: float = MISSED_SHARE_DEFAULT
    container_share: float = CONTAINER_SHARE_DEFAULT
    gap_max_blocks: int = GAP_MAX_BLOCKS_DEFAULT
    gap_min_score: float = GAP_MIN_SCORE_DEFAULT
    gap_max_link_density: float = GAP_MAX_LINK_DENSITY_DEFAULT
    gap_min_list_share: float = GAP_MIN_LIST_SHARE_DEFAULT
    fill_runs: bool = True  # keep the rest of a run the body mostly holds
    rescue: bool = True  # keep the longest run when the body missed it
    fill_gaps: bool = True  # keep the short gaps between kept blocks in the article's container
    # Keep the prose between the headline and the first kept block. Left out of training,
    # trafilatura_eval_dev went from 0.933 to 0.939 (its German leads), no other set moved
    # by more than 0.001 (wcxb_dev, whose gold leaves standfirsts out, +0.001).
    fill_lead: bool = True
    drop_tail: bool = True  # leave a detached tail out
    tail_min_distance: int = TAIL_MIN_DISTANCE_DEFAULT
    tail_max_score: float = TAIL_MAX_SCORE_DEFAULT


class ProseRun(NamedTuple):
    """Prose paragraphs (block indexes, document order) that read as one stretch of text."""

    paragraphs: tuple[int, ...]
    chars: float


def prose_paragraphs(table: BlockTable, common: np.ndarray, config: RegionConfig) -> np.ndarray:
    """Which blocks read as prose; ``common`` is each block's share of common words."""
    chars = np.maximum(table.chars, 1.0)
    prose: np.ndarray = (
        (table.words >= config.min_words)
        & (table.link_chars / chars <= config.max_link_density)
        & ((table.counts[:, 1] >= 1) | (table.words >= 3 * config.min_words))
        & ((common >= config.min_common) | (common.max(initial=0.0) == 0.0))
    )
    return prose


def prose_runs(table: BlockTable, prose: np.ndarray, config: RegionConfig) -> list[ProseRun]:
    """The runs of prose paragraphs long enough to be an article's.

    A prose paragraph joins the run of the one before it when few blocks lie between them
    and they share a container: a test of each pair of neighbours, all pairs at once.
    """
    indexes = np.flatnonzero(prose)
    if not len(indexes):
        return []
    close = np.diff(indexes) <= config.gap + 1
    linked = close & _near(table, indexes[:-1], indexes[1:], config)
    starts = np.concatenate([[0], np.flatnonzero(~linked) + 1])
    sizes = np.diff(np.append(starts, len(indexes)))
    chars = np.add.reduceat(table.chars[indexes], starts)  # whole numbers: sums are exact
    found = []
    for start, size, total in zip(starts.tolist(), sizes.tolist(), chars.tolist(), strict=True):
        if size >= config.min_paragraphs and total >= config.min_chars:
            found.append(ProseRun(tuple(indexes[start : start + size].tolist()), total))
    return found


def _near(
    table: BlockTable, first: np.ndarray, second: np.ndarray, config: RegionConfig
) -> np.ndarray:
    """Whether each pair of blocks shares a container at most ``max_levels`` above each."""
    levels = config.max_levels + 1
    above, below = table.ancestors[first, :levels], table.ancestors[second, :levels]
    shared = (above[:, :, None] == below[:, None, :]) & (above[:, :, None] >= 0)
    near: np.ndarray = shared.any(axis=(1, 2))
    return near


def region_kept(
    kept: tuple[int, ...],
    table: BlockTable,
    common: np.ndarray,
    config: RegionConfig,
    scores: np.ndarray,
    texts: list[str],
    title: np.ndarray | None = None,
) -> tuple[int, ...]:
    """The kept blocks with the prose runs' verdicts applied, then the container's (from each
    block's ``scores`` and ``texts``; ``title`` flags the headline's blocks)."""
    prose = prose_paragraphs(table, common, config)
    runs = prose_runs(table, prose, config)
    kept = _runs_kept(kept, table, runs, config)
    if config.rescue:
        kept = _lone_paragraph_kept(kept, table, prose, config)
    if config.fill_gaps:
        kept = gaps_filled(kept, table, scores, texts, config)
    if config.fill_lead and title is not None:
        kept = lead_filled(kept, table, prose, scores, texts, title, config)
    if config.drop_tail:
        kept = without_tail(kept, table, runs, scores, config)
    return kept


def without_tail(
    kept: tuple[int, ...],
    table: BlockTable,
    runs: list[ProseRun],
    scores: np.ndarray,
    config: RegionConfig,
) -> tuple[int, ...]:
    """The kept blocks less a detached tail: those after the main run (the run the body holds
    most of), outside the smallest element holding its kept paragraphs, far from the last kept
    block inside it and scored low."""
    held = set(kept)
    main = max(
        runs, key=lambda run: sum(table.chars[i] for i in run.paragraphs if i in held), default=None
    )
    paragraphs = [i for i in main.paragraphs if i in held] if main else []
    if not paragraphs:
        return kept
    chains = table.chains()
    root = _lowest_common_ancestor(chains, paragraphs)
    if root < 0:
        return kept
    chosen = np.array(kept)
    inside = (chains[chosen] == root).any(axis=1)
    tail = ~inside & (chosen > paragraphs[-1])
    if not tail.any() or chosen[tail].min() - chosen[inside].max() <= config.tail_min_distance:
        return kept
    if _mean_score(scores, table.chars, chosen[tail]) >= config.tail_max_score:
        return kept
    return tuple(chosen[~tail].tolist())


def _lowest_common_ancestor(chains: np.ndarray, blocks: list[int]) -> int:
    """The lowest element above all of ``blocks``; -1 when there is none."""
    above = chains[blocks[0]][chains[blocks[0]] >= 0]  # nearest first
    rows = chains[blocks[1:]]
    # Which of the first block's ancestors every other block has: one comparison, all at once.
    common = (rows[:, :, None] == above[None, None, :]).any(axis=1).all(axis=0)
    found = np.flatnonzero(common)
    return int(above[found[0]]) if len(found) else -1


def lead_filled(
    kept: tuple[int, ...],
    table: BlockTable,
    prose: np.ndarray,
    scores: np.ndarray,
    texts: list[str],
    title: np.ndarray,
    config: RegionConfig,
) -> tuple[int, ...]:
    """The kept blocks and the prose paragraphs between the headline and the first of them:
    the article's lead, often in a box of its own beside the body's container, so the gap
    rule's container is here the smallest element holding the headline and that block."""
    if not kept:
        return kept
    first = kept[0]
    headlines = np.flatnonzero(title[:first] > 0)
    if not len(headlines) or first - headlines[-1] - 1 > config.gap_max_blocks:
        return kept
    start = int(headlines[-1])
    inside = np.arange(start + 1, first)
    candidates = inside[prose[inside] & (scores[inside] >= config.gap_min_score)]
    if not len(candidates):
        return kept
    chains = table.chains()
    root = _lowest_common_ancestor(chains, [start, first])
    if root < 0:
        return kept
    limit = _depths(chains, np.array([start, first])).max()
    fillable = _fillable(table, texts, candidates, root, limit)
    return tuple(sorted({*kept, *candidates[fillable].tolist()}))


def _lone_paragraph_kept(
    kept: tuple[int, ...], table: BlockTable, prose: np.ndarray, config: RegionConfig
) -> tuple[int, ...]:
    """The kept blocks and the longest prose paragraph, when they are too short to be an
    article (a title line) and the paragraph is long enough to be one by itself."""
    if not len(prose) or (kept and table.chars[list(kept)].sum() >= MIN_BODY_CHARS_DEFAULT):
        return kept
    chars = np.where(prose, table.chars, 0.0)
    longest = int(np.argmax(chars))
    return tuple(sorted({*kept, longest})) if chars[longest] >= config.lone_min_chars else kept


def _runs_kept(
    kept: tuple[int, ...], table: BlockTable, runs: list[ProseRun], config: RegionConfig
) -> tuple[int, ...]:
    if not runs:
        return kept
    chosen = set(kept)
    body_chars = float(table.chars[list(kept)].sum()) if kept else 0.0
    longest = max(runs, key=lambda run: run.chars)
    if config.rescue and body_chars < config.missed_share * longest.chars:
        chosen |= set(longest.paragraphs)
    elif config.fill_runs:
        for run in runs:
            held = [i for i in run.paragraphs if i in chosen]
            if held and float(table.chars[held].sum()) >= config.kept_share * run.chars:
                chosen |= {i for i in run.paragraphs if held[0] < i < held[-1]}
    return tuple(sorted(chosen))


def article_container(kept: np.ndarray, table: BlockTable, share: float) -> int:
    """The smallest element (by the characters under it) that holds ``share`` of the kept
    blocks' characters; -1 when there is none."""
    chains = table.chains()
    valid = chains >= 0
    weights = np.broadcast_to(table.chars[:, None], chains.shape)
    under = np.bincount(chains[valid], weights[valid])
    mine = chains[kept]
    mine_valid = mine >= 0
    held = np.bincount(mine[mine_valid], weights[kept][mine_valid], minlength=len(under))
    candidates = np.flatnonzero(held >= share * float(table.chars[kept].sum()))
    return int(candidates[np.argmin(under[candidates])]) if len(candidates) else -1


def gaps_filled(
    kept: tuple[int, ...],
    table: BlockTable,
    scores: np.ndarray,
    texts: list[str],
    config: RegionConfig,
) -> tuple[int, ...]:
    """The kept blocks and the blocks of the short gaps between them inside the article's
    container: not link lists, repeated labels, comments or hidden text, and no deeper in
    the tree than the kept blocks on either side (a level deeper for each list element above
    a block). A gap counts when its blocks score high enough or are mostly list items."""
    chosen = np.array(kept)
    gaps = [
        (before, after)
        for before, after in zip(chosen[:-1].tolist(), chosen[1:].tolist(), strict=True)
        if 1 < after - before <= config.gap_max_blocks + 1
        and _worth_filling(table, scores, np.arange(before + 1, after), config)
    ]
    root = article_container(chosen, table, config.container_share) if gaps else -1
    if root < 0:
        return kept
    chains = table.chains()
    ends = np.array(gaps)
    inside = np.concatenate([np.arange(before + 1, after) for before, after in gaps])
    deepest_end = _depths(chains, ends.ravel()).reshape(-1, 2).max(axis=1)
    limit = np.repeat(deepest_end, ends[:, 1] - ends[:, 0] - 1)
    linked = table.link_chars[inside] > config.gap_max_link_density * np.maximum(
        table.chars[inside], 1.0
    )
    fillable = ~linked & _fillable(table, texts, inside, root, limit)
    return tuple(sorted({*kept, *inside[fillable].tolist()}))


def _worth_filling(
    table: BlockTable, scores: np.ndarray, gap: np.ndarray, config: RegionConfig
) -> bool:
    """Whether a gap between two kept blocks scores high enough, or is mostly a list."""
    if _mean_score(scores, table.chars, gap) >= config.gap_min_score:
        return True
    weights = np.maximum(table.chars[gap], 1.0)
    items = _list_items(table, gap)
    return float(weights[items].sum()) >= config.gap_min_list_share * float(weights.sum())


def _list_items(table: BlockTable, blocks: np.ndarray) -> np.ndarray:
    """Per block of ``blocks``: whether it is a list item, or its parent a list element."""
    items: np.ndarray = np.isin(table.tags[blocks], _LIST_ITEM_TAGS) | (
        table.ancestors_with("list", 1, blocks) > 0
    )
    return items


def _fillable(
    table: BlockTable, texts: list[str], blocks: np.ndarray, root: int, limit: np.ndarray | int
) -> np.ndarray:
    """Per block of ``blocks``: whether it may join the article, under ``root`` and no deeper
    than ``limit`` (one level deeper for each list element among the elements above it),
    and neither a repeated label, a comment nor hidden text."""
    chains = table.chains()
    deeper = table.ancestors_with("list", GAP_LIST_LEVELS, blocks)
    fillable: np.ndarray = (
        (chains[blocks] == root).any(axis=1)
        & (_depths(chains, blocks) <= limit + deeper)
        & ~repeated_texts(texts)[blocks]
        & ~table.inside("comment")[blocks]
        & ~table.inside("hidden")[blocks]
    )
    return fillable


def _depths(chains: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """The depth in the tree of each of ``blocks`` (its ancestors counted)."""
    depths: np.ndarray = (chains[blocks] >= 0).sum(axis=1)
    return depths


def _mean_score(scores: np.ndarray, chars: np.ndarray, blocks: np.ndarray) -> float:
    """The mean score of ``blocks``, weighted by characters."""
    weights = np.maximum(chars[blocks], 1.0)
    return float(scores[blocks] @ weights) / float(weights.sum())


def repeated_texts(texts: list[str]) -> np.ndarray:
    """Per block: whether another block of the page has the same text."""
    counts: dict[str, int] = {}
    for text in texts:
        counts[text] = counts.get(text, 0) + 1
    return np.fromiter((counts[text] > 1 for text in texts), bool, len(texts))

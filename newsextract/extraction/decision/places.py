"""Where a block sits on the page, and what that says: the article's paragraphs share a place.

A block's place is the chain of tag, class and id (digits aside, since generated ids number
their elements) of its element and every ancestor. Two rules read it.

Second copies of the article's text (:func:`without_copies`)
    A responsive layout that writes one variant a screen size, a tabbed panel beside the
    article, an excerpt box repeating its opening paragraphs, or a forum's preview of the
    first post: each repeats the article's paragraphs word for word in another place. Kept
    twice, they halve the body's precision. A kept block whose text is that of an earlier
    kept block is left out when the two sit in different places, and so is a long hidden
    block that repeats the other kept blocks' text (the article again in one block). A text
    repeated in the same place, such as a paragraph quoted twice in one container, stays:
    CleanEval's gold keeps such repeats. Leave-one-set-out, against keeping every copy:
    wcxb_dev +0.0036 (its articles +0.0015; by site +0.0034), chinese_wced +0.0038, dragnet
    +0.0010 (the Wall Street Journal's video tab), msv_chaos +0.0008, trafilatura_eval_dev
    +0.0003, cleaneval +0.0001, msv_big9_dev -0.0001 (a repeated line its gold keeps).
    Dropping every repeat, in the same place too, lost cleaneval 0.0017.

Paragraphs placed as the article's are (:func:`with_its_places`)
    The sections of a review, the entries of a guide and the posts of a thread repeat one
    template, so their paragraphs share a place; the classifier's score can still fall along
    the page (a product card's paragraphs at 0.15 below the same card's at 0.95 higher up),
    and in a language it knows little of. A paragraph of prose (at least
    PLACE_PROSE_MIN_CHARS characters, few links, not hidden) in the place of a kept paragraph
    scored at least PLACE_CONFIDENT_SCORE is kept, whatever its own score. Comment sections
    are left out after it as before. Leave-one-set-out: chinese_wced +0.0063, cleaneval
    +0.0022, wcxb_dev +0.0015 (by site +0.0004), dragnet +0.0001, msv_big9_dev and msv_chaos
    -0.0003 (an agency's copyright line), trafilatura_eval_dev by site -0.0004. A floor on the
    added paragraph's own score (0.1 or 0.3) lost chinese_wced 0.007. Vouching from 0.8
    instead of 0.9 added the posts of forum threads and the sections of product and
    documentation pages kept at 0.8-0.9: chinese_wced +0.0016, wcxb_dev +0.0011 (by site
    +0.0004), cleaneval +0.0005, trafilatura_eval_dev +0.0004, the others unchanged; from
    0.75, one listing of cleanportaleval whose gold is two words took 65 words more (-0.0067).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from newsextract.extraction.evidence.wording import lower_words, word_runs
from newsextract.extraction.pagemodel.blocks import Block
from newsextract.extraction.pagemodel.compiled import Places, single_spaced

#: Shorter texts repeat for reasons other than copying ("Read more", a price, a date).
MIN_COPY_CHARS = 40
#: A hidden kept block at least this long, with at least this share of its 4-word runs in
#: the other kept blocks, is the article again in one block: a page's Markdown copy for
#: machines in ``<pre hidden>``. Leave-one-set-out, wcxb_dev +0.0002 (one page, 0.62 to
#: 0.95); no other set moved. For visible blocks too, it cut forum posts that quote earlier
#: posts and CleanEval's repeated passages: cleanportaleval -0.0056, cleaneval -0.0008.
MIN_COMPILATION_CHARS = 500
COMPILATION_SHARE = 0.6
#: A kept paragraph scored at least this vouches for its place ...
PLACE_CONFIDENT_SCORE = 0.8
#: ... and a paragraph of prose is at least this long, with under PLACE_MAX_LINK_DENSITY of
#: its characters in links.
PLACE_PROSE_MIN_CHARS = 80
PLACE_MAX_LINK_DENSITY = 0.2


def without_copies(
    kept: tuple[int, ...], blocks: Sequence[Block], places: Places | None = None
) -> tuple[int, ...]:
    """The kept blocks less second copies of an earlier kept block's text placed elsewhere."""
    place = places or Places()
    first: dict[str, int] = {}
    copies: set[int] = set()
    for index in kept:
        text = single_spaced(blocks[index].text)  # a <br> as a space
        if len(text) < MIN_COPY_CHARS:
            continue
        earlier = first.setdefault(text, index)
        if earlier != index and place(blocks[earlier].element) != place(blocks[index].element):
            copies.add(index)
    copies |= _compilations(kept, blocks, copies)
    return tuple(index for index in kept if index not in copies) if copies else kept


def _compilations(kept: tuple[int, ...], blocks: Sequence[Block], copies: set[int]) -> set[int]:
    """Long hidden kept blocks whose word runs are mostly those of the other kept blocks,
    the last first: of two copies of each other, the later goes."""
    candidates = [
        i
        for i in kept
        if blocks[i].hidden and len(blocks[i].text) >= MIN_COMPILATION_CHARS and i not in copies
    ]
    if not candidates:
        return set()
    runs = {i: set(word_runs(lower_words(blocks[i].text))) for i in kept if i not in copies}
    held = Counter(run for own in runs.values() for run in own)
    found: set[int] = set()
    for index in reversed(candidates):
        mine = runs[index]
        elsewhere = sum(held[run] > 1 for run in mine)
        if mine and elsewhere >= COMPILATION_SHARE * len(mine):
            found.add(index)
            held.subtract(mine)
    return found


def with_its_places(
    kept: tuple[int, ...],
    blocks: Sequence[Block],
    scores: np.ndarray,
    places: Places | None = None,
) -> tuple[int, ...]:
    """The kept blocks and every paragraph of prose placed as a confidently kept one is."""
    place = places or Places()
    confident = [
        blocks[i] for i in kept if scores[i] >= PLACE_CONFIDENT_SCORE and _is_prose(blocks[i])
    ]
    if not confident:
        return kept
    vouched = {place(block.element) for block in confident}
    tags = {block.element.tag for block in confident}
    chosen = set(kept)
    added = [
        block.index
        for block in blocks
        if block.element.tag in tags
        and block.index not in chosen
        and not block.hidden
        and _is_prose(block)
        and place(block.element) in vouched
    ]
    return tuple(sorted(chosen.union(added))) if added else kept


def _is_prose(block: Block) -> bool:
    return len(block.text) >= PLACE_PROSE_MIN_CHARS and block.link_density < PLACE_MAX_LINK_DENSITY

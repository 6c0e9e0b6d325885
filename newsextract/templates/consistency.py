"""Site consistency: each block is judged beside the blocks at the same place on the site's
other pages.

The single-page answer judges every page alone, and now and then keeps on one page a block of a
kind it drops on the site's other pages (a teaser that reads like prose, a signature line, a
comment). A site's template puts the same kind of block at the same *place* on every page: the
path of tags, classes and ids from BODY down to the block's element, digits folded (``story-2``
and ``story-3`` are one place). A block's single-page score is blended with the mean score of the
blocks at its place on the other pages (weighted by their text); a block the single-page answer
kept is dropped when the blend falls under the single-page threshold. Only places that a class
or an id names vote: bare tags are any page's structure, not the site's.

Only removals. Restoring the blocks the single-page answer dropped at places it keeps elsewhere
added the lines one set's gold texts count and another's leave out (photo credits, "Read it at",
"Purchase this AP story"): +0.002 F1 on dragnet's sites with 5+ pages, -0.005 on msv_big9_dev.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from newsextract.extraction.pagemodel.page import Page

#: Weight of a block's own single-page score against the mean at its place on the other pages.
#: Swept 0.3-0.6 with the combination of combine.py on msv_big9_dev, cleanportaleval and
#: dragnet's sites with 5+ pages: flat within 0.001 on each (0.5: 0.984 / 0.966 / 0.939).
OWN_WEIGHT_DEFAULT = 0.5
#: Other pages of the site a place must be seen on before its mean counts (1-3 alike within
#: 0.0007 on the same sets; 2 keeps one odd page from deciding for another).
MIN_OTHER_PAGES_DEFAULT = 2
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class ConsistencyConfig:
    own_weight: float = OWN_WEIGHT_DEFAULT
    min_other_pages: int = MIN_OTHER_PAGES_DEFAULT


@dataclass(frozen=True)
class PageVerdict:
    """The single-page answer on one page of a site: its kept blocks and every block's score."""

    page: Page
    kept: tuple[int, ...]
    scores: tuple[float, ...]  # one per block of the page


def block_places(page: Page) -> tuple[str, ...]:
    """Each block's place: tags with their classes and ids from BODY down, digits folded.

    >>> from newsextract.extraction.pagemodel.page import parse_page
    >>> page = parse_page(b'<body><div class="story-12"><p>One line of text here.</p></div></body>')
    >>> block_places(page)
    ('div.story-#/p',)
    """
    memo: dict[etree._Element, str] = {}
    return tuple(_place(block.element, memo) for block in page.blocks)


def _place(element: etree._Element, memo: dict[etree._Element, str]) -> str:
    if element in memo:
        return memo[element]
    parent = element.getparent()
    if parent is None or element.tag in ("body", "html") or not isinstance(element.tag, str):
        return ""
    name = str(element.tag)
    for mark, attribute in ((".", "class"), ("#", "id")):
        value = (element.get(attribute) or "").strip()
        if value:
            name += mark + _DIGITS.sub("#", value)
    above = _place(parent, memo)
    memo[element] = f"{above}/{name}" if above else name
    return memo[element]


@dataclass
class _PlaceTotals:
    """Text and score-weighted text at each place, site-wide and per page."""

    pages: dict[str, int]
    chars: dict[str, float]
    weighted: dict[str, float]
    per_page: list[dict[str, tuple[float, float]]]


def is_specific(place: str) -> bool:
    """Whether a class or an id names some element of the place. A place of bare tags
    (``table/tr/td/p``) is plain HTML, not the site's template: on the CleanEval sites, whose
    pages are of many kinds, letting such places vote cost 0.003 F1 (0.9328 -> 0.9297); on the
    other sets it changed nothing.

    >>> is_specific("div.story-#/p"), is_specific("table/tr/td/p")
    (True, False)
    """
    return "." in place or "#" in place


def _totals(verdicts: Sequence[PageVerdict], places: Sequence[tuple[str, ...]]) -> _PlaceTotals:
    totals = _PlaceTotals({}, {}, {}, [])
    for verdict, page_places in zip(verdicts, places, strict=True):
        own: dict[str, tuple[float, float]] = {}
        for block, place in zip(verdict.page.blocks, page_places, strict=True):
            chars, weighted = own.get(place, (0.0, 0.0))
            size = float(len(block.text))
            own[place] = (chars + size, weighted + size * verdict.scores[block.index])
        for place, (chars, weighted) in own.items():
            totals.pages[place] = totals.pages.get(place, 0) + 1
            totals.chars[place] = totals.chars.get(place, 0.0) + chars
            totals.weighted[place] = totals.weighted.get(place, 0.0) + weighted
        totals.per_page.append(own)
    return totals


def consistent_kept(
    verdicts: Sequence[PageVerdict],
    threshold: float,
    config: ConsistencyConfig = ConsistencyConfig(),
) -> list[tuple[int, ...]]:
    """Per page, the single-page answer's kept blocks less those its site's other pages outvote.

    A place's mean leaves the page's own blocks out, so a page never votes for itself."""
    places = [block_places(v.page) for v in verdicts]
    totals = _totals(verdicts, places)
    result = []
    for number, verdict in enumerate(verdicts):
        own = totals.per_page[number]
        kept = []
        for index in verdict.kept:
            place = places[number][index]
            mean = _others_mean(totals, own, place, config.min_other_pages)
            score = verdict.scores[index]
            if mean is not None:
                score = config.own_weight * score + (1 - config.own_weight) * mean
            if score >= threshold:
                kept.append(index)
        result.append(tuple(kept))
    return result


def _others_mean(
    totals: _PlaceTotals, own: dict[str, tuple[float, float]], place: str, min_pages: int
) -> float | None:
    if totals.pages.get(place, 0) - 1 < min_pages or not is_specific(place):
        return None
    chars = totals.chars[place] - own[place][0]
    if chars <= 0:
        return None
    return (totals.weighted[place] - own[place][1]) / chars

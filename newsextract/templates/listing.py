"""Repeating rules for listing pages (seed 002): a primary pivot finds the list, a secondary
pivot (relative to it) selects each record, and field paths relative to the record give the
record's title and link.

Induction: on each page, the best list is the element with the most children of one shape
(same tag and class) that each hold a link with a title-like text; its candidates (pivot, path)
are tried on every page and the one that finds the most records on the most pages wins.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from newsextract.extraction.pagemodel.blocks import normalise_text
from newsextract.extraction.pagemodel.page import Page
from newsextract.templates.rules import FieldRule, RepeatingRule, select
from newsextract.templates.xpaths import Candidate, candidates, name_test, xpath_literal

#: A record's link text needs this many words to read as a title (section links have 1-2).
MIN_TITLE_WORDS_DEFAULT = 3
#: A list needs this many records on a page.
MIN_RECORDS_DEFAULT = 3
TITLE = FieldRule("title", path=".//a[@href]")
LINK = FieldRule("link", path=".//a[@href]")


@dataclass(frozen=True)
class Record:
    title: str
    link: str


def _title_link(record: etree._Element) -> Record | None:
    for anchor in select(record, TITLE.path):
        text = normalise_text(" ".join(anchor.itertext()))
        if len(text.split()) >= MIN_TITLE_WORDS_DEFAULT:
            return Record(text, anchor.get("href", ""))
    return None


def _shape(element: etree._Element) -> str:
    value = element.get("class")
    name = name_test(str(element.tag))
    if value and not any(ch.isdigit() for ch in value):
        return f"{name}[@class={xpath_literal(value)}]"
    return name


def _best_list(page: Page) -> tuple[etree._Element, str] | None:
    best: tuple[int, etree._Element, str] | None = None
    for element in page.root.iter():
        if not isinstance(element.tag, str) or len(element) < MIN_RECORDS_DEFAULT:
            continue
        shapes = Counter(_shape(child) for child in element if isinstance(child.tag, str))
        shape, _ = shapes.most_common(1)[0]
        count = sum(1 for child in select(element, shape) if _title_link(child))
        if count >= MIN_RECORDS_DEFAULT and (best is None or count > best[0]):
            best = (count, element, shape)
    return (best[1], best[2]) if best else None


def records(page: Page, rule: RepeatingRule) -> list[Record]:
    """The records a repeating rule finds on a page."""
    pivots = select(page.root, rule.pivot)
    if len(pivots) != 1:
        return []
    found = (_title_link(r) for r in select(pivots[0], rule.record))
    return [r for r in found if r is not None]


def induce_listing(pages: Sequence[Page]) -> RepeatingRule | None:
    """The repeating rule that finds the most records across the pages."""
    lists = [found for page in pages if (found := _best_list(page)) is not None]
    pool: dict[tuple[Candidate, str], None] = {}
    for element, shape in lists:
        for candidate in candidates(element):
            pool[(candidate, shape)] = None
    best: tuple[tuple[int, int], RepeatingRule] | None = None
    for (pivot, path), shape in pool:
        record = shape if path == "." else f"{path}/{shape}"
        rule = RepeatingRule(pivot, record, (TITLE, LINK))
        counts = [len(records(page, rule)) for page in pages]
        value = (sum(1 for c in counts if c >= MIN_RECORDS_DEFAULT), sum(counts))
        if best is None or value > best[0]:
            best = (value, rule)
    return best[1] if best is not None and best[0][0] > 0 else None


def reinduce_listing(page: Page, titles: Sequence[str]) -> RepeatingRule | None:
    """Seed 002's re-induction of a repeating rule: find records extracted before by their
    titles; the last node their paths share is the list (primary pivot) and its child on each
    path is the record root (secondary pivot)."""
    wanted = {t for t in titles if t}
    anchors = [
        a for a in select(page.root, TITLE.path) if normalise_text(" ".join(a.itertext())) in wanted
    ]
    if len(anchors) < 2:
        return None
    shared = _last_shared(anchors)
    child = _child_towards(shared, anchors[0])
    if child is None:
        return None
    shape = _shape(child)
    for pivot, path in candidates(shared):
        record = shape if path == "." else f"{path}/{shape}"
        rule = RepeatingRule(pivot, record, (TITLE, LINK))
        if len(records(page, rule)) >= len(anchors):
            return rule
    return None


def _last_shared(elements: Sequence[etree._Element]) -> etree._Element:
    paths = [[*reversed(list(el.iterancestors())), el] for el in elements]
    shared = paths[0][0]
    for level in zip(*paths, strict=False):
        if any(node is not level[0] for node in level):
            break
        shared = level[0]
    return shared


def _child_towards(ancestor: etree._Element, element: etree._Element) -> etree._Element | None:
    current: etree._Element | None = element
    while current is not None and current.getparent() is not ancestor:
        current = current.getparent()
    return current

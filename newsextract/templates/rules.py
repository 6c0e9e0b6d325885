"""The rule model: what an induced template compiles to, and how a rule is applied to a page.

* A **body rule** finds the body region: a *pivot* (an XPath found on the page by its
  attributes) and a *path* relative to it; inside the region, ``drops`` are relative XPaths of
  elements that are never content and ``drop_texts`` are block texts that are the site's
  template (a "Share this" line). Blocks with more link text than ``max_link_density`` are
  dropped too. A version holds one body rule per template of the site (the 2005 and 2017 pages
  of one site differ); the first rule whose region is found once on the page wins.
* A **field rule** gives headline, date or authors: an XPath (pivot + path), or a meta key.
* A **repeating rule** gives the records of a listing page (seed 002's primary pivot,
  secondary pivot = record root, field paths relative to the record).

Applying rules is a few compiled XPath evaluations: the fast path.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from lxml import etree

from newsextract.extraction.blocks import normalise_text
from newsextract.extraction.page import Page
from newsextract.templates.noise import MAX_NAMED_SHARE_DEFAULT, is_named_noise

#: Blocks with more link text than this are not body text (method A trial: > 0.5 is noise).
MAX_LINK_DENSITY_DEFAULT = 0.5


#: Whether body rules leave out texts found twice in their region. latimes.com 2017 repeats
#: each "more stories" summary, but on dragnet's sites more stories repeat a real line: on,
#: msv_big9_dev 0.9677 / dragnet 0.9251; off, 0.9672 / 0.9279. Off unless a rule says so.
DROP_REPEATED_DEFAULT = False


@dataclass(frozen=True)
class BodyRule:
    pivot: str
    path: str = "."
    drops: tuple[str, ...] = ()
    drop_texts: tuple[str, ...] = ()
    max_link_density: float = MAX_LINK_DENSITY_DEFAULT
    drop_repeated: bool = DROP_REPEATED_DEFAULT  # a text twice in the region is a teaser
    drop_named: bool = True  # boxes named as noise (comments, related, share) are dropped
    pages: int = 0  # pages it was learned from
    min_chars: int = 0  # shortest body it gave on those pages
    median_chars: int = 0


@dataclass(frozen=True)
class FieldRule:
    name: str  # headline, datePublished, authors
    pivot: str = ""
    path: str = "."
    meta: str = ""  # alternatively: a key of the page's meta tags
    in_body: bool = False  # the body text starts with it (a headline just above the region)


@dataclass(frozen=True)
class RepeatingRule:
    pivot: str  # primary pivot: the list
    record: str  # secondary pivot, relative to the primary: one element a record
    fields: tuple[FieldRule, ...] = ()  # paths relative to the record (title, link)


@dataclass(frozen=True)
class RuleVersion:
    site: str
    kind: str
    number: int
    valid_from: str = ""
    valid_until: str = ""  # empty while the version is current
    source: str = "induced"  # induced, reinduced, hand
    edited: bool = False  # a person changed it: never overwritten, always preferred
    bodies: tuple[BodyRule, ...] = ()
    fields: tuple[FieldRule, ...] = ()
    listings: tuple[RepeatingRule, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.site}/{self.kind}/v{self.number}"

    def same_rules(self, other: RuleVersion) -> bool:
        """True when the two versions extract alike (history counts and dates aside)."""
        return _rule_shape(self) == _rule_shape(other)


def _rule_shape(version: RuleVersion) -> tuple[object, ...]:
    bodies = tuple(
        (b.pivot, b.path, b.drops, b.drop_texts, b.max_link_density, b.drop_repeated, b.drop_named)
        for b in version.bodies
    )
    return bodies, version.fields, version.listings


@lru_cache(maxsize=4096)
def compiled(expression: str) -> etree.XPath:
    """XPath expressions are compiled once per process."""
    return etree.XPath(expression)


def select(context: etree._Element, expression: str) -> list[etree._Element]:
    """Elements an expression selects; an expression that fails to evaluate selects nothing."""
    if expression in ("", "."):
        return [context]
    try:
        found = compiled(expression)(context)
    except (etree.XPathError, TypeError):
        return []
    return [el for el in found if isinstance(el, etree._Element)] if isinstance(found, list) else []


def find_region(page: Page, rule: BodyRule) -> etree._Element | None:
    pivots = select(page.root, rule.pivot)
    if len(pivots) != 1:
        return None
    regions = select(pivots[0], rule.path)
    return regions[0] if len(regions) == 1 else None


@dataclass(frozen=True)
class Applied:
    """One version applied to one page."""

    version: RuleVersion
    rule_index: int  # which body rule matched
    kept: tuple[int, ...]  # block indexes, document order (headline included if in_body)
    region_kept: tuple[int, ...]  # block indexes from the region alone
    fields: dict[str, str] = field(default_factory=dict)

    def body(self, page: Page) -> str:
        return "\n".join(page.blocks[i].text for i in self.kept)


def apply_version(version: RuleVersion, page: Page) -> Applied | None:
    """The body blocks and fields the version gives on the page; None when no region is found."""
    for number, rule in enumerate(version.bodies):
        region = find_region(page, rule)
        if region is not None:
            kept = region_blocks(page, region, rule)
            fields, heading = apply_fields(version.fields, page, region)
            full = tuple(sorted(set(kept) | set(heading)))
            return Applied(version, number, full, kept, fields)
    return None


def element_blocks(page: Page) -> dict[etree._Element, list[int]]:
    by_element: dict[etree._Element, list[int]] = {}
    for block in page.blocks:
        by_element.setdefault(block.element, []).append(block.index)
    return by_element


def region_blocks(page: Page, region: etree._Element, rule: BodyRule) -> tuple[int, ...]:
    """Blocks inside the region, less the dropped elements, template texts and link lists."""
    dropped: set[etree._Element] = set()
    for expression in rule.drops:
        for element in select(region, expression):
            if element is not region:
                dropped.update(element.iter())
    by_element = element_blocks(page)
    if rule.drop_named:
        dropped |= named_boxes(page, region, by_element)
    drop_texts = set(rule.drop_texts)
    kept = []
    for element in region.iter():
        if element in dropped:
            continue
        for index in by_element.get(element, ()):
            block = page.blocks[index]
            if block.link_density > rule.max_link_density or block.text in drop_texts:
                continue
            if looks_like_markup(block.text):
                continue
            kept.append(index)
    if rule.drop_repeated:
        kept = _without_repeats(page, kept)
    return tuple(sorted(kept))


def named_boxes(
    page: Page, region: etree._Element, by_element: dict[etree._Element, list[int]]
) -> set[etree._Element]:
    """Elements inside boxes of the region named as noise, unless a box holds most of it."""
    chars: dict[etree._Element, int] = {}
    total = 0
    for element in region.iter():
        size = sum(len(page.blocks[i].text) for i in by_element.get(element, ()))
        total += size
        current: etree._Element | None = element
        while size and current is not None and current is not region:
            chars[current] = chars.get(current, 0) + size
            current = current.getparent()
    dropped: set[etree._Element] = set()
    for element in region.iterdescendants():
        if element in dropped or not isinstance(element.tag, str):
            continue
        if is_named_noise(element) and chars.get(element, 0) <= MAX_NAMED_SHARE_DEFAULT * total:
            dropped.update(element.iter())
    return dropped


_MARKUP = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*[\s>/]|\b(?:href|src|class)\s*=\s*[\"']")
#: Markup-like runs (a tag, an ``href=``) per character that make a block page source shown as
#: text, unless it starts with a tag (archived latimes.com pages print their ad code;
#: msv_big9_dev). One run in 40 characters is far above any prose.
MARKUP_RUN_CHARS_DEFAULT = 40


def looks_like_markup(text: str) -> bool:
    """HTML source shown as text: an escaped ad or embed code, never the article.

    >>> looks_like_markup('<a href="https://ads.example/click?id=1234567890&amp;segments=1,2,3">')
    True
    >>> looks_like_markup("The vote was 5 <7 and a > b, as the <clerk> wrote.")
    False
    """
    if "<" not in text:
        return False
    runs = len(_MARKUP.findall(text))
    if runs < 2:
        return False
    return text.startswith("<") or runs * MARKUP_RUN_CHARS_DEFAULT >= len(text)


#: Texts of at least this many words seen twice in a region are teasers (latimes.com 2017
#: repeats each "more stories" summary; a quoted sentence is rarely a whole block twice).
REPEATED_MIN_WORDS_DEFAULT = 5


def _without_repeats(page: Page, kept: list[int]) -> list[int]:
    counts = Counter(page.blocks[i].text for i in kept)
    return [
        i
        for i in kept
        if counts[page.blocks[i].text] < 2 or page.blocks[i].words < REPEATED_MIN_WORDS_DEFAULT
    ]


def apply_fields(
    rules: Sequence[FieldRule], page: Page, region: etree._Element
) -> tuple[dict[str, str], tuple[int, ...]]:
    """Field values, and the blocks of fields that belong at the head of the body."""
    values: dict[str, str] = {}
    heading: tuple[int, ...] = ()
    for rule in rules:
        if rule.meta:
            value = page.structured.meta.get(rule.meta, "")
            if value:
                values.setdefault(rule.name, value)
            continue
        elements = _field_elements(page, rule)
        if not elements:
            continue
        if rule.name in values:
            continue  # an earlier rule (another template's) found it
        element = elements[0]
        values[rule.name] = normalise_text(" ".join(element.itertext()))
        if rule.in_body and not _inside(element, region):
            by_element = element_blocks(page)
            heading = tuple(sorted(i for el in element.iter() for i in by_element.get(el, ())))
    return values, heading


def _field_elements(page: Page, rule: FieldRule) -> list[etree._Element]:
    pivots = select(page.root, rule.pivot)
    if not pivots:
        return []
    return select(pivots[0], rule.path)


def _inside(element: etree._Element, ancestor: etree._Element) -> bool:
    while element is not None:
        if element is ancestor:
            return True
        element = element.getparent()
    return False

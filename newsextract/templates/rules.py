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

Applying rules is a few compiled XPath evaluations: the fast path. Only expressions of the
rules' grammar (:func:`~newsextract.templates.xpaths.is_rule_xpath`) are ever evaluated: an
expression that comes from a page's markup or a file is data, never code.

A rule version whose expressions do not all fit that grammar (:func:`refused_xpaths`) is
refused when it is read or written, as a bad rule file is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from lxml import etree

from newsextract.extraction.decision.headline import strip_headline
from newsextract.extraction.pagemodel.blocks import Block, normalise_text
from newsextract.extraction.pagemodel.compiled import tag_attribute_matches
from newsextract.extraction.pagemodel.page import Page, StructuredData, is_inside
from newsextract.extraction.record.article import Article
from newsextract.templates.noise import MAX_NAMED_SHARE_DEFAULT, named_elements
from newsextract.templates.xpaths import is_rule_xpath

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


def version_xpaths(version: RuleVersion) -> Iterator[str]:
    """Every XPath expression of a version: pivots, paths, drops and records."""
    for body in version.bodies:
        yield from (body.pivot, body.path, *body.drops)
    for rule in version.fields:
        if not rule.meta:
            yield from (rule.pivot, rule.path)
    for listing in version.listings:
        yield from (listing.pivot, listing.record)
        for rule in listing.fields:
            yield from (rule.pivot, rule.path)


def refused_xpaths(version: RuleVersion) -> list[str]:
    """The version's expressions outside the grammar of rules ("" and "." are no XPath)."""
    return [
        expression
        for expression in dict.fromkeys(version_xpaths(version))
        if expression not in ("", ".") and not is_rule_xpath(expression)
    ]


@lru_cache(maxsize=4096)
def compiled(expression: str) -> etree.XPath | None:
    """XPath expressions are compiled once per process; None for one outside the grammar of
    rules (:func:`~newsextract.templates.xpaths.is_rule_xpath`), which is never evaluated."""
    if not is_rule_xpath(expression):
        return None
    try:
        return etree.XPath(expression)
    except etree.XPathError:
        return None


def select(context: etree._Element, expression: str) -> list[etree._Element]:
    """Elements an expression selects; an expression outside the grammar of rules, or that
    fails to evaluate, selects nothing."""
    if expression in ("", "."):
        return [context]
    xpath = compiled(expression)
    if xpath is None:
        return []
    try:
        found = xpath(context)
    except (etree.XPathError, TypeError):
        return []
    return [el for el in found if isinstance(el, etree._Element)] if isinstance(found, list) else []


# ``//tag``, ``//tag[@name='value']`` and the same from ``.//``: what induction writes.
_SIMPLE = re.compile(r"^(\.?)//([A-Za-z][\w-]*)(?:\[@([A-Za-z][\w-]*)='([^']*)'\])?$")
Found = dict[str, list[etree._Element]]  # expression -> the elements it selects


@lru_cache(maxsize=4096)
def _simple(expression: str) -> tuple[bool, str, str, str] | None:
    """(relative, tag, attribute, value) of a simple expression, else None."""
    match = _SIMPLE.match(expression)
    if match is None:
        return None
    relative, tag, name, value = match.groups()
    return bool(relative), tag, name or "", value or ""


def is_plain_pivot(expression: str) -> bool:
    """Whether the expression finds elements in the document by tag (and one attribute)."""
    simple = _simple(expression)
    return simple is not None and not simple[0]


def select_many(context: etree._Element, expressions: Sequence[str]) -> Found:
    """What :func:`select` gives for each expression, in document order, with the simple ones
    (``//tag[@name='value']`` from the document, ``.//tag[...]`` from ``context``) found in one
    compiled walk over the elements instead of one XPath evaluation each."""
    plan = _walk_plan(tuple(expressions))
    found: Found = {
        expression: [] if walked else select(context, expression)
        for expression, walked in plan.expressions
    }
    if plan.absolute[0]:
        tag_attribute_matches(context.getroottree().getroot(), True, *plan.absolute, found)
    if plan.relative[0]:
        tag_attribute_matches(context, False, *plan.relative, found)
    return found


# (tags as UTF-8, and for each tag ((attribute name or b"" for none, ((attribute value or b""
# for none, expressions), ...)), ...)): the form the compiled walk compares bytes in.
_Walks = tuple[
    tuple[bytes, ...],
    tuple[tuple[tuple[bytes, tuple[tuple[bytes, tuple[str, ...]], ...]], ...], ...],
]


@dataclass(frozen=True)
class _WalkPlan:
    """Expressions sorted by how :func:`select_many` finds them (a rule set's are the same on
    every page: the plan is made once)."""

    expressions: tuple[tuple[str, bool], ...]  # once each, in order; whether a walk finds it
    absolute: _Walks  # from the document
    relative: _Walks  # from the context


@lru_cache(maxsize=4096)
def _walk_plan(expressions: tuple[str, ...]) -> _WalkPlan:
    walked: dict[str, bool] = {}
    # relative or not -> tag -> attribute name -> value -> expressions
    wanted: dict[bool, dict[str, dict[str, dict[str, list[str]]]]] = {True: {}, False: {}}
    for expression in dict.fromkeys(expressions):
        parts = _simple(expression)
        walked[expression] = parts is not None
        if parts is not None:
            relative, tag, name, value = parts
            names = wanted[relative].setdefault(tag, {})
            names.setdefault(name, {}).setdefault(value, []).append(expression)
    return _WalkPlan(tuple(walked.items()), _walks(wanted[False]), _walks(wanted[True]))


def _walks(wanted: dict[str, dict[str, dict[str, list[str]]]]) -> _Walks:
    tags = tuple(_utf8(tag) for tag in wanted)
    plans = tuple(
        tuple(
            (_utf8(name), tuple((_utf8(value), tuple(found)) for value, found in values.items()))
            for name, values in names.items()
        )
        for names in wanted.values()
    )
    return tags, plans


def _utf8(text: str) -> bytes:
    # "surrogatepass": a lone surrogate (in no parsed page) then matches nothing
    return text.encode("utf-8", "surrogatepass")


def find_region(page: Page, rule: BodyRule) -> etree._Element | None:
    return region_in(page.root, rule)


#: How a path is followed from a pivot: :func:`select` on a cleaned tree.
Descend = Callable[[etree._Element, str], list[etree._Element]]


def region_in(
    root: etree._Element, rule: BodyRule, pivots: Found | None = None, descend: Descend = select
) -> etree._Element | None:
    """The rule's region in a cleaned tree: one pivot, one element at the path from it
    (``pivots``: the rule's pivot looked up beforehand by :func:`select_many`)."""
    pivots_found = pivots[rule.pivot] if pivots is not None else select(root, rule.pivot)
    if len(pivots_found) != 1:
        return None
    regions = descend(pivots_found[0], rule.path)
    return regions[0] if len(regions) == 1 else None


def version_pivots(root: etree._Element, version: RuleVersion) -> Found:
    """Every pivot of the version's body and field rules, looked up in one walk."""
    expressions = [rule.pivot for rule in version.bodies]
    expressions += [rule.pivot for rule in version.fields if not rule.meta]
    return select_many(root, list(dict.fromkeys(expressions)))


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
    pivots = version_pivots(page.root, version)
    for number, rule in enumerate(version.bodies):
        region = region_in(page.root, rule, pivots)
        if region is not None:
            kept = region_blocks(page, region, rule)
            fields, heading = apply_fields(version.fields, page, region, pivots)
            full = tuple(sorted(set(kept) | set(heading)))
            return Applied(version, number, full, kept, fields)
    return None


ByElement = dict[etree._Element, list[int]]  # owner element -> indexes of its blocks


def element_blocks(blocks: Sequence[Block]) -> ByElement:
    by_element: ByElement = {}
    for block in blocks:
        by_element.setdefault(block.element, []).append(block.index)
    return by_element


def region_blocks(page: Page, region: etree._Element, rule: BodyRule) -> tuple[int, ...]:
    """Blocks inside the region, less the dropped elements, template texts and link lists."""
    return kept_blocks(page.blocks, element_blocks(page.blocks), region, rule)


def kept_blocks(
    blocks: Sequence[Block], by_element: ByElement, region: etree._Element, rule: BodyRule
) -> tuple[int, ...]:
    """:func:`region_blocks` over any blocks that cover the region (``blocks[i].index == i``):
    the whole page's, or the region's own (the light page of stored rules)."""
    dropped = dropped_elements(blocks, by_element, region, rule)
    keeps = _keeps(rule)
    kept = []
    for element in region.iter():
        if element in dropped:
            continue
        for index in by_element.get(element, ()):
            if keeps(blocks[index]):
                kept.append(index)
    return _kept(blocks, kept, rule)


def inner_kept_blocks(
    blocks: Sequence[Block], region: etree._Element, rule: BodyRule
) -> tuple[int, ...]:
    """:func:`kept_blocks` of blocks that all lie in the region (``blocks[i].index == i``),
    in a loop over the blocks instead of every element of the region."""
    dropped = dropped_elements(blocks, None, region, rule)  # None: blocks all in the region
    keeps = _keeps(rule)
    kept = [block.index for block in blocks if block.element not in dropped and keeps(block)]
    return _kept(blocks, kept, rule)


def dropped_elements(
    blocks: Sequence[Block], by_element: ByElement | None, region: etree._Element, rule: BodyRule
) -> set[etree._Element]:
    """Elements of the region whose blocks the rule leaves out: its drops and named boxes."""
    dropped: set[etree._Element] = set()
    for elements in select_many(region, rule.drops).values():
        for element in elements:
            if element is not region:
                dropped.update(element.iter())
    if rule.drop_named:
        # blocks that all lie in the region (by_element None) hold all its characters
        total = sum(len(block.text) for block in blocks) if by_element is None else -1
        dropped |= named_boxes(blocks, region, by_element, total)
    return dropped


def _keeps(rule: BodyRule) -> Callable[[Block], bool]:
    """Whether a block outside the dropped elements is body text: not a link list, not a
    template text, not markup."""
    drop_texts = set(rule.drop_texts)
    max_link_density = rule.max_link_density

    def keeps(block: Block) -> bool:
        if block.link_density > max_link_density or block.text in drop_texts:
            return False
        return not looks_like_markup(block.text)

    return keeps


def _kept(blocks: Sequence[Block], kept: list[int], rule: BodyRule) -> tuple[int, ...]:
    """The kept blocks in order, less the teasers a region repeats if the rule says so."""
    if rule.drop_repeated:
        kept = _without_repeats(blocks, kept)
    return tuple(sorted(kept))


def named_boxes(
    blocks: Sequence[Block],
    region: etree._Element,
    by_element: ByElement | None = None,
    total: int = -1,
) -> set[etree._Element]:
    """Elements inside boxes of the region named as noise, unless a box holds most of it
    (``by_element``: :func:`element_blocks` of the blocks, worked out if need be; ``total``:
    the region's characters, counted at the first named box unless given)."""
    dropped: set[etree._Element] = set()
    for element in named_elements(region):
        if element in dropped:
            continue
        if by_element is None:
            by_element = element_blocks(blocks)
        if total < 0:
            total = _chars(region, blocks, by_element)
        if _chars(element, blocks, by_element) <= MAX_NAMED_SHARE_DEFAULT * total:
            dropped.update(element.iter())
    return dropped


def _chars(element: etree._Element, blocks: Sequence[Block], by_element: ByElement) -> int:
    """Characters of the blocks inside the element."""
    return sum(len(blocks[i].text) for inner in element.iter() for i in by_element.get(inner, ()))


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


def _without_repeats(blocks: Sequence[Block], kept: list[int]) -> list[int]:
    counts = Counter(blocks[i].text for i in kept)
    return [
        i
        for i in kept
        if counts[blocks[i].text] < 2 or blocks[i].words < REPEATED_MIN_WORDS_DEFAULT
    ]


def apply_fields(
    rules: Sequence[FieldRule], page: Page, region: etree._Element, pivots: Found | None = None
) -> tuple[dict[str, str], tuple[int, ...]]:
    """Field values, and the blocks of fields that belong at the head of the body."""
    found = read_fields(rules, page.root, page.structured.meta, region, pivots)
    if found.head is None:
        return found.values, ()
    by_element = element_blocks(page.blocks)
    heading = tuple(sorted(i for el in found.head.iter() for i in by_element.get(el, ())))
    return found.values, heading


@dataclass(frozen=True)
class Fields:
    """Field values, and the element (outside the region) that heads the body, if any."""

    values: dict[str, str]
    head: etree._Element | None = None


def read_fields(
    rules: Sequence[FieldRule],
    root: etree._Element,
    meta: dict[str, str],
    region: etree._Element,
    pivots: Found | None = None,
    descend: Descend = select,
) -> Fields:
    """The fields' values in a cleaned tree, with its meta tags read before cleaning
    (``pivots``: the rules' pivots looked up beforehand by :func:`select_many`)."""
    values: dict[str, str] = {}
    head = None
    for rule in rules:
        if rule.meta:
            value = meta.get(rule.meta, "")
            if value:
                values.setdefault(rule.name, value)
            continue
        if rule.name in values:
            continue  # an earlier rule (another template's) found it
        elements = _field_elements(root, rule, pivots, descend)
        if not elements:
            continue
        element = elements[0]
        values[rule.name] = normalise_text(" ".join(element.itertext()))
        if rule.in_body and not is_inside(element, region):
            head = element
    return Fields(values, head)


def _field_elements(
    root: etree._Element, rule: FieldRule, pivots: Found | None, descend: Descend
) -> list[etree._Element]:
    found = pivots[rule.pivot] if pivots is not None else select(root, rule.pivot)
    if not found:
        return []
    return descend(found[0], rule.path)


#: Confidence of a validated rule answer learned from many pages; fewer pages give less.
RULE_CONFIDENCE_DEFAULT = 0.9


def rule_article(
    url: str | None,
    structured: StructuredData,
    version: RuleVersion,
    rule_index: int,
    fields: dict[str, str],
    body: str,
    kept: tuple[int, ...] = (),
) -> Article:
    """The record of a rules answer (``kept``: block indexes, when the full page has them)."""
    rule = version.bodies[rule_index]
    names = (a.strip() for a in fields.get("authors", "").split(","))
    authors = tuple(a for a in names if a and not a.startswith(("http://", "https://")))
    learned_from = max(rule.pages, 1)
    headline = fields.get("headline") or structured.meta.get("og:title", structured.title)
    return Article(
        url=url,
        body=strip_headline(body, headline),
        headline=headline,
        canonical_url=structured.canonical,
        date_published=fields.get("datePublished", ""),
        date_published_raw=fields.get("datePublished", ""),
        authors=authors,
        language=structured.lang,
        method="rules",
        rule_version=version.label,
        confidence=round(RULE_CONFIDENCE_DEFAULT * min(1.0, learned_from / 5) + 0.05, 3),
        kept_blocks=kept,
    )

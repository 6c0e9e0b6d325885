"""The light page of stored rules: from a page's bytes to the rules' answer without the full
page model.

A site's stored rules need far less than :func:`~newsextract.extraction.pagemodel.page.parse_page`
builds: the page is decoded and parsed once and its meta tags read (not its JSON-LD); the
rules' pivots are looked up in one walk over the elements of each of their tags, those that
cleaning would remove are left out, and their paths are followed counting only the children
cleaning keeps (so that they find what they find on the cleaned tree they were learned on);
then only the region found is cleaned and cut into blocks, and only the elements the field
rules read are cleaned (a few elements each, walked in Python). The rest of the page is
never cleaned nor cut into blocks. The blocks, drops, named boxes and fields are those of the
full path (the same functions of :mod:`newsextract.templates.rules`), so the body is the one
the full page model gives: tests compare the two on every kind of rule induction writes.

``None`` means the light page gives no answer: no region found, or a case it does not
cover exactly (a region inside a link, a headline that holds the region). The caller then
parses the full page model and applies the rules there, which also re-induces a site's
rules after a redesign, so nothing is lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

from lxml import etree

from newsextract.extraction.pagemodel.blocks import BLOCK_TAGS, Block, split_blocks
from newsextract.extraction.pagemodel.page import (
    MAX_ELEMENTS_DEFAULT,
    MAX_HTML_CHARS_DEFAULT,
    StructuredData,
    clean_tree,
    drop_element,
    is_inside,
    is_noise_element,
    kept_by_cleaning,
    parse_html,
    read_structured_data,
)
from newsextract.extraction.record.article import Article
from newsextract.templates.rules import (
    BodyRule,
    Descend,
    FieldRule,
    Found,
    RuleVersion,
    inner_kept_blocks,
    is_plain_pivot,
    read_fields,
    region_in,
    rule_article,
    select,
    version_pivots,
)


@dataclass(frozen=True)
class LightPage:
    """A page as stored rules need it: the parsed tree and what the page says of itself.

    The tree is cleaned as the full page model's is, but only where rules look, when they
    look: applying rules changes it (cleaning twice changes nothing). The structured data is
    the full page model's less its JSON-LD, which the rules' record does not read."""

    url: str | None
    encoding: str
    root: etree._Element  # never cut into blocks as a whole
    structured: StructuredData


def light_page(
    body: bytes | str,
    url: str | None = None,
    content_type: str | None = None,
    max_chars: int = MAX_HTML_CHARS_DEFAULT,
    max_elements: int = MAX_ELEMENTS_DEFAULT,
) -> LightPage:
    """Decode, parse, read meta tags; raise ``NotHTMLError`` and ``PageTooComplexError`` as
    ``parse_page`` does (a page's tags are counted once, by the parse's own check)."""
    parsed = parse_html(body, content_type, max_chars, max_elements)
    structured = read_structured_data(parsed.root, json_ld=False)
    return LightPage(url, parsed.encoding, parsed.root, structured)


@dataclass(frozen=True)
class LightApplied:
    """One version applied to a light page."""

    version: RuleVersion
    rule_index: int  # which body rule matched
    body: str  # one block a line, the headline first when a field rule puts it in the body
    fields: dict[str, str]
    blocks: int  # blocks in the body

    @property
    def rule(self) -> BodyRule:
        return self.version.bodies[self.rule_index]


def apply_light(version: RuleVersion, page: LightPage) -> LightApplied | None:
    """What :func:`~newsextract.templates.rules.apply_version` gives, on a light page."""
    lookup = _lookup(page.root, version)
    pivots = lookup.pivots
    for number, rule in enumerate(version.bodies):
        region = region_in(page.root, rule, pivots, lookup.region)
        if region is None:
            continue
        if _inside_link(region):
            return None  # its blocks' link text counts from outside the region
        blocks = subtree_blocks(region)
        texts = [blocks[i].text for i in inner_kept_blocks(blocks, region, rule)]
        meta = page.structured.meta
        found = read_fields(version.fields, page.root, meta, region, pivots, lookup.field)
        if found.head is not None:
            if is_inside(region, found.head):
                return None  # the headline's blocks would hold the whole region
            head = [block.text for block in subtree_blocks(found.head)]
            texts = head + texts if _precedes(found.head, region) else texts + head
        return LightApplied(version, number, "\n".join(texts), found.values, len(texts))
    return None


@dataclass(frozen=True)
class _Lookup:
    """The version's pivots as the cleaned tree has them, and how to follow a path from them
    to a region and to a field."""

    pivots: Found
    region: Descend
    field: Descend


def _lookup(root: etree._Element, version: RuleVersion) -> _Lookup:
    """Induced rules find their pivot by tag and attribute and walk down from it by tag and
    position: the pivots that the whole tree's cleaning keeps, and paths that count only
    the children it keeps, find what the rules find on the cleaned tree; only the elements
    found are cleaned then. Other expressions (a person's edit) may look anywhere: the whole
    tree is cleaned first."""
    rules: list[BodyRule | FieldRule] = [*version.bodies, *version.fields]
    if not all(map(_walks_down, rules)):
        clean_tree(root)
        return _Lookup(version_pivots(root, version), select, select)
    pivots = {
        pivot: kept_by_cleaning(found) for pivot, found in version_pivots(root, version).items()
    }
    return _Lookup(pivots, descend_and_clean, descend_to_field)


def descend_and_clean(element: etree._Element, path: str) -> list[etree._Element]:
    """What :func:`~newsextract.templates.rules.select` gives for a path down by tag and
    position from an element that cleaning keeps, before the tree is cleaned; the first
    element found is cleaned (it is the one rules read)."""
    found = descend_kept(element, path)
    if found:
        clean_tree(found[0])
    return found


def descend_to_field(element: etree._Element, path: str) -> list[etree._Element]:
    """:func:`descend_and_clean` to a field's element, which holds a few elements at most."""
    found = descend_kept(element, path)
    if found:
        clean_subtree(found[0])
    return found


def descend_kept(element: etree._Element, path: str) -> list[etree._Element]:
    """The elements a path down by tag and position finds counting only the children that
    cleaning keeps."""
    found = [element]
    for step in () if path == "." else path.split("/"):
        tag, _, index = step.partition("[")
        position = int(index[:-1]) if index else 0
        children = []
        for parent in found:
            kept = [child for child in parent.iterchildren(tag) if not is_noise_element(child)]
            children += kept[position - 1 : position] if position else kept
        found = children
    return found


#: Elements under which a subtree is cleaned by one walk in Python rather than by
#: :func:`~newsextract.extraction.pagemodel.page.clean_tree`, whose tag filter and XPath cost as
#: much as that walk over about 10 elements (timed on divs of msv_big9_dev and dragnet pages;
#: their headline and date elements hold under 10).
SMALL_SUBTREE_DEFAULT = 10


def clean_subtree(element: etree._Element, small: int = SMALL_SUBTREE_DEFAULT) -> None:
    """What :func:`~newsextract.extraction.pagemodel.page.clean_tree` does to an element that
    cleaning keeps; a headline or a date holds a few elements, and one walk over them is cheaper."""
    doomed = []
    for count, inner in enumerate(element.iterdescendants(etree.Element)):
        # a noscript that holds the page is kept unless hidden: clean_tree's own tests
        if count >= small or inner.tag == "noscript":
            clean_tree(element)
            return
        if is_noise_element(inner):
            doomed.append(inner)
    for inner in doomed:
        drop_element(inner)


def _walks_down(rule: BodyRule | FieldRule) -> bool:
    """Whether the rule finds its pivot by tag and attribute and walks down from it."""
    if isinstance(rule, FieldRule) and rule.meta:
        return True
    return _plain(rule.pivot, rule.path)


@lru_cache(maxsize=4096)
def _plain(pivot: str, path: str) -> bool:
    return is_plain_pivot(pivot) and _DOWNWARD.match(path) is not None


# "." or steps down by tag and position among same-tag siblings: "div[2]/p".
_DOWNWARD = re.compile(r"^(?:\.|[A-Za-z][\w-]*(?:\[\d+\])?(?:/[A-Za-z][\w-]*(?:\[\d+\])?)*)$")


def subtree_blocks(element: etree._Element) -> tuple[Block, ...]:
    """The blocks the full page model has inside ``element``, indexed from 0.

    Its tail is not its text, and when it is not a block element its own direct text belongs
    to a block of an element around it, outside the subtree."""
    tail, element.tail = element.tail, None
    try:
        blocks = split_blocks(element)
    finally:
        element.tail = tail
    if element.tag in BLOCK_TAGS:
        return blocks
    inner = [block for block in blocks if block.element is not element]
    return tuple(replace(block, index=number) for number, block in enumerate(inner))


def _inside_link(element: etree._Element) -> bool:
    """Whether the element is a link or inside one (the full page counts its text as link
    text; cut into blocks alone, it would not)."""
    return element.tag == "a" or any(a.tag == "a" for a in element.iterancestors())


def _precedes(first: etree._Element, second: etree._Element) -> bool:
    """Whether ``first`` comes before ``second`` in document order (neither holds the other)."""
    chain = [first, *first.iterancestors()]
    positions = {element: depth for depth, element in enumerate(chain)}
    child = second
    for ancestor in second.iterancestors():
        depth = positions.get(ancestor)
        if depth is not None:
            common_child = chain[depth - 1]
            return bool(ancestor.index(common_child) < ancestor.index(child))
        child = ancestor
    return False


Validate = Callable[[BodyRule, str, str | None], bool]  # rule, body, url -> whether it passes


def light_article(version: RuleVersion, page: LightPage, validate: Validate) -> Article | None:
    """The validated rules answer on a light page; None sends the page to the full path."""
    applied = apply_light(version, page)
    if applied is None or not validate(applied.rule, applied.body, page.url):
        return None
    number, fields = applied.rule_index, applied.fields
    return rule_article(page.url, page.structured, version, number, fields, applied.body)

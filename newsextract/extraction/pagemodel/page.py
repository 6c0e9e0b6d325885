"""The page model: bytes decoded, parsed once, structured data read, noise removed, blocks cut.

Every extraction method takes a :class:`Page` and never re-parses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from lxml import etree

from newsextract.exceptions import NotHTMLError, PageTooComplexError
from newsextract.extraction.pagemodel.blocks import BLOCK_TAGS, Block, split_blocks
from newsextract.extraction.pagemodel.compiled import (
    cleaning_parts,
    source_counts,
    structured_parts,
    text_chars,
    text_counts,
    without_overlong_tags,
)
from newsextract.extraction.pagemodel.compiled import kept_by_cleaning as compiled_kept
from newsextract.extraction.pagemodel.encoding import decode_html, utf8_source
from newsextract.extraction.pagemodel.mojibake import repair_mojibake
from newsextract.extraction.pagemodel.visibility import HIDING_NAMES, is_hidden

#: Pages longer than this (in characters) are cut before parsing; a 20 MB page stays bounded.
MAX_HTML_CHARS_DEFAULT = 8_000_000
#: Tags (:func:`count_tags`) a page may hold; a page with more is refused before it is parsed.
#: Characters alone do not bound the cost: ``<p>a`` two million times is 8 MB (8 kB gzipped
#: on the wire) and took a crawl to 6.8 GB and 40 s. Every element costs about 700 bytes
#: parsed and 3.7 kB once cut into blocks and scored (100,000 ``<p>`` elements: 70 MB and
#: 0.9 s to parse, 370 MB and 3 s in all). The largest of the 4,763 development pages
#: (every set of ``shared/data``) holds 15,793 tags; the median page 700.
MAX_ELEMENTS_DEFAULT = 100_000
#: Blocks a page may be cut into; a page with more is refused before any method scores it.
#: The largest development page holds 6,410 block elements, the median page 329.
MAX_BLOCKS_DEFAULT = 30_000

#: Elements whose whole subtree is never content.
NOISE_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "math",
    "iframe",
    "object",
    "embed",
    "canvas",
    "video",
    "audio",
    "map",
    "select",
    "textarea",
    "button",
    "input",
    "head",
)
# The patterns of rare pages (binary, with characters XML forbids, with overlong tags or
# nested too deep) are strings: re compiles each at its first use, not every process at import.
_BINARY_CONTROL = r"[\x00-\x08\x0e-\x1f]"
_XML_ILLEGAL_CHARS = tuple(map(chr, [*range(0, 9), 11, 12, *range(14, 32), 0xFFFE, 0xFFFF]))
_XML_ILLEGAL = f"[{re.escape(''.join(_XML_ILLEGAL_CHARS))}]"


@dataclass(frozen=True)
class StructuredData:
    """What a page says about itself outside its visible text."""

    title: str = ""
    lang: str = ""
    canonical: str = ""
    meta: dict[str, str] = field(default_factory=dict)  # name/property/itemprop -> content
    json_ld: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class PageLimits:
    """How complex a page may be (the characters are bounded by ``max_chars`` apart: longer
    pages are cut, not refused)."""

    max_elements: int = MAX_ELEMENTS_DEFAULT
    max_blocks: int = MAX_BLOCKS_DEFAULT


DEFAULT_LIMITS = PageLimits()


@dataclass(frozen=True)
class Page:
    """One parsed page, shared by every method."""

    url: str | None
    encoding: str
    html: str
    root: etree._Element  # cleaned tree: no scripts, styles, comments or hidden elements
    blocks: tuple[Block, ...]
    structured: StructuredData

    @property
    def text_length(self) -> int:
        return sum(len(block.text) for block in self.blocks)


def parse_page(
    body: bytes | str,
    url: str | None = None,
    content_type: str | None = None,
    max_chars: int = MAX_HTML_CHARS_DEFAULT,
    limits: PageLimits = DEFAULT_LIMITS,
) -> Page:
    """Build the page model; raise :class:`NotHTMLError` for bodies that are not a document
    and :class:`PageTooComplexError` for pages over ``limits``."""
    parsed = parse_html(body, content_type, max_chars, limits.max_elements)
    root = parsed.root
    structured = read_structured_data(root)
    hidden = clean_tree(root)
    blocks = split_blocks(root, hidden)
    if len(blocks) > limits.max_blocks:
        raise PageTooComplexError("blocks", len(blocks), limits.max_blocks)
    return Page(url, parsed.encoding, parsed.html, root, blocks, structured)


class ParsedHTML(NamedTuple):
    """A body decoded and parsed: the tree as parsed, before structured data is read and
    noise removed (the light page of stored rules starts from it too)."""

    html: str
    encoding: str
    root: etree._Element


def parse_html(
    body: bytes | str,
    content_type: str | None = None,
    max_chars: int = MAX_HTML_CHARS_DEFAULT,
    max_elements: int = MAX_ELEMENTS_DEFAULT,
) -> ParsedHTML:
    """Decode and parse once; raise :class:`NotHTMLError` for bodies that are not a document
    and :class:`PageTooComplexError` for pages of more than ``max_elements`` tags."""
    source: bytes | None = None  # the body's own bytes, when they are ``html`` in UTF-8
    if isinstance(body, bytes):
        decoded = decode_html(body, content_type)
        html, encoding = decoded.text, decoded.encoding
        source = utf8_source(body, decoded)
    else:
        html, encoding = body, "unicode"
    if len(html) > max_chars:
        html, source = html[:max_chars], None
    repaired = repair_mojibake(html)
    if repaired is not html:
        html, source = repaired, None
    counts = CharCounts(*(source_counts(source) if source is not None else text_counts(html)))
    if _looks_binary(html, counts.forbidden if source is not None else None):
        raise NotHTMLError("body is binary, not text")
    if counts.less_than > max_elements:  # more than the tags: the exact count is seldom needed
        tags = count_tags(html)
        if tags > max_elements:
            raise PageTooComplexError("tags", tags, max_elements)
    if _has_illegal_chars(html, counts):
        html, source = re.sub(_XML_ILLEGAL, " ", html), None
    if len(html) > MAX_TAG_CHARS_DEFAULT:
        shortened = drop_overlong_attributes(html)
        if shortened is not html:
            html, source = shortened, None
    return ParsedHTML(html, encoding, _parse(html, source))


def count_tags(text: str | bytes) -> int:
    """The tags that can open an element: every "<" but those of end tags, comments and
    declarations (a "<" in a script or in text counts too), in three passes in C: 8 MB of
    bomb in 50 ms, and no copy. A page's bytes count as its decoded text does in UTF-8 and
    the CJK encodings (where the byte 0x3C is always "<"), and in UTF-16 about as much.

    >>> count_tags("<p>a<br>b</p><!-- c -->"), count_tags(b"<td>1<td>2")
    (2, 2)
    """
    if isinstance(text, bytes):
        return text.count(b"<") - text.count(b"</") - text.count(b"<!")
    return text.count("<") - text.count("</") - text.count("<!")


class CharCounts(NamedTuple):
    """What the checks before parsing need of a page, counted in one compiled pass over its
    text, or over its UTF-8 bytes when it came from them (the same counts)."""

    less_than: int  # "<" characters
    forbidden: int  # control characters XML forbids
    nonchars: bool  # U+FFFE or U+FFFF


def _has_illegal_chars(html: str, counts: CharCounts | None = None) -> bool:
    """Whether the text holds characters XML forbids (``counts``: its counts, when taken)."""
    if counts is None:
        return any(char in html for char in _XML_ILLEGAL_CHARS)  # str.__contains__: fast
    return counts.forbidden > 0 or counts.nonchars


def _looks_binary(html: str, forbidden: int | None = None) -> bool:
    """Whether the page's start is mostly replacement and control characters.

    Text from UTF-8 bytes has no replacement character and, in all, no more control
    characters than the ``forbidden`` count: a page with few of them needs no count."""
    sample = html[:4096]
    if forbidden is not None and forbidden <= 0.1 * len(sample):
        return False
    if not sample.strip():
        return False
    odd = sample.count("\ufffd") + len(re.findall(_BINARY_CONTROL, sample))
    return odd > 0.1 * len(sample)


#: Start tags longer than this lose their attributes before parsing: libxml2 checks each
#: attribute against all earlier ones (100,000 attributes take half a minute) and stops
#: at attribute values over 10 MB, losing the rest of the page. Real tags are under 5 kB.
MAX_TAG_CHARS_DEFAULT = 20_000


def drop_overlong_attributes(html: str) -> str:
    """Keep the name of each overlong start tag and drop its attributes (in one compiled
    pass: a regex took 5-8 ms a page on the one page in 20 of today's web that has such a
    tag, a JSON blob in an attribute).

    >>> drop_overlong_attributes("<p " + "a=1 " * 6000 + ">x</p>")
    '<p>x</p>'
    """
    if not has_long_tag(html, MAX_TAG_CHARS_DEFAULT):
        return html
    return without_overlong_tags(html, MAX_TAG_CHARS_DEFAULT)


def has_long_tag(html: str, length: int) -> bool:
    """Whether a start tag's name starts a run of more than ``length`` characters without
    "<" or ">" (what ``<[A-Za-z][^<>]{length}`` finds), without a regex over the page.

    Such a run holds a whole aligned stretch of ``length // 2`` characters, so looking for a
    bracket in each stretch (str.find stops at the first, usually within a line) rules out a
    long tag on nearly every page at once. Around a stretch without one, the run is measured
    from the bracket before it to the one after it.

    >>> has_long_tag("<p " + "x" * 50 + ">", 40), has_long_tag("<p>" + "x" * 50 + "</p>", 40)
    (True, False)
    """
    step = max(length // 2, 1)
    find, rfind = html.find, html.rfind
    start = 0
    while start + step <= len(html):
        if find("<", start, start + step) >= 0 or find(">", start, start + step) >= 0:
            start += step
            continue
        opened = max(rfind("<", 0, start), rfind(">", 0, start))
        after = [i for i in (find("<", start + step), find(">", start + step)) if i >= 0]
        closed = min(after, default=len(html))
        name = html[opened + 1 : opened + 2]
        tag = opened >= 0 and html[opened] == "<" and name.isascii() and name.isalpha()
        if tag and closed - opened - 2 >= length:
            return True
        start = (closed // step + 1) * step  # the stretch holding ``closed`` has a bracket
    return False


_EMPTY_DOCUMENT = "<html><body></body></html>"
#: Ids of what a web archive inserts into the pages it replays (the Wayback Machine's
#: toolbar, with its "These crawls are part of an effort to archive pages ..." notes): never
#: the page's own text. Archived copies of news pages are a common input of a corpus.
ARCHIVE_INSERT_IDS = frozenset({"wm-ipp-base", "wm-ipp", "wm-ipp-print"})


def _parse(html: str, source: bytes | None = None) -> etree._Element:
    """Parse with libxml2; re-parse a flattened copy when nesting stopped the parser.

    ``source``, when given, is ``html`` in UTF-8 already (the page's own bytes).
    """
    root, too_deep = _parse_once(html, source)
    if too_deep:
        root, _ = _parse_once(flatten_nesting(html))
    if root is None:
        root, _ = _parse_once(_EMPTY_DOCUMENT)
    assert root is not None  # the empty document always parses
    body = root.find("body")
    if body is None:
        body = etree.SubElement(root, "body")
    if root.getnext() is not None:
        adopt_stray_roots(root, body)
    return root


def adopt_stray_roots(root: etree._Element, body: etree._Element) -> None:
    """Move what libxml2 put in further top-level elements into ``body``, as browsers do.

    After some stray end tags (``</html>`` early, a second ``<html>``) libxml2 starts a new
    top-level element beside the document's: everything in it, often the whole article
    (about one page in 50 of today's web), is outside the tree the page model reads.

    >>> root = _parse("<p>a</p></body></html><div><p>b</p></div>")
    >>> [el.text for el in root.iter("p")]
    ['a', 'b']
    """
    stray = root.getnext()
    while stray is not None:
        if isinstance(stray.tag, str):
            _append_children(stray, body)  # the emptied element stays: a root has no parent
        stray = stray.getnext()


def _append_children(source: etree._Element, target: etree._Element) -> None:
    """Move ``source``'s text and children (a body's own children, not the body) to the end of
    ``target``; a head's elements are dropped, as the first head holds the page's own."""
    if source.text and source.text.strip():
        _append_text(target, source.text)
    for child in list(source):
        if child.tag == "head":
            continue
        if child.tag == "body":
            _append_children(child, target)
            if child.tail and child.tail.strip():
                _append_text(target, child.tail)
            continue
        target.append(child)


def _append_text(target: etree._Element, text: str) -> None:
    last = target[-1] if len(target) else None
    if last is None:
        set_text(target, (target.text or "") + text)
    else:
        set_text(last, (last.tail or "") + text, "tail")


def set_text(element: etree._Element, text: str, where: str = "text") -> None:
    """``element.text = text`` (``where="tail"``: its tail); characters XML forbids become
    spaces, as before parsing.

    libxml2 keeps the control characters that character references name ("&#12;") in the
    text it parses, and lxml refuses to store them again once a tail is moved."""
    try:
        setattr(element, where, text)
    except ValueError:
        setattr(element, where, re.sub(_XML_ILLEGAL, " ", text))


def _parse_once(html: str, source: bytes | None = None) -> tuple[etree._Element | None, bool]:
    """The tree (None if there is none) and whether libxml2 stopped at its depth limit."""
    if not html or html.isspace():  # not html.strip(): no copy of the page
        return None, False
    # Bytes, not str: lxml refuses a str that starts with an XML encoding declaration.
    # No table of id attributes: nothing looks elements up by id, and libxml2 builds it
    # while parsing.
    parser = etree.HTMLParser(
        remove_comments=True,
        remove_pis=True,
        no_network=True,
        encoding="utf-8",
        collect_ids=False,
    )
    try:
        data = html.encode("utf-8", "replace") if source is None else source
        root = etree.fromstring(data, parser)
    except (etree.ParserError, ValueError):
        return None, False
    last_error = parser.error_log.last_error
    too_deep = last_error is not None and "depth" in (last_error.message or "")
    return root, too_deep


#: Nesting kept when a page is deeper than libxml2 parses (it stops at 256 levels and the
#: rest of the page is lost); deeper start and end tags are dropped, their text kept.
MAX_NESTING_DEFAULT = 200
_TAG = r"<(/?)([A-Za-z][^\s/>]*)[^>]*?(/?)>"
_VOID_TAGS = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
#: How far up the open tags an end tag may close (libxml2 ignores stray end tags anyway).
_END_TAG_SEARCH = 32


def flatten_nesting(html: str, max_nesting: int = MAX_NESTING_DEFAULT) -> str:
    """Drop the tags nested deeper than ``max_nesting``, keeping all text, in linear time.

    >>> flatten_nesting("<div><p><b>x</b><br>y</p></div>", max_nesting=2)
    '<div><p> x <br>y</p></div>'
    """
    open_tags: list[tuple[str, bool]] = []  # (name, dropped)
    pieces: list[str] = []
    position = 0
    for match in re.finditer(_TAG, html):
        closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(3)
        drop = False
        if closing:
            drop = _close(open_tags, name)
        elif name not in _VOID_TAGS and not self_closing:
            drop = len(open_tags) >= max_nesting
            open_tags.append((name, drop))
        if drop:
            pieces.append(html[position : match.start()])
            pieces.append(" ")
            position = match.end()
    pieces.append(html[position:])
    return "".join(pieces)


def _close(open_tags: list[tuple[str, bool]], name: str) -> bool:
    """Pop the open tags up to ``name``; return whether its start tag was dropped."""
    for distance in range(1, min(len(open_tags), _END_TAG_SEARCH) + 1):
        if open_tags[-distance][0] == name:
            dropped = open_tags[-distance][1]
            del open_tags[-distance:]
            return dropped
    return False


def read_structured_data(root: etree._Element, json_ld: bool = True) -> StructuredData:
    """Title, language, canonical URL, meta tags and (unless ``json_ld`` is False: stored
    rules never read them) JSON-LD objects, read before cleaning.

    One compiled walk of the tree finds all four kinds of element.
    """
    meta, title, canonical, scripts = structured_parts(root, json_ld)
    return StructuredData(
        title="".join(title.itertext()).strip() if title is not None else "",
        lang=(root.get("lang") or meta.get("og:locale", "")).strip(),
        canonical=(canonical or "").strip(),
        meta=meta,
        json_ld=tuple(_json_ld_objects(scripts)),
    )


def _json_ld_objects(scripts: list[etree._Element]) -> Iterator[dict[str, Any]]:
    for script in scripts:
        if "ld+json" not in (script.get("type") or "").lower() or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except (ValueError, RecursionError):
            continue
        yield from _flatten_json_ld(data)


def _flatten_json_ld(data: Any) -> Iterator[dict[str, Any]]:
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            yield item
            graph = item.get("@graph")
            if isinstance(graph, list):
                stack.extend(reversed(graph))


def clean_tree(root: etree._Element) -> set[etree._Element]:
    """Remove elements that are never visible text, in place (``root`` may be any element
    that :func:`removed_by_cleaning` keeps: its subtree ends as the whole tree's would).

    Hidden inline elements go (icons, screen-reader labels); hidden block elements stay, for
    the classifier to judge (blocks flag them): tabs, accordions and streamed parts of
    today's pages hide real content until a click or a script shows it. Returns those hidden
    block elements (some may lie inside removed noise).
    """
    heads, holders, doomed, hidden = cleaning_parts(
        root, _NOISE_TAG_SET, _PAGE_HOLDERS, ARCHIVE_INSERT_IDS, BLOCK_TAGS
    )
    # The head first: its scripts and styles then need no removal of their own.
    for head in heads:
        drop_element(head)
    doomed += [holder for holder in holders if not _holds_page(holder)]
    # The order of removal does not matter: each moves its tail to the text just before it.
    for element in doomed:
        drop_element(element)
    return hidden


def kept_by_cleaning(elements: list[etree._Element]) -> list[etree._Element]:
    """The elements that :func:`clean_tree` on the whole tree keeps, in one compiled walk up
    from each (only the elements on the way that may be noise are judged in Python)."""
    return compiled_kept(
        elements, _NOISE_TAG_SET, BLOCK_TAGS, ARCHIVE_INSERT_IDS, HIDING_NAMES, is_noise_element
    )


def removed_by_cleaning(element: etree._Element) -> bool:
    """Whether :func:`clean_tree` on the whole tree removes the element (it or an ancestor
    is noise or hidden)."""
    current: etree._Element | None = element
    while current is not None:
        if is_noise_element(current):
            return True
        current = current.getparent()
    return False


def is_noise_element(element: etree._Element) -> bool:
    """Whether :func:`clean_tree` removes the element for what it is itself (noise, hidden)."""
    tag = element.tag
    if tag in _NOISE_TAG_SET:
        return tag not in _PAGE_HOLDERS or not _holds_page(element)
    if element.get("id") in ARCHIVE_INSERT_IDS:
        return True
    return tag not in BLOCK_TAGS and is_hidden(element)


_NOISE_TAG_SET = frozenset(NOISE_TAGS)
#: Noise elements that hold the page when libxml2 leaves them open: everything after an
#: unclosed ``<noscript>`` or ``<button>`` ends inside it (cleaneval's final-714, and the
#: menu buttons of several of today's publishing platforms).
_PAGE_HOLDERS = frozenset({"noscript", "button"})

#: A ``<noscript>`` or ``<button>`` holding more than this share of the body's text is the
#: page itself. Every other noscript of the development sets holds under 30 % of its page.
NOSCRIPT_PAGE_SHARE_DEFAULT = 0.5
#: Such elements with less text than this are never the page (and cost no count of the body's).
NOSCRIPT_PAGE_MIN_CHARS_DEFAULT = 500


def _holds_page(element: etree._Element) -> bool:
    """Whether a noscript or button holds most of the page's text (it is then not dropped)."""
    chars = text_chars(element)
    if chars < NOSCRIPT_PAGE_MIN_CHARS_DEFAULT:
        return False
    body = element.getroottree().getroot().find("body")
    return body is not None and chars > NOSCRIPT_PAGE_SHARE_DEFAULT * text_chars(body)


def is_inside(element: etree._Element, ancestor: etree._Element) -> bool:
    """Whether ``element`` is ``ancestor`` or lies in its subtree."""
    current: etree._Element | None = element
    while current is not None:
        if current is ancestor:
            return True
        current = current.getparent()
    return False


def drop_element(element: etree._Element) -> None:
    """Remove an element and its subtree but keep its tail text in the document."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            set_text(previous, (previous.tail or "") + element.tail, "tail")
        else:
            set_text(parent, (parent.text or "") + element.tail)
    parent.remove(element)

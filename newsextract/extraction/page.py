"""The page model: bytes decoded, parsed once, structured data read, noise removed, blocks cut.

Every extraction method takes a :class:`Page` and never re-parses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from newsextract.extraction.blocks import Block, split_blocks
from newsextract.extraction.encoding import decode_html
from newsextract.exceptions import NotHTMLError

#: Pages longer than this (in characters) are cut before parsing; a 20 MB page stays bounded.
MAX_HTML_CHARS_DEFAULT = 8_000_000

#: Elements whose whole subtree is never content.
NOISE_TAGS = (
    "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed",
    "canvas", "video", "audio", "map", "select", "textarea", "button", "input", "head",
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_BINARY_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class StructuredData:
    """What a page says about itself outside its visible text."""

    title: str = ""
    lang: str = ""
    canonical: str = ""
    meta: dict[str, str] = field(default_factory=dict)  # name/property/itemprop -> content
    json_ld: tuple[dict[str, Any], ...] = ()


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
) -> Page:
    """Build the page model; raise :class:`NotHTMLError` for bodies that are not a document."""
    if isinstance(body, bytes):
        decoded = decode_html(body, content_type)
        html, encoding = decoded.text, decoded.encoding
    else:
        html, encoding = body, "unicode"
    html = html[:max_chars]
    if _looks_binary(html):
        raise NotHTMLError("body is binary, not text")
    html = _XML_ILLEGAL.sub(" ", html)
    root = _parse(html)
    structured = read_structured_data(root)
    clean_tree(root)
    return Page(url, encoding, html, root, split_blocks(root), structured)


def _looks_binary(html: str) -> bool:
    sample = html[:4096]
    if not sample.strip():
        return False
    odd = sample.count("\ufffd") + len(_BINARY_CONTROL.findall(sample))
    return odd > 0.1 * len(sample)


_EMPTY_DOCUMENT = "<html><body></body></html>"
_HIDDEN = etree.XPath(
    "//*[@hidden or @aria-hidden='true' or contains(@style, 'none') or contains(@style, 'hidden')]"
)


def _parse(html: str) -> etree._Element:
    parser = etree.HTMLParser(remove_comments=True, remove_pis=True, no_network=True)
    try:
        root = etree.fromstring(html, parser) if html.strip() else None
    except (etree.ParserError, ValueError):
        root = None
    if root is None:
        root = etree.fromstring(_EMPTY_DOCUMENT, parser)
    if root.find("body") is None:
        etree.SubElement(root, "body")
    return root


def read_structured_data(root: etree._Element) -> StructuredData:
    """Title, language, canonical URL, meta tags and JSON-LD objects, read before cleaning."""
    meta: dict[str, str] = {}
    for element in root.iter("meta"):
        key = element.get("property") or element.get("name") or element.get("itemprop")
        content = element.get("content")
        if key and content and key.lower() not in meta:
            meta[key.lower()] = content.strip()
    title = next(("".join(el.itertext()).strip() for el in root.iter("title")), "")
    canonical = next(
        (el.get("href", "") for el in root.iter("link") if el.get("rel", "").lower() == "canonical"),
        "",
    )
    return StructuredData(
        title=title,
        lang=(root.get("lang") or meta.get("og:locale", "")).strip(),
        canonical=canonical.strip(),
        meta=meta,
        json_ld=tuple(_json_ld_objects(root)),
    )


def _json_ld_objects(root: etree._Element) -> Iterator[dict[str, Any]]:
    for script in root.iter("script"):
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


def clean_tree(root: etree._Element) -> None:
    """Remove elements that are never visible text, in place."""
    doomed = list(root.iter(*NOISE_TAGS))
    doomed += [el for el in _HIDDEN(root) if _is_hidden(el)]
    for element in doomed:
        drop_element(element)


def _is_hidden(element: etree._Element) -> bool:
    if element.tag in ("html", "body"):
        return False
    if element.get("hidden") is not None or element.get("aria-hidden") == "true":
        return True
    style = element.get("style")
    return bool(style and _HIDDEN_STYLE.search(style))


def drop_element(element: etree._Element) -> None:
    """Remove an element and its subtree but keep its tail text in the document."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)

"""What a response holds: HTML or not (by header *and* by sniffing), and the links of a page.

Servers lie in both directions: an article served as ``text/plain`` or with no
Content-Type is still HTML, and a PDF served as ``text/html`` is not. Bytes are decoded by
:func:`newsextract.extraction.pagemodel.encoding.decode_html`, never by Scrapy's TextResponse.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from lxml import etree

from newsextract.extraction.pagemodel.encoding import decode_html
from newsextract.spiders.urls import normalise_link

#: How many leading bytes are sniffed for HTML markup or a binary signature.
SNIFF_BYTES_DEFAULT = 2048
#: Share of control bytes in the sniffed prefix above which a body is binary (text has ~0).
MAX_CONTROL_SHARE_DEFAULT = 0.05

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
#: Types that say nothing reliable about the body: the body is sniffed instead.
VAGUE_TYPES = frozenset(
    {"", "text/plain", "application/octet-stream", "binary/octet-stream", "application/unknown"}
)
#: Leading bytes of formats that are never pages (images, PDF, archives, media, fonts).
BINARY_SIGNATURES = (
    *(b"%PDF", b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"PK\x03\x04", b"\x1f\x8b", b"RIFF"),
    *(b"\x00\x00\x00", b"ID3", b"OggS", b"wOFF", b"wOF2", b"7z\xbc\xaf", b"Rar!"),
    *(b"\xd0\xcf\x11\xe0", b"II*\x00", b"MM\x00*", b"\x00\x00\x01\x00"),
)
_HTML_MARKUP = re.compile(
    rb"<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<title[\s>]|<meta\s|<div[\s>]|<p[\s>]",
    re.I,
)
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def media_type(content_type: str | None) -> str:
    """The bare media type of a Content-Type header, lower case.

    >>> media_type("Text/HTML; charset=Shift_JIS")
    'text/html'
    """
    return (content_type or "").split(";", 1)[0].strip().lower()


def looks_binary(body: bytes) -> bool:
    """True for bodies that start like an image, PDF, archive or media file, or hold many
    control bytes (UTF-16 text is caught by its BOM first)."""
    head = body[:SNIFF_BYTES_DEFAULT]
    if head.startswith(_BOMS):
        return False
    if head.startswith(BINARY_SIGNATURES):
        return True
    return len(_CONTROL.findall(head)) > MAX_CONTROL_SHARE_DEFAULT * max(len(head), 1)


def is_html(content_type: str | None, body: bytes) -> bool:
    """Judge a response HTML by its declared type, then by its bytes.

    >>> is_html("text/plain", b"<!DOCTYPE html><html><p>x</p></html>")
    True
    >>> is_html("text/html", b"%PDF-1.7 ..."), is_html("image/png", b"<html>")
    (False, False)
    """
    declared = media_type(content_type)
    if declared not in HTML_TYPES and declared not in VAGUE_TYPES:
        return False
    if not body.strip() or looks_binary(body):
        return False
    if declared in HTML_TYPES:
        return True
    return _HTML_MARKUP.search(body[:SNIFF_BYTES_DEFAULT]) is not None


def extract_links(body: bytes, content_type: str | None, base_url: str) -> list[str]:
    """Absolute fetchable links of an HTML page (``<a>`` and ``<area>``), in page order,
    without fragments or repeats; ``<base href>`` is honoured."""
    text = decode_html(body, content_type).text
    if not text.strip():
        return []
    parser = etree.HTMLParser(remove_comments=True, no_network=True)
    try:
        root = etree.fromstring(text, parser)
    except (etree.ParserError, ValueError):
        return []
    if root is None:
        return []
    base = next((el.get("href") for el in root.iter("base") if el.get("href")), None)
    base_url = urljoin(base_url, base.strip()) if base else base_url
    seen: dict[str, None] = {}
    for element in root.iter("a", "area"):
        href = element.get("href")
        if not href:
            continue
        link = normalise_link(urljoin(base_url, href.strip()))
        if link is not None:
            seen.setdefault(link, None)
    return list(seen)

"""Sitemaps: sitemap indexes, URL sets, Google News sitemaps, and the ``Sitemap:`` lines
of robots.txt. Pure functions over bytes (gzip is undone by the spider)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urljoin

from lxml import etree

from newsextract.spiders.dates import parse_date
from newsextract.spiders.urls import normalise_link


@dataclass(frozen=True)
class SitemapEntry:
    """One ``<url>`` or ``<sitemap>``: where it is and when it last changed (if said)."""

    url: str
    modified: datetime | None = None


@dataclass(frozen=True)
class Sitemap:
    """A parsed sitemap document; ``kind`` is "index", "urlset" or "unknown"."""

    kind: str
    entries: tuple[SitemapEntry, ...]


def parse_xml(body: bytes) -> etree._Element | None:
    """Parse an XML document safely (no entities, no network), tolerating damage."""
    parser = etree.XMLParser(
        recover=True,
        resolve_entities=False,
        no_network=True,
        remove_comments=True,
        remove_pis=True,
    )
    try:
        root = etree.fromstring(body.lstrip(), parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    return root


def local_name(element: etree._Element) -> str:
    """A tag without its namespace, lower case ("" for comments and entities)."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


def children(element: etree._Element, name: str) -> Iterator[etree._Element]:
    return (child for child in element if local_name(child) == name)


def child_text(element: etree._Element, name: str) -> str:
    """The text of the first descendant called ``name`` (any namespace), stripped."""
    for child in element.iter():
        if child is not element and local_name(child) == name and child.text:
            return str(child.text).strip()
    return ""


def parse_sitemap(body: bytes, base_url: str = "") -> Sitemap:
    """Read a sitemap index or URL set. A Google News entry's ``publication_date`` wins
    over ``lastmod`` as its date, since a news crawl's ``since`` means publication."""
    root = parse_xml(body)
    if root is None:
        return Sitemap("unknown", ())
    kind = {"sitemapindex": "index", "urlset": "urlset"}.get(local_name(root), "unknown")
    item_name = "sitemap" if kind == "index" else "url"
    entries = []
    for element in children(root, item_name):
        url = normalise_link(urljoin(base_url, child_text(element, "loc")))
        if url is None or not child_text(element, "loc"):
            continue
        when = child_text(element, "publication_date") or child_text(element, "lastmod")
        entries.append(SitemapEntry(url, parse_date(when)))
    return Sitemap(kind, tuple(entries))


def sitemaps_from_robots(text: str, base_url: str = "") -> list[str]:
    """The ``Sitemap:`` URLs of a robots.txt, in order.

    >>> sitemaps_from_robots("User-agent: *\\nSitemap: /sitemap.xml\\n", "https://a.jp/")
    ['https://a.jp/sitemap.xml']
    """
    urls = []
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == "sitemap" and value.strip():
            url = normalise_link(urljoin(base_url, value.strip()))
            if url is not None:
                urls.append(url)
    return urls

"""News feeds: RSS 2.0, RSS 1.0 (RDF, common on Japanese sites) and Atom."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urljoin

from lxml import etree

from newsextract.spiders.dates import parse_date
from newsextract.spiders.sitemaps import child_text, local_name, parse_xml
from newsextract.spiders.urls import normalise_link

_RDF_ABOUT = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}about"


@dataclass(frozen=True)
class FeedEntry:
    """One feed item: its page, its title and the latest date the feed gives for it."""

    url: str
    title: str = ""
    modified: datetime | None = None


def parse_feed(body: bytes, base_url: str = "") -> tuple[FeedEntry, ...]:
    """The entries of an RSS 2.0, RSS 1.0 or Atom feed, in feed order."""
    root = parse_xml(body)
    if root is None:
        return ()
    entries = []
    for element in root.iter():
        name = local_name(element)
        if name == "item":
            link = _item_link(element)
        elif name == "entry":
            link = _atom_link(element)
        else:
            continue
        url = normalise_link(urljoin(base_url, link)) if link else None
        if url is not None:
            entries.append(FeedEntry(url, child_text(element, "title"), _latest_date(element)))
    return tuple(entries)


def _item_link(item: etree._Element) -> str:
    """RSS: ``<link>``, else a permalink ``<guid>``, else RSS 1.0's ``rdf:about``."""
    link = child_text(item, "link")
    if link:
        return link
    for guid in item.iter():
        if local_name(guid) == "guid" and guid.get("isPermaLink", "true") != "false":
            return str(guid.text or "").strip()
    return str(item.get(_RDF_ABOUT, ""))


def _atom_link(entry: etree._Element) -> str:
    for link in entry:
        if local_name(link) == "link" and link.get("rel", "alternate") == "alternate":
            return str(link.get("href", ""))
    return ""


def _latest_date(element: etree._Element) -> datetime | None:
    dates = [
        parse_date(child_text(element, name))
        for name in ("pubdate", "date", "published", "updated", "issued", "modified")
    ]
    known = [when for when in dates if when is not None]
    return max(known) if known else None

"""Scrapy items: a fetched page on its way through the pipeline, an article, a failure.

Article fields follow schema.org ``Article`` names, as Zyte's article item does. A field the
page did not give is ``null`` in the exported record, never ``""``: every Scrapy exporter
(the feeds, ``newsextract batch``) applies the fields' ``serializer``.

An item's repr names the page, never its content: Scrapy logs the repr of every dropped item,
and a page body of several megabytes in a log line helps nobody.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from newsextract.extraction.pagemodel.page import Page

if TYPE_CHECKING:
    from newsextract.extraction.record.article import Article


def null_if_empty(value: Any) -> Any:
    """A missing value as a record writes it: ``null``, not an empty string.

    >>> null_if_empty(""), null_if_empty("en")
    (None, 'en')
    """
    return None if value == "" else value


def nulls_if_empty(values: dict[str, Any]) -> dict[str, Any]:
    """:func:`null_if_empty` for each value of a nested record (``extraction``)."""
    return {key: null_if_empty(value) for key, value in values.items()}


#: The metadata of a record field the page may not give: written as ``null`` when empty.
OPTIONAL = {"serializer": null_if_empty}


#: Fields that hold a page's content, left out of an item's repr.
CONTENT_FIELDS = frozenset({"body", "page", "articleBody"})


def short_repr(item: object) -> str:
    """``PageItem(url='...', status=200, ..., body=<8388608 bytes>)``: the item without its
    content, whose size alone is shown."""
    parts = []
    for item_field in fields(item):  # type: ignore[arg-type]
        value = getattr(item, item_field.name)
        if item_field.name not in CONTENT_FIELDS:
            parts.append(f"{item_field.name}={value!r}")
        elif isinstance(value, bytes | str):
            unit = "bytes" if isinstance(value, bytes) else "characters"
            parts.append(f"{item_field.name}=<{len(value)} {unit}>")
    return f"{type(item).__name__}({', '.join(parts)})"


@dataclass
class PageItem:
    """A fetched HTML page, before extraction. Never exported: pipelines turn it into an
    :class:`ArticleItem` or drop it with a reason that becomes a failure record."""

    url: str
    body: bytes
    content_type: str
    status: int
    site: str  # the profile or spider's site name, e.g. "asahi.com"
    fetched_at: str  # ISO 8601, UTC
    language: str = ""  # the profile's language, a hint
    group: str = ""  # the page kind within the site (URL pattern), set by the grouping stage
    page: Page | None = field(default=None, repr=False, compare=False)  # parsed once, then shared

    __repr__ = short_repr


@dataclass
class ArticleItem:
    url: str = field(metadata=OPTIONAL)  # empty only for a saved page read without its URL
    canonicalUrl: str = field(metadata=OPTIONAL)
    headline: str = field(metadata=OPTIONAL)
    articleBody: str
    datePublished: str = field(metadata=OPTIONAL)
    datePublishedRaw: str = field(metadata=OPTIONAL)
    authors: list[str]
    inLanguage: str = field(metadata=OPTIONAL)
    site: str = field(metadata=OPTIONAL)
    fetchedAt: str = field(metadata=OPTIONAL)
    #: method, ruleVersion, confidence
    extraction: dict[str, Any] = field(
        default_factory=dict, metadata={"serializer": nulls_if_empty}
    )

    __repr__ = short_repr


def article_item(item: PageItem, article: Article) -> ArticleItem:
    """The record of an article, schema.org names, from the page it came from."""
    return ArticleItem(
        url=item.url,
        canonicalUrl=article.canonical_url,
        headline=article.headline,
        articleBody=article.body,
        datePublished=article.date_published,
        datePublishedRaw=article.date_published_raw,
        authors=list(article.authors),
        inLanguage=article.language or item.language,
        site=item.site,
        fetchedAt=item.fetched_at,
        extraction={
            "method": article.method,
            "ruleVersion": article.rule_version,
            "confidence": round(article.confidence, 4),
        },
    )


def record_fields(item: ArticleItem) -> dict[str, Any]:
    """The record as the feeds write it (each field's serializer applied), without Scrapy's
    exporters: the Python API gives records without importing Scrapy."""
    record = {}
    for item_field in fields(item):
        value = getattr(item, item_field.name)
        serializer = item_field.metadata.get("serializer")
        record[item_field.name] = serializer(value) if serializer else value
    return record


@dataclass
class FailureItem:
    """Why a fetched or scheduled URL did not become an article."""

    url: str
    stage: str  # "download", "http", "robots", "content-type", ...: see extensions.failures
    reason: str
    status: int | None = None
    site: str = ""
    fetchedAt: str = ""


@dataclass
class ListingItem:
    """A fetched page that is not an article: a listing page, a sitemap, a feed or a
    robots.txt read for its sitemaps. Written to the listings file, never exported."""

    url: str
    kind: str  # "listing", "sitemap", "feed", "robots"
    links: int  # links (or entries) the document held
    articleLinks: int  # of those, links to article pages
    site: str = ""
    fetchedAt: str = ""

"""Scrapy items: a fetched page on its way through the pipeline, an article, a failure.

Article fields follow schema.org ``Article`` names, as Zyte's article item does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from newsextract.extraction.page import Page


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


@dataclass
class ArticleItem:
    url: str
    canonicalUrl: str
    headline: str
    articleBody: str
    datePublished: str
    datePublishedRaw: str
    authors: list[str]
    inLanguage: str
    site: str
    fetchedAt: str
    extraction: dict[str, Any] = field(default_factory=dict)  # method, ruleVersion, confidence


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

"""The article record of a saved page, built as a crawl builds its records.

The record is built by the crawl's own record builder (:func:`newsextract.items.article_item`)
and serialised as the feeds serialise it (:func:`newsextract.items.record_fields`), so
``extract --json``, ``batch`` and ``batch --warc`` give the fields of a crawl's records,
without importing Scrapy.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from newsextract.extraction import Article
from newsextract.items import ArticleItem, PageItem, article_item, record_fields


def article_record(article: Article, url: str | None) -> dict[str, Any]:
    """The record a crawl would export for this article (a missing field is None)."""
    return record_fields(saved_page_item(article, url))


def saved_page_item(
    article: Article,
    url: str | None,
    site: str | None = None,
    language: str = "",
    fetched_at: str = "",
) -> ArticleItem:
    """The article item of a saved page, built as a crawl builds it. ``site`` is the host
    name of ``url`` unless given; ``fetched_at``: when the page was fetched, if known."""
    if site is None:
        site = (urlsplit(url).hostname or "") if url else ""
    page = PageItem(
        url=url or "",
        body=b"",  # the record builder reads the page's context, never its bytes
        content_type="",
        status=0,
        site=site,
        fetched_at=fetched_at,
        language=language,
    )
    return article_item(page, article)

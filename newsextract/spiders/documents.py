"""Callbacks for the documents that list articles: sitemaps (plain or gzip, indexes, Google
News), feeds (RSS 2.0, RSS 1.0, Atom) and robots.txt (for its ``Sitemap:`` lines).

A mixin of :class:`newsextract.spiders.base.NewsSpider`: entries older than ``since`` are
left out, entries that are articles of the crawl's site are requested, and every document
read becomes a listing record.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from datetime import datetime
from typing import Any, Protocol

from scrapy.http import Request, Response
from scrapy.utils.gz import gunzip

from newsextract.extensions.failures import first_url
from newsextract.spiders.dates import is_recent
from newsextract.spiders.feeds import parse_feed
from newsextract.spiders.ledger import CrawlLedger
from newsextract.spiders.sitemaps import parse_sitemap, sitemaps_from_robots

#: Largest decompressed sitemap accepted (the sitemap protocol's own limit is 50 MB).
MAX_SITEMAP_BYTES_DEFAULT = 50 * 1024 * 1024


def requested_url(response: Response) -> str:
    """The URL the crawl asked for (before redirects): the key of its open request."""
    return first_url(response.request) if response.request is not None else response.url


class _Spider(Protocol):
    """What the callbacks use of the spider they are mixed into."""

    since: datetime | None
    ledger: CrawlLedger

    def fits(self, url: str) -> bool: ...
    def in_scope(self, url: str) -> bool: ...
    def accepts_listed(self, url: str) -> bool: ...
    def article_request(self, url: str) -> Request | None: ...
    def document_request(self, url: str, callback: str) -> Request | None: ...
    def record_failure(self, url: str, stage: str, reason: str, status: int | None) -> None: ...
    def record_listing(self, response: Response, kind: str, links: int, articles: int) -> None: ...
    def count(self, key: str, amount: int = 1) -> None: ...
    def read_feed(self, response: Response, body: bytes, kind: str = "feed") -> Iterator[Any]: ...
    def read_sitemap(self, response: Response) -> Iterator[Any]: ...
    def listed_articles(self, urls: list[str]) -> list[str]: ...
    def listed_article_requests(self, urls: list[str]) -> Iterator[Request]: ...


class DocumentCallbacks:
    def parse_sitemap(self: _Spider, response: Response) -> Iterator[Any]:
        yield from self.read_sitemap(response)
        self.ledger.close(requested_url(response))

    def read_sitemap(self: _Spider, response: Response) -> Iterator[Any]:
        body = response.body
        if body[:2] == b"\x1f\x8b":
            try:
                body = gunzip(body, max_size=MAX_SITEMAP_BYTES_DEFAULT)
            except (OSError, EOFError, ValueError, struct.error) as error:
                reason = f"unreadable gzip sitemap: {type(error).__name__}: {error}"
                self.record_failure(response.url, "document", reason, response.status)
                return
        sitemap = parse_sitemap(body, response.url)
        if sitemap.kind == "unknown":  # some sites list a feed as their sitemap
            yield from self.read_feed(response, body, kind="sitemap")
            return
        recent = [entry for entry in sitemap.entries if is_recent(entry.modified, self.since)]
        self.count("newsextract/sitemaps/too_old", len(sitemap.entries) - len(recent))
        if sitemap.kind == "index":
            for entry in recent:
                request = self.document_request(entry.url, "parse_sitemap")
                if request is not None:
                    yield request
            self.record_listing(response, "sitemap", len(sitemap.entries), 0)
            return
        articles = self.listed_articles([entry.url for entry in recent])
        yield from self.listed_article_requests(articles)
        self.record_listing(response, "sitemap", len(sitemap.entries), len(articles))

    def parse_feed(self: _Spider, response: Response) -> Iterator[Any]:
        yield from self.read_feed(response, response.body)
        self.ledger.close(requested_url(response))

    def read_feed(
        self: _Spider, response: Response, body: bytes, kind: str = "feed"
    ) -> Iterator[Any]:
        entries = parse_feed(body, response.url)
        if not entries:
            self.record_failure(response.url, "document", f"not a readable {kind}", response.status)
            return
        recent = [entry for entry in entries if is_recent(entry.modified, self.since)]
        self.count("newsextract/feeds/too_old", len(entries) - len(recent))
        articles = self.listed_articles([entry.url for entry in recent])
        yield from self.listed_article_requests(articles)
        self.record_listing(response, kind, len(entries), len(articles))

    def parse_robots(self: _Spider, response: Response) -> Iterator[Any]:
        text = response.body.decode("utf-8", "replace")
        urls = sitemaps_from_robots(text, response.url)
        for url in urls:
            request = self.document_request(url, "parse_sitemap")
            if request is not None:
                yield request
        self.record_listing(response, "robots", len(urls), 0)
        self.ledger.close(requested_url(response))

    def listed_articles(self: _Spider, urls: list[str]) -> list[str]:
        """The sitemap or feed entries that are articles of this crawl's site."""
        fitting = [url for url in urls if self.fits(url)]
        articles = [url for url in fitting if self.in_scope(url) and self.accepts_listed(url)]
        self.count("newsextract/sitemaps/ignored", len(urls) - len(articles))
        return articles

    def listed_article_requests(self: _Spider, urls: list[str]) -> Iterator[Request]:
        for url in urls:
            request = self.article_request(url)
            if request is not None:
                yield request

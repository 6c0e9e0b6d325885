"""The machinery every newsextract spider shares.

A subclass says which URLs are articles (:meth:`NewsSpider.is_article`), which listing
pages to follow (:meth:`NewsSpider.is_followable`) and where to start; this class does the
rest: listing pages are read for links, sitemaps and feeds for entries (with the ``since``
filter), article pages become :class:`~newsextract.items.PageItem` with their raw bytes,
known articles are skipped before they are requested, and every fetched URL ends as an
article, a failure record or a listing record. Every request carries the same errback;
callbacks and errbacks are spider methods and meta holds plain values, so requests
serialise for ``JOBDIR``.
"""

from __future__ import annotations

import re
import struct
from collections.abc import AsyncIterator, Iterable, Iterator
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Self
from urllib.parse import urljoin

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.http import Request, Response
from scrapy.settings import BaseSettings
from scrapy.utils.gz import gunzip
from twisted.python.failure import Failure

from newsextract.extensions.failures import describe_failure, failure_recorded, first_url
from newsextract.extensions.jsonl import utc_now
from newsextract.extensions.listings import listing_fetched
from newsextract.items import FailureItem, ListingItem, PageItem
from newsextract.spiders.content import extract_links, is_html, looks_binary, media_type
from newsextract.spiders.dates import is_recent, parse_since
from newsextract.spiders.feeds import parse_feed
from newsextract.spiders.sitemaps import parse_sitemap, sitemaps_from_robots
from newsextract.spiders.urls import host_of, looks_like_page
from newsextract.state import StateStore, open_store

#: Priority of article requests over listing pages, so a crawl bounded by ``max_pages``
#: or stopped early has harvested what it found rather than only found more listings.
ARTICLE_PRIORITY_DEFAULT = 10
#: Largest decompressed sitemap accepted (the sitemap protocol's own limit is 50 MB).
MAX_SITEMAP_BYTES_DEFAULT = 50 * 1024 * 1024
#: The ``-a sitemap=`` value that means "the sitemaps robots.txt lists".
ROBOTS_SITEMAPS = "robots"


def split_arg(value: str | Iterable[str] | None) -> list[str]:
    """A comma-separated spider argument (or a list, from code) as a clean list.

    >>> split_arg("https://a.jp/, https://b.jp/"), split_arg(None)
    (['https://a.jp/', 'https://b.jp/'], [])
    """
    if value is None:
        return []
    parts = value.split(",") if isinstance(value, str) else list(value)
    return [part.strip() for part in parts if part.strip()]


def user_agent(contact: str) -> str:
    """The User-Agent: the project, its version and how to reach the operator."""
    try:
        release = version("newsextract")
    except PackageNotFoundError:
        release = "dev"
    return f"newsextract/{release} (+{contact})" if contact else f"newsextract/{release}"


class NewsSpider(scrapy.Spider):
    """Base spider; see the module docstring. Arguments every spider accepts:
    ``since`` (YYYY-MM-DD), ``max_pages`` (int), ``sitemap`` and ``feed`` (URLs, comma-separated;
    ``sitemap=robots`` reads robots.txt), ``deny`` (regex)."""

    site_name: str = ""  # written into every record, e.g. "asahi.com"
    language: str = ""  # a hint for extraction, e.g. "ja"

    def __init__(
        self,
        *args: Any,
        since: str | None = None,
        max_pages: str | int | None = None,
        sitemap: str | None = None,
        feed: str | None = None,
        deny: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.since: datetime | None = parse_since(since) if since else None
        self.max_pages = int(max_pages) if max_pages else None
        self.sitemap_urls: list[str] = split_arg(sitemap)
        self.feed_urls: list[str] = split_arg(feed)
        self.deny_patterns: list[re.Pattern[str]] = [re.compile(deny)] if deny else []
        self.pages_scheduled = 0
        self.store: StateStore | None = None

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        # The contact is a setting of its own so that `-s NEWSEXTRACT_CONTACT=...` is enough;
        # an explicit USER_AGENT (any priority above the project's) still wins.
        agent_priority = settings.getpriority("USER_AGENT") or 0
        if agent_priority < (settings.getpriority("NEWSEXTRACT_CONTACT") or 0):
            contact = settings.get("NEWSEXTRACT_CONTACT", "")
            settings.set("USER_AGENT", user_agent(contact), "spider")

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.store = open_store(crawler.settings)
        crawler.signals.connect(spider.close_store, signal=signals.spider_closed)
        return spider

    def close_store(self) -> None:
        if self.store is not None:
            self.store.close()

    # -- what a subclass decides ---------------------------------------------------------

    def is_article(self, url: str) -> bool:
        return False

    def is_followable(self, url: str) -> bool:
        """Whether a non-article link of the site is a listing page worth fetching."""
        return looks_like_page(url)

    def accepts_listed(self, url: str) -> bool:
        """Whether a sitemap or feed entry is an article to fetch."""
        return self.is_article(url)

    def is_denied(self, url: str) -> bool:
        return any(pattern.search(url) for pattern in self.deny_patterns)

    def in_scope(self, url: str) -> bool:
        host = host_of(url)
        domains: list[str] = getattr(self, "allowed_domains", None) or []
        return not domains or any(host == d or host.endswith("." + d) for d in domains)

    def start_pages(self) -> list[str]:
        """The pages a crawl starts from (front page, sections)."""
        return list(getattr(self, "start_urls", []))

    # -- requests --------------------------------------------------------------------------

    async def start(self) -> AsyncIterator[Any]:
        for request in self.start_requests_all():
            yield request

    def start_requests_all(self) -> Iterator[Request]:
        for url in self.start_pages():
            request = self.page_request(url)
            if request is not None:
                yield request
        for url in self.sitemap_urls:
            yield from self.sitemap_source_requests(url)
        for url in self.feed_urls:
            yield self.document_request(url, self.parse_feed)

    def sitemap_source_requests(self, url: str) -> Iterator[Request]:
        if url == ROBOTS_SITEMAPS:
            for root in dict.fromkeys(urljoin(page, "/robots.txt") for page in self.start_pages()):
                yield self.document_request(root, self.parse_robots)
        elif url.rstrip("/").endswith("/robots.txt"):
            yield self.document_request(url, self.parse_robots)
        else:
            yield self.document_request(url, self.parse_sitemap)

    def page_request(self, url: str) -> Request | None:
        """A request for an article or a listing page, judged by its URL."""
        if self.is_article(url):
            return self.article_request(url)
        return self.listing_request(url)

    def article_request(self, url: str, meta: dict[str, Any] | None = None) -> Request | None:
        if self.is_denied(url) or self.is_known(url) or not self.take_page_budget():
            return None
        return Request(
            url,
            callback=self.parse_article,
            errback=self.on_error,
            meta=meta or {},
            priority=ARTICLE_PRIORITY_DEFAULT,
        )

    def listing_request(self, url: str) -> Request | None:
        if self.is_denied(url) or not self.take_page_budget():
            return None
        return Request(url, callback=self.parse_listing, errback=self.on_error)

    def document_request(self, url: str, callback: Any) -> Request:
        """Sitemaps, feeds and robots.txt: always fetched, never counted against max_pages."""
        return Request(url, callback=callback, errback=self.on_error)

    def is_known(self, url: str) -> bool:
        if self.store is None or not self.store.is_harvested(url):
            return False
        self.count("newsextract/state/skipped_known")
        return True

    def take_page_budget(self) -> bool:
        if self.max_pages is not None and self.pages_scheduled >= self.max_pages:
            self.count("newsextract/pages/over_max_pages")
            return False
        self.pages_scheduled += 1
        return True

    # -- callbacks -------------------------------------------------------------------------

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        """Callback for a page of unknown kind (a start URL): judged by its URL."""
        if self.is_article(response.url):
            return self.parse_article(response)
        return self.parse_listing(response)

    def parse_article(self, response: Response) -> Iterator[Any]:
        if not self.check_html(response):
            return
        if self.redirected_to_known(response):
            return
        yield self.page_item(response)

    def parse_listing(self, response: Response) -> Iterator[Any]:
        if not self.check_html(response):
            return
        links = extract_links(response.body, self.content_type(response), response.url)
        articles = 0
        for url in links:
            if not self.in_scope(url) or self.is_denied(url):
                continue
            if self.is_article(url):
                articles += 1
                request = self.article_request(url)
            elif self.is_followable(url):
                request = self.listing_request(url)
            else:
                continue
            if request is not None:
                yield request
        self.record_listing(response, "listing", len(links), articles)

    def parse_sitemap(self, response: Response) -> Iterator[Any]:
        body = response.body
        if body[:2] == b"\x1f\x8b":
            try:
                body = gunzip(body, max_size=MAX_SITEMAP_BYTES_DEFAULT)
            except (OSError, EOFError, ValueError, struct.error) as error:
                reason = f"unreadable gzip sitemap: {type(error).__name__}: {error}"
                self.record_failure(response.url, "document", reason, response.status)
                return
        sitemap = parse_sitemap(body, response.url)
        if sitemap.kind == "unknown":
            yield from self.parse_feed(response, body=body, kind="sitemap")
            return
        recent = [entry for entry in sitemap.entries if is_recent(entry.modified, self.since)]
        self.count("newsextract/sitemaps/too_old", len(sitemap.entries) - len(recent))
        if sitemap.kind == "index":
            for entry in recent:
                yield self.document_request(entry.url, self.parse_sitemap)
            self.record_listing(response, "sitemap", len(sitemap.entries), 0)
            return
        articles = self.listed_articles([entry.url for entry in recent])
        yield from self.listed_article_requests(articles)
        self.record_listing(response, "sitemap", len(sitemap.entries), len(articles))

    def parse_feed(
        self, response: Response, body: bytes | None = None, kind: str = "feed"
    ) -> Iterator[Any]:
        entries = parse_feed(response.body if body is None else body, response.url)
        if not entries:
            self.record_failure(response.url, "document", f"not a readable {kind}", 200)
            return
        recent = [entry for entry in entries if is_recent(entry.modified, self.since)]
        self.count("newsextract/feeds/too_old", len(entries) - len(recent))
        articles = self.listed_articles([entry.url for entry in recent])
        yield from self.listed_article_requests(articles)
        self.record_listing(response, kind, len(entries), len(articles))

    def parse_robots(self, response: Response) -> Iterator[Any]:
        text = response.body.decode("utf-8", "replace")
        urls = sitemaps_from_robots(text, response.url)
        for url in urls:
            yield self.document_request(url, self.parse_sitemap)
        self.record_listing(response, "robots", len(urls), 0)

    def listed_articles(self, urls: list[str]) -> list[str]:
        """The sitemap or feed entries that are articles of this crawl's site."""
        articles = [url for url in urls if self.in_scope(url) and self.accepts_listed(url)]
        self.count("newsextract/sitemaps/ignored", len(urls) - len(articles))
        return articles

    def listed_article_requests(self, urls: list[str]) -> Iterator[Request]:
        for url in urls:
            request = self.article_request(url)
            if request is not None:
                yield request

    def on_error(self, failure: Failure) -> Iterator[Any]:
        """The errback of every request: the failure becomes a record."""
        reason = describe_failure(failure)
        request: Request | None = getattr(failure, "request", None)
        url = first_url(request) if request is not None else ""
        self.record_failure(url, reason.stage, reason.reason, reason.status)
        return iter(())

    # -- records ---------------------------------------------------------------------------

    def check_html(self, response: Response) -> bool:
        content_type = self.content_type(response)
        if is_html(content_type, response.body):
            return True
        declared = media_type(content_type) or "no Content-Type"
        why = "binary body" if looks_binary(response.body) else "not HTML"
        reason = f"not an HTML page ({declared}, {why})"
        self.record_failure(response.url, "content-type", reason, response.status)
        return False

    def redirected_to_known(self, response: Response) -> bool:
        if not response.meta.get("redirect_urls") or not self.is_known(response.url):
            return False
        reason = f"redirects to {response.url}, harvested before"
        requested = first_url(response.request) if response.request else response.url
        self.record_failure(requested, "duplicate", reason, response.status)
        return True

    def page_item(self, response: Response) -> PageItem:
        return PageItem(
            url=response.url,
            body=response.body,
            content_type=self.content_type(response),
            status=response.status,
            site=self.site_name,
            fetched_at=utc_now(),
            language=self.language,
        )

    @staticmethod
    def content_type(response: Response) -> str:
        value = response.headers.get(b"Content-Type")
        return value.decode("latin-1") if value else ""

    def record_failure(self, url: str, stage: str, reason: str, status: int | None) -> None:
        failure = FailureItem(url, stage, reason, status, self.site_name, utc_now())
        self.logger.info("failure: %s [%s] %s", url, stage, reason)
        self.crawler.signals.send_catch_log(signal=failure_recorded, failure=failure)

    def record_listing(self, response: Response, kind: str, links: int, articles: int) -> None:
        listing = ListingItem(response.url, kind, links, articles, self.site_name, utc_now())
        self.crawler.signals.send_catch_log(signal=listing_fetched, listing=listing)

    def count(self, key: str, amount: int = 1) -> None:
        if amount and self.crawler.stats is not None:
            self.crawler.stats.inc_value(key, amount)

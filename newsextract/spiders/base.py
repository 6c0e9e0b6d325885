"""The machinery every newsextract spider shares.

A subclass says which URLs are articles (:meth:`NewsSpider.is_article`), which listing
pages to follow (:meth:`NewsSpider.is_followable`) and where to start; this class does the
rest: listing pages are read for links, sitemaps and feeds for entries (with the ``since``
filter), article pages become :class:`~newsextract.items.PageItem` with their raw bytes,
known articles are skipped before they are requested, and every fetched URL ends as an
article, a failure record or a listing record. Every request carries the same errback;
callbacks and errbacks are spider methods and meta holds plain values, so requests
serialise for ``JOBDIR``; and every request stays open in the crawl's ledger
(:mod:`newsextract.spiders.ledger`) until it ends, so a killed crawl loses nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from datetime import datetime
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Self
from urllib.parse import urljoin

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.http import Request, Response
from scrapy.settings import BaseSettings
from twisted.python.failure import Failure

from newsextract.extensions.failures import describe_failure, failure_recorded, first_url
from newsextract.extensions.feeds import article_stored
from newsextract.extensions.jsonl import utc_now
from newsextract.extensions.listings import listing_fetched
from newsextract.extensions.outcome import stop_crawl
from newsextract.items import FailureItem, ListingItem, PageItem
from newsextract.sharedmode.connection import redis_url
from newsextract.sharedmode.frontier import SharedFrontier, SharedLedger
from newsextract.sites.patterns import UrlPattern
from newsextract.spiders.arguments import (
    MAX_URL_LENGTH_DEFAULT,
    http_urls,
    parsed,
    unknown_arguments,
    url_pattern,
    whole_number,
)
from newsextract.spiders.content import extract_links, is_html, looks_binary, media_type
from newsextract.spiders.dates import parse_since
from newsextract.spiders.documents import DocumentCallbacks, requested_url
from newsextract.spiders.ledger import CrawlLedger
from newsextract.spiders.urls import host_of, looks_like_page
from newsextract.state import PendingRequest, open_store

#: Priority of article requests over listing pages, so a crawl bounded by ``max_pages``
#: or stopped early has harvested what it found rather than only found more listings.
ARTICLE_PRIORITY_DEFAULT = 10
#: Priority of listings, sitemaps and feeds in shared mode: above articles. The queue is
#: in Redis and outlives a stop, so nothing found is lost, and a wide frontier keeps every
#: worker busy: article-first would leave all workers but one idle whenever the queue holds
#: only the next page of a listing chain.
SHARED_LISTING_PRIORITY = ARTICLE_PRIORITY_DEFAULT + 1
#: The ``-a sitemap=`` value that means "the sitemaps robots.txt lists".
ROBOTS_SITEMAPS = "robots"
#: The meta key of a request's number (an id-range crawl's id), kept across a resume.
VALUE_META = "newsextract_value"
#: Callbacks whose requests stay open in the ledger until their item is exported or dropped.
ITEM_CALLBACKS = frozenset({"parse_article", "parse_id"})


def user_agent(contact: str) -> str:
    """The User-Agent: the project, its version and how to reach the operator."""
    try:
        release = version("newsextract")
    except PackageNotFoundError:
        release = "dev"
    return f"newsextract/{release} (+{contact})" if contact else f"newsextract/{release}"


class NewsSpider(DocumentCallbacks, scrapy.Spider):
    """Base spider; see the module docstring. Arguments every spider accepts: ``since``
    (YYYY-MM-DD), ``max_pages`` (article pages to request), ``sitemap`` and ``feed`` (URLs,
    comma-separated; ``sitemap=robots`` reads robots.txt), ``deny`` (regex). A bad one raises
    :class:`~newsextract.spiders.arguments.SpiderArgumentError` naming it."""

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
        self.since: datetime | None = parsed("since", since, parse_since) if since else None
        self.max_pages = whole_number("max_pages", max_pages)
        self.sitemap_urls: list[str] = http_urls("sitemap", sitemap, (ROBOTS_SITEMAPS,))
        self.feed_urls: list[str] = http_urls("feed", feed)
        deny_pattern = url_pattern("deny", deny)
        self.deny_patterns: list[UrlPattern] = [deny_pattern] if deny_pattern else []
        self.max_url_length = MAX_URL_LENGTH_DEFAULT
        self.articles_scheduled = 0
        self.ledger = CrawlLedger(self.name, None)
        self.frontier: SharedFrontier | None = None  # shared mode: the queue in Redis
        self.listing_priority = 0
        self.jobdir = ""
        self._methods: dict[str, Callable[..., Any]] = {}

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
    def check_arguments(cls, arguments: Mapping[str, Any]) -> None:
        """Raise SpiderArgumentError for a bad argument, before the crawl starts (the
        project's crawl command calls this). ``__init__`` reads every argument and has no
        side effects (warnings wait for :meth:`from_crawler`), so building a spider is the
        check."""
        cls(**arguments)

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        for warning in [*unknown_arguments(cls, kwargs), *spider.argument_warnings()]:
            spider.logger.warning(warning)
        # A longer request would be dropped unseen by Scrapy's UrlLengthMiddleware.
        spider.max_url_length = crawler.settings.getint("URLLENGTH_LIMIT") or spider.max_url_length
        store = open_store(crawler.settings, on_error=partial(stop_crawl, crawler))
        if redis_url(crawler.settings) is None:
            spider.ledger = CrawlLedger(spider.crawl_key(), store)
        else:
            crawl = spider.crawl_key()
            frontier = SharedFrontier.from_settings(crawler.settings, spider.name, crawl)
            spider.frontier = frontier
            spider.ledger = SharedLedger(crawl, store, frontier)
            spider.listing_priority = SHARED_LISTING_PRIORITY
        spider.jobdir = crawler.settings.get("JOBDIR") or ""
        connect = crawler.signals.connect
        connect(spider.close_ledger, signal=signals.spider_closed)
        connect(spider.follow_exports, signal=signals.spider_opened)
        connect(spider.item_done, signal=signals.item_dropped)
        connect(spider.item_done, signal=signals.item_error)
        connect(spider.request_dropped, signal=signals.request_dropped)
        connect(spider.callback_failed, signal=signals.spider_error)
        return spider

    def crawl_key(self) -> str:
        """What identifies this crawl across runs: the spider and where it starts."""
        sources = [*self.start_pages(), *self.sitemap_urls, *self.feed_urls]
        return " ".join([self.name, *sources])

    def close_ledger(self, reason: str = "finished") -> None:
        # Scrapy writes a JOBDIR queue to disk only when it stops cleanly (Ctrl-C once, a
        # CLOSESPIDER limit); after SIGKILL it is lost and the ledger gives the requests back.
        if self.jobdir and reason != "finished":
            self.ledger.paused()
        self.ledger.flush()
        if self.ledger.store is not None:
            self.ledger.store.close()

    def follow_exports(self) -> None:
        """Close an exported article's request once a feed holds it and the harvest stage
        has recorded it: receivers of a signal run in the order they connected, and the
        spider, made before the extensions and the pipelines, would otherwise connect first.
        A kill between the two then leaves the request open and harvested, which a re-run
        skips. An article no feed holds keeps its request open for the next run."""
        assert self.crawler is not None
        self.crawler.signals.connect(self.item_exported, signal=article_stored)

    def item_done(self, item: Any, **kwargs: Any) -> None:
        """An article dropped: its request is no longer open."""
        url = getattr(item, "url", None)
        if isinstance(url, str):
            self.ledger.close(url)

    def item_exported(self, item: Any, **kwargs: Any) -> None:
        """An article exported (and recorded as harvested): its request is no longer open."""
        url = getattr(item, "url", None)
        if isinstance(url, str):
            self.ledger.close_exported(url)

    def callback_failed(self, response: Response | None = None, **kwargs: Any) -> None:
        """A callback crashed (the failure log has a record): asking again would not help."""
        if response is not None:  # None: the start requests failed, no request to close
            self.ledger.close(requested_url(response))

    def request_dropped(self, request: Request, **kwargs: Any) -> None:
        # The duplicate filter knew the URL: a redirect to a page already fetched, or (after
        # a resume) a page an earlier run fetched. Either way nothing stays open.
        self.ledger.close(first_url(request))

    # -- what a subclass decides ---------------------------------------------------------

    def argument_warnings(self) -> list[str]:
        """Arguments that are allowed but probably not what the user meant."""
        return []

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

    def fits(self, url: str) -> bool:
        """Whether a URL is short enough to be matched and requested (``URLLENGTH_LIMIT``):
        no pattern is run on a longer one, and Scrapy would drop its request unseen."""
        if len(url) <= self.max_url_length:
            return True
        self.count("newsextract/links/too_long")
        return False

    def in_scope(self, url: str) -> bool:
        host = host_of(url)
        domains: list[str] = getattr(self, "allowed_domains", None) or []
        return not domains or any(host == d or host.endswith("." + d) for d in domains)

    def start_pages(self) -> list[str]:
        """The pages a crawl starts from (front page, sections)."""
        return list(getattr(self, "start_urls", []))

    # -- requests --------------------------------------------------------------------------

    async def start(self) -> AsyncIterator[Any]:
        for request in self.recovered_requests():
            yield request
        if self.frontier is None:
            for request in self.start_requests_all():
                yield request
            return
        # Shared mode: one worker seeds the run; its start requests are all opened in the
        # ledger at once, so that a worker killed while seeding leaves none unrecorded.
        if not self.frontier.take_seeding():
            self.logger.info("another worker seeded this crawl: taking from the shared queue")
            return
        for request in list(self.start_requests_all()):
            yield request

    def recovered_requests(self) -> Iterator[Request]:
        """Requests an earlier run left open (killed, or stopped before its queue emptied)."""
        for pending in self.ledger.recover(self):
            if pending.callback in ITEM_CALLBACKS and self.ledger.is_harvested(pending.url):
                self.ledger.close(pending.url)
                continue
            self.count("newsextract/state/recovered")
            yield self.make_request(pending, dont_filter=True)

    def start_requests_all(self) -> Iterator[Request]:
        for url in self.start_pages():
            request = self.page_request(url)
            if request is not None:
                yield request
        for url in self.sitemap_urls:
            yield from self.sitemap_source_requests(url)
        for url in self.feed_urls:
            yield from self.optional(self.document_request(url, "parse_feed"))

    def sitemap_source_requests(self, url: str) -> Iterator[Request]:
        if url == ROBOTS_SITEMAPS:
            for root in dict.fromkeys(urljoin(page, "/robots.txt") for page in self.start_pages()):
                yield from self.optional(self.document_request(root, "parse_robots"))
        elif url.rstrip("/").endswith("/robots.txt"):
            yield from self.optional(self.document_request(url, "parse_robots"))
        else:
            yield from self.optional(self.document_request(url, "parse_sitemap"))

    @staticmethod
    def optional(request: Request | None) -> Iterator[Request]:
        if request is not None:
            yield request

    def page_request(self, url: str) -> Request | None:
        """A request for a start page: an article or a listing page, judged by its URL."""
        if not self.fits(url):
            return None
        if self.is_article(url):
            return self.article_request(url)
        if self.is_denied(url) or self.budget_spent():
            return None
        return self.schedule(PendingRequest(url, "parse", "on_error"))

    def article_request(self, url: str) -> Request | None:
        if not self.fits(url) or self.is_denied(url) or self.ledger.asked(url):
            return None
        if self.is_known(url):
            self.ledger.skip(url)
            return None
        if not self.article_budget_left():
            return None
        request = PendingRequest(url, "parse_article", "on_error")
        return self.schedule_article(request)

    def listing_request(self, url: str) -> Request | None:
        if not self.fits(url) or self.is_denied(url) or self.budget_spent():
            return None
        return self.schedule(PendingRequest(url, "parse_listing", "on_error"))

    def document_request(self, url: str, callback: str) -> Request | None:
        """Sitemaps, feeds and robots.txt: not counted against max_pages."""
        if not self.fits(url) or self.budget_spent():
            return None
        return self.schedule(PendingRequest(url, callback, "on_error"))

    def schedule(self, pending: PendingRequest, priority: int = 0) -> Request | None:
        """Claim the URL and open the request in the ledger (one step in shared mode: a
        worker killed in between would leave a URL claimed that nobody requests), then build
        it. None: the crawl asked for it already."""
        if not self.ledger.take(pending):
            return None
        return self.make_request(pending, priority=priority)

    def schedule_article(self, pending: PendingRequest) -> Request | None:
        """:meth:`schedule` for an article, counted against ``max_pages``."""
        request = self.schedule(pending, priority=ARTICLE_PRIORITY_DEFAULT)
        if request is not None:
            self.articles_scheduled += 1
        return request

    def make_request(
        self, pending: PendingRequest, priority: int = 0, dont_filter: bool = False
    ) -> Request:
        meta = {} if pending.value is None else {VALUE_META: pending.value}
        if pending.callback in ITEM_CALLBACKS:
            priority = max(priority, ARTICLE_PRIORITY_DEFAULT)
        else:
            priority = max(priority, self.listing_priority)
        return Request(
            pending.url,
            callback=self.method(pending.callback),
            errback=self.method(pending.errback),
            meta=meta,
            priority=priority,
            dont_filter=dont_filter,
        )

    def method(self, name: str) -> Callable[..., Any]:
        """The bound method ``name``, one object for every request: Scrapy remembers what it
        learned of a callback by the object, weakly, so a bound method made afresh for each
        request had its source read and parsed again for every response."""
        bound = self._methods.get(name)
        if bound is None:
            bound = self._methods[name] = getattr(self, name)
        return bound

    def is_known(self, url: str) -> bool:
        if not self.ledger.is_harvested(url):
            return False
        self.count("newsextract/state/skipped_known")
        return True

    def budget_spent(self) -> bool:
        """``max_pages`` article requests made: nothing more is worth finding."""
        return self.max_pages is not None and self.articles_scheduled >= self.max_pages

    def article_budget_left(self) -> bool:
        if self.budget_spent():
            self.count("newsextract/pages/over_max_pages")
            return False
        return True

    # -- callbacks -------------------------------------------------------------------------

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        """Callback for a page of unknown kind (a start URL): judged by its URL."""
        if self.is_article(response.url):
            return self.parse_article(response)
        return self.parse_listing(response)

    def parse_article(self, response: Response) -> Iterator[Any]:
        requested = requested_url(response)
        if not self.check_html(response) or self.harvested_meanwhile(response):
            self.ledger.close(requested)
            return
        chain = list(response.meta.get("redirect_urls") or [])
        if chain:
            self.ledger.redirected(chain, PendingRequest(response.url, "parse_article", "on_error"))
        yield self.page_item(response)

    def parse_listing(self, response: Response) -> Iterator[Any]:
        yield from self.read_listing(response)
        self.ledger.close(requested_url(response))

    def read_listing(self, response: Response) -> Iterator[Any]:
        if not self.check_html(response):
            return
        links = extract_links(response.body, self.content_type(response), response.url)
        articles = 0
        for url in links:
            if not self.fits(url) or not self.in_scope(url) or self.is_denied(url):
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

    def on_error(self, failure: Failure) -> Iterator[Any]:
        """The errback of every request: the failure becomes a record."""
        reason = describe_failure(failure)
        request: Request | None = getattr(failure, "request", None)
        url = first_url(request) if request is not None else ""
        self.record_failure(url, reason.stage, reason.reason, reason.status)
        self.ledger.close(url)
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

    def harvested_meanwhile(self, response: Response) -> bool:
        """An article page whose URL is harvested already: reached through a redirect, or
        queued twice (a resumed crawl's own queue and its recovered requests)."""
        if not self.ledger.is_harvested(response.url):
            return False
        if response.url == requested_url(response):
            self.count("newsextract/state/skipped_known_after_fetch")
            return True
        reason = f"redirects to {response.url}, harvested before"
        self.record_failure(requested_url(response), "duplicate", reason, response.status)
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

"""The failure log: every fetched or scheduled URL that did not become an article.

Sources, so that nothing is dropped silently:

- the spiders' errback (:func:`describe_failure`): download errors, HTTP errors,
  robots.txt, redirect limits, off-site redirects, size limits;
- the spiders' own verdicts, sent as :data:`failure_recorded` (non-HTML responses);
- ``item_dropped`` (a pipeline's ``DropItem``; its ``stage`` attribute names the stage),
  ``item_error`` (a pipeline crashed) and ``spider_error`` (a callback crashed);
- ``request_dropped`` for a redirect the duplicate filter refused (a redirect loop);
- the feed watch (:mod:`newsextract.extensions.feeds`) for an article no feed could write.

Every handler copes with a failure that carries no response (DNS errors, timeouts, an error
in the spider's start requests): the record then names the request's URL. An error in the
start requests also stops the crawl (:func:`~newsextract.extensions.outcome.stop_crawl`):
a crawl that silently skipped its sources must not pass for a complete one.

Each record is counted in stats (``newsextract/failures/<stage>``) and, when the setting
``NEWSEXTRACT_FAILURES`` names a file, written to it as a JSON line (appended, flushed);
by default ``<NEWSEXTRACT_DATA_DIR>/failures/<spider>.jsonl``, ``none`` for the log only.
Its placeholders are checked before the crawl starts (see :mod:`newsextract.extensions.jsonl`).
The log also counts the article records scraped (``newsextract/articles``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.statscollectors import StatsCollector
from twisted.internet.error import ConnectError, DNSLookupError, TimeoutError
from twisted.python.failure import Failure

from newsextract.extensions.jsonl import SpiderRecordLog, utc_now
from newsextract.extensions.outcome import FIRST_DOWNLOAD_STAT, stop_crawl
from newsextract.items import ArticleItem, FailureItem

#: Sent by spiders for a failure only they can see: ``failure=FailureItem``.
failure_recorded = object()

#: Stage names a failure record can carry.
STAGES = (
    "download",  # DNS, connection, timeout, truncated body
    "http",  # an HTTP error status after retries
    "robots",  # forbidden by robots.txt
    "redirect",  # too many redirects, or a redirect loop
    "offsite",  # redirected off the crawl's site
    "size-limit",  # body larger than DOWNLOAD_MAXSIZE
    "content-type",  # not an HTML page (declared type or sniffed bytes)
    "decode",  # the bytes could not be read as a document
    "too-complex",  # more elements or blocks than a page may have (an element bomb)
    "extraction",  # no main text found
    "duplicate",  # the same text was harvested under another URL
    "export",  # no feed could write the article
    "state",  # the state store in Redis stayed away: a later run repeats the page
    "document",  # a sitemap or feed that could not be read
    "pipeline",  # dropped by a pipeline that names no stage
    "pipeline-error",  # a pipeline raised an unexpected error
    "spider",  # a spider callback raised an unexpected error
)


@dataclass(frozen=True)
class FailureReason:
    stage: str
    reason: str
    status: int | None = None


#: Request meta key set by :class:`FailureLog` when a body grew past the request's
#: ``DOWNLOAD_MAXSIZE``: the value is the limit. Scrapy's HTTP/1.1 handler cuts such a body
#: (one without a Content-Length) by cancelling the download, and the errback then sees a
#: bare ``DownloadCancelledError`` with no words at all.
SIZE_LIMIT_META = "newsextract_size_limit"


def describe_failure(failure: Failure) -> FailureReason:
    """Name the stage and reason of a request's failure, as an errback receives it."""
    error = failure.value
    if isinstance(error, HttpError):
        status = error.response.status
        return FailureReason("http", f"HTTP {status}", status)
    if isinstance(error, IgnoreRequest):
        return _describe_ignored(str(error))
    if isinstance(error, DownloadCancelledError) and "max size" in str(error):
        return FailureReason("size-limit", str(error))
    request: Request | None = getattr(failure, "request", None)
    limit = request.meta.get(SIZE_LIMIT_META) if request is not None else None
    if isinstance(error, DownloadCancelledError) and limit:
        return FailureReason(
            "size-limit",
            f"body larger than DOWNLOAD_MAXSIZE ({limit} bytes), with no Content-Length: "
            "the download was cut off",
        )
    if isinstance(error, CannotResolveHostError | DNSLookupError):
        return FailureReason("download", _say("DNS lookup failed", error))
    if isinstance(error, DownloadTimeoutError | TimeoutError):
        return FailureReason("download", _say("timeout", error))
    if isinstance(error, DownloadConnectionRefusedError | ConnectError):
        return FailureReason("download", _say("connection failed", error))
    if isinstance(error, DownloadFailedError | ResponseDataLossError | DownloadCancelledError):
        return FailureReason("download", f"{type(error).__name__}: {error}")
    return FailureReason("download", f"{type(error).__name__}: {error}")


def _say(what: str, error: BaseException) -> str:
    """``what`` and the error's own words, without saying it twice.

    >>> _say("timeout", ValueError("took longer than 2 s")), _say("Timeout", ValueError("timeout"))
    ('timeout: took longer than 2 s', 'timeout')
    """
    text = str(error).strip()
    if not text:
        return what
    return text if what.lower() in text.lower() else f"{what}: {text}"


def _describe_ignored(message: str) -> FailureReason:
    lowered = message.lower()
    if "robots.txt" in lowered:
        return FailureReason("robots", message)
    if "redirect" in lowered:
        return FailureReason("redirect", message)
    if "max size" in lowered or "download_maxsize" in lowered:
        return FailureReason("size-limit", message)
    if "offsite" in lowered or "domain" in lowered:
        return FailureReason("offsite", message)
    return FailureReason("download", f"ignored: {message}")


def first_url(request: Request) -> str:
    """The URL the crawl asked for, before any redirect."""
    chain = request.meta.get("redirect_urls") or [request.url]
    return str(chain[0])


#: Where failure records go when ``NEWSEXTRACT_FAILURES`` is not set: appended per spider, so
#: scheduled runs accumulate in one file. ``NEWSEXTRACT_FAILURES=none`` keeps them in the log only.
DEFAULT_FAILURES_FILE = "failures/%(name)s.jsonl"


def failures_path_template(settings: BaseSettings) -> str | None:
    configured = settings.get("NEWSEXTRACT_FAILURES") or ""
    if configured.lower() == "none":
        return None
    if configured:
        return str(configured)
    return str(Path(settings.get("NEWSEXTRACT_DATA_DIR") or "data") / DEFAULT_FAILURES_FILE)


class FailureLog(SpiderRecordLog):
    """Counts every failure in stats and writes it to the failures file, if one is set."""

    setting = "NEWSEXTRACT_FAILURES"

    def __init__(
        self,
        stats: StatsCollector,
        path_template: str | None = None,
        crawler: Crawler | None = None,
        max_size: int = 0,
    ) -> None:
        super().__init__(path_template)
        self.stats = stats
        self.crawler = crawler
        self.max_size = max_size
        self._received: WeakKeyDictionary[Request, int] = WeakKeyDictionary()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FailureLog:
        assert crawler.stats is not None
        max_size = crawler.settings.getint("DOWNLOAD_MAXSIZE")
        log = cls(crawler.stats, failures_path_template(crawler.settings), crawler, max_size)
        # A template that cannot be filled fails here, before the crawl starts.
        spider = crawler.spider or crawler.spidercls
        log.check_template(spider, str(getattr(spider, "name", "") or "spider"))
        connect = crawler.signals.connect
        connect(log.spider_opened, signal=signals.spider_opened)
        connect(log.spider_closed, signal=signals.spider_closed)
        connect(log.failure_recorded, signal=failure_recorded)
        connect(log.item_scraped, signal=signals.item_scraped)
        connect(log.item_dropped, signal=signals.item_dropped)
        connect(log.item_error, signal=signals.item_error)
        connect(log.spider_error, signal=signals.spider_error)
        connect(log.request_dropped, signal=signals.request_dropped)
        connect(log.bytes_received, signal=signals.bytes_received)
        return log

    def record(self, failure: FailureItem) -> None:
        self.stats.inc_value("newsextract/failures")
        self.stats.inc_value(f"newsextract/failures/{failure.stage}")
        if failure.stage == "download" and self.stats.get_value(FIRST_DOWNLOAD_STAT) is None:
            self.stats.set_value(FIRST_DOWNLOAD_STAT, f"{failure.url}: {failure.reason}")
        self.write(failure)

    def failure_recorded(self, failure: FailureItem) -> None:
        self.record(failure)

    def item_scraped(self, item: Any, **kwargs: Any) -> None:
        if isinstance(item, ArticleItem):
            self.stats.inc_value("newsextract/articles")

    def item_dropped(self, item: Any, exception: BaseException, **kwargs: Any) -> None:
        stage = str(getattr(exception, "stage", "") or "pipeline")
        self.record(_item_failure(item, stage, str(exception)))

    def item_error(self, item: Any, failure: Failure, **kwargs: Any) -> None:
        reason = f"{type(failure.value).__name__}: {failure.value}"
        self.record(_item_failure(item, "pipeline-error", reason))

    def spider_error(
        self, failure: Failure, response: Response | None = None, spider: Spider | None = None
    ) -> None:
        reason = f"{type(failure.value).__name__}: {failure.value}"
        site = str(getattr(spider, "site_name", ""))
        request: Request | None = getattr(failure, "request", None)
        url, status = "", None
        if response is not None:
            url, status = response.url, response.status
        elif request is not None:
            url = first_url(request)
        self.record(FailureItem(url, "spider", reason, status, site, utc_now()))
        if response is None and request is None and self.crawler is not None:
            # Scrapy's only error without a request: the spider's start requests broke off.
            stop_crawl(
                self.crawler,
                f"the spider's start requests failed ({reason}): the crawl stops rather than "
                "pass for a complete one; see the traceback above",
            )

    def request_dropped(self, request: Request, spider: Spider | None = None) -> None:
        # The duplicate filter drops repeated links silently, as it should; a redirect it
        # drops, though, was fetched and leads nowhere new: a loop, or an alias of a page.
        if not request.meta.get("redirect_urls"):
            return
        reason = f"redirects to {request.url}, already requested in this crawl"
        site = str(getattr(spider, "site_name", ""))
        self.record(FailureItem(first_url(request), "redirect", reason, None, site, utc_now()))

    def bytes_received(self, data: bytes, request: Request, **kwargs: Any) -> None:
        """Count a download's bytes, to tell a body cut at DOWNLOAD_MAXSIZE (see
        :data:`SIZE_LIMIT_META`) from other cancelled downloads."""
        received = self._received.get(request, 0) + len(data)
        self._received[request] = received
        limit = int(request.meta.get("download_maxsize", self.max_size) or 0)
        if limit and received > limit:
            request.meta[SIZE_LIMIT_META] = limit


def _item_failure(item: Any, stage: str, reason: str) -> FailureItem:
    return FailureItem(
        url=str(getattr(item, "url", "")),
        stage=stage,
        reason=reason,
        status=getattr(item, "status", None),
        site=str(getattr(item, "site", "")),
        fetchedAt=str(getattr(item, "fetched_at", "") or getattr(item, "fetchedAt", "")),
    )

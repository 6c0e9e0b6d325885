"""A crawl's outcome: what stops a crawl early, and what makes ``scrapy crawl`` exit non-zero.

Scrapy's own ``crawl`` command exits 0 once a crawl got going, whatever went wrong after: a
feed that could not be written, a state store that broke. A cron job cannot trust that. A
component that finds the crawl can no longer keep its promise (every article in a record,
and recorded as harvested only once it is) calls :func:`stop_crawl` with one message that
names the file and says what to do. The message is logged once and kept in the stats
(``newsextract/fatal``), and the spider is closed with the reason ``newsextract_fatal``.
The project's ``crawl`` command (:mod:`newsextract.commands.crawl`) asks
:func:`crawl_failure` and exits 1; so does a feed Scrapy could not store, and a crawl in which
no request got a response (:func:`nothing_fetched`: the network or the site's host is down).
A crawl that got responses but found nothing new did its job.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, NoReturn

from scrapy.core.engine import ExecutionEngine
from scrapy.crawler import Crawler
from scrapy.exceptions import CloseSpider
from scrapy.statscollectors import StatsCollector
from scrapy.utils.defer import deferred_from_coro
from twisted.python.failure import Failure

logger = logging.getLogger(__name__)

#: Stats key of the message that stopped the crawl.
FATAL_STAT = "newsextract/fatal"
#: The ``finish_reason`` of a crawl stopped by :func:`stop_crawl`.
FATAL_REASON = "newsextract_fatal"
#: Download failures the failure log counted, and the first one's URL and reason
#: (:mod:`newsextract.extensions.failures`), and the responses Scrapy's core stats counted.
DOWNLOAD_FAILED_STAT = "newsextract/failures/download"
FIRST_DOWNLOAD_STAT = "newsextract/first_download_failure"
RESPONSES_STAT = "response_received_count"
#: How the message of a crawl that got no response begins.
NOTHING_FETCHED = "nothing could be fetched"
#: Scrapy counts a feed it could not store under this prefix (one key per storage class).
FEED_FAILED_PREFIX = "feedexport/failed_count/"


def stop_crawl(crawler: Crawler, problem: BaseException | str) -> None:
    """Log ``problem`` (the first time only), keep it in the stats and close the spider.

    Safe to call from anywhere: a signal handler, a pipeline, a store's error hook, while the
    spider opens (then the caller raises :class:`CloseSpider`: see :func:`refuse_to_start`)
    or while it closes (then it only marks the outcome)."""
    message = str(problem)
    stats = _late(crawler, "stats")
    if isinstance(stats, StatsCollector):
        if stats.get_value(FATAL_STAT) is not None:
            return
        stats.set_value(FATAL_STAT, message)
    logger.error(message)
    engine = _late(crawler, "engine")
    if isinstance(engine, ExecutionEngine) and engine.running and engine.spider is not None:
        closing = deferred_from_coro(engine.close_spider_async(reason=FATAL_REASON))
        closing.addErrback(_closing_failed)


def refuse_to_start(crawler: Crawler, problem: BaseException | str) -> NoReturn:
    """:func:`stop_crawl` for a ``spider_opened`` handler: no request is made."""
    stop_crawl(crawler, problem)
    raise CloseSpider(FATAL_REASON)


def crawl_failure(stats: Mapping[str, Any]) -> str | None:
    """Why a finished crawl must end with a non-zero exit status, or None.

    >>> crawl_failure({"finish_reason": "finished", "feedexport/success_count/X": 1})
    >>> crawl_failure({"feedexport/failed_count/FileFeedStorage": 1})
    'a feed could not be stored (1 failed; see the error above)'
    """
    message = stats.get(FATAL_STAT)
    if message:
        return str(message)
    if stats.get("finish_reason") == FATAL_REASON:
        return "the crawl was stopped by an error (see above)"
    failed = sum(int(v) for k, v in stats.items() if k.startswith(FEED_FAILED_PREFIX))
    if failed:
        return f"a feed could not be stored ({failed} failed; see the error above)"
    return nothing_fetched(stats)


def nothing_fetched(stats: Mapping[str, Any]) -> str | None:
    """The crawl's one line when no request got a response and some failed at download (the
    network is down, the site's host unknown); None when any response came back, even if
    nothing in it was new.

    >>> nothing_fetched({DOWNLOAD_FAILED_STAT: 3, FIRST_DOWNLOAD_STAT: "http://a.invalid/: DNS"})
    'nothing could be fetched: 3 requests failed at download, the first http://a.invalid/: DNS'
    >>> nothing_fetched({DOWNLOAD_FAILED_STAT: 3, RESPONSES_STAT: 1})
    """
    failed = int(stats.get(DOWNLOAD_FAILED_STAT) or 0)
    if failed == 0 or int(stats.get(RESPONSES_STAT) or 0) > 0:
        return None
    requests = "request" if failed == 1 else "requests"
    first = stats.get(FIRST_DOWNLOAD_STAT) or "(no reason recorded)"
    return f"{NOTHING_FETCHED}: {failed} {requests} failed at download, the first {first}"


def _late(crawler: Crawler, name: str) -> object:
    """A crawler attribute that exists only once the crawl has started, or None."""
    try:
        return getattr(crawler, name)
    except RuntimeError:  # Scrapy's late attributes raise this before they are set
        return None


def _closing_failed(failure: Failure) -> None:
    # The spider closed by itself meanwhile: the outcome is marked, nothing more to do.
    logger.debug("closing the spider after a fatal error: %s", failure.value)

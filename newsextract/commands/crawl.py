"""``scrapy crawl`` as a cron job needs it: refused at once when it cannot run, and an exit
status that says whether it did its job.

Before the crawl starts, the spider class checks its arguments
(:meth:`~newsextract.spiders.base.NewsSpider.check_arguments`) and the settings are checked
for mistakes that would otherwise do nothing silently (``NEWSEXTRACT_PROFILES_DIR`` given as
a setting): a problem is one log line, ``scrapy crawl SPIDER: problem``, and exit code 2,
with no request made (see :mod:`newsextract.spiders.arguments`).

Scrapy's own command exits 1 only when the crawl could not be set up. This one also exits 1
when the crawl ran but could not keep its promise (:mod:`newsextract.extensions.outcome`: a
feed not written or not stored, a state store that broke, a failure log that could not be
opened), or when no request got a response (one line: how many failed at download, and the
first reason). A setup error of the project (:class:`~newsextract.exceptions.NewsExtractError`,
e.g. a state store that is locked or damaged) is logged as its one-line message, which names
the file and says what to do, instead of a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.crawler import Crawler
from scrapy.exceptions import UsageError
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from newsextract.exceptions import NewsExtractError
from newsextract.extensions.outcome import NOTHING_FETCHED, crawl_failure
from newsextract.sharedmode.connection import SharedModeError, connect, redis_url
from newsextract.spiders.profiles import check_profiles_setting

logger = logging.getLogger(__name__)

#: The exit status of a crawl refused before it started (a usage error, as argparse's).
EXIT_REFUSED = 2
#: The exit status of a crawl that could not be set up or did not complete.
EXIT_FAILED = 1


class Command(ScrapyCrawlCommand):
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) < 1:
            raise UsageError
        if len(args) > 1:
            raise UsageError("running 'scrapy crawl' with more than one spider is not supported")
        assert self.crawler_process is not None
        try:
            self.check(args[0], opts.spargs)
        except UsageError as error:
            logger.error("scrapy crawl %s: %s", args[0], error)
            self.exitcode = EXIT_REFUSED
            return
        if not self.redis_reachable():
            self.exitcode = EXIT_FAILED
            return
        crawler = self._create_crawler(args[0])
        running: Any = self.crawler_process.crawl(crawler, **opts.spargs)
        if isinstance(running, asyncio.Task):
            running.add_done_callback(_report_task)
        elif isinstance(running, Deferred):
            running.addErrback(_report_failure)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = EXIT_FAILED
        elif failure := _outcome(crawler):
            self.exitcode = EXIT_FAILED
            if failure.startswith(NOTHING_FETCHED):  # no error above says it: this line does
                logger.error("exit status 1: %s", failure)
                return
            # The reason was logged once where it happened; the last line says what it meant.
            logger.error("exit status 1: the crawl did not complete (see the error above)")

    def redis_reachable(self) -> bool:
        """Shared mode: Redis answers before any request is made (else one message)."""
        assert self.settings is not None
        url = redis_url(self.settings)
        if url is None:
            return True
        try:
            connect(url).close()
        except SharedModeError as error:
            logger.critical("%s", error)
            return False
        return True

    def check(self, spider_name: str, arguments: dict[str, Any]) -> None:
        """Raise UsageError for settings or spider arguments the crawl cannot run with."""
        assert self.settings is not None and self.crawler_process is not None
        check_profiles_setting(self.settings)
        url = redis_url(self.settings)
        if url is not None:
            try:
                connect(url, check=False).close()
            except SharedModeError as error:  # not a Redis URL: a bad setting
                raise UsageError(str(error)) from None
        try:
            spider_class = self.crawler_process.spider_loader.load(spider_name)
        except KeyError:
            return  # Scrapy's own command says so
        check_arguments = getattr(spider_class, "check_arguments", None)
        if check_arguments is not None:
            check_arguments(arguments)


def _outcome(crawler: Crawler) -> str | None:
    try:
        stats = crawler.stats
    except RuntimeError:  # the crawl never started: bootstrap_failed says so
        return None
    return crawl_failure(stats.get_stats())


def _report_task(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        _report(error)


def _report_failure(failure: Failure) -> None:
    if failure.value is not None:
        _report(failure.value)


def _report(error: BaseException) -> None:
    """A crawl that could not start: our own errors as their message, others in full."""
    if isinstance(error, NewsExtractError):
        logger.critical("%s", error)
    else:
        logger.critical("the crawl could not start", exc_info=error)

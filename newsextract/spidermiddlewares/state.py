"""A spider callback that meets a state store gone away ends as a failure record.

A spider asks the state store about every link and page (asked already? harvested?). When
the store stayed away past its retry budget (shared mode: ``NEWSEXTRACT_REDIS_RETRY``), the
crawl is already stopping with one message; each page still in the spider's hands then ends
as a failure record of stage ``state`` instead of a traceback, and its request stays open
for the next run.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.crawler import Crawler
from scrapy.http import Response

from newsextract.extensions.failures import failure_recorded
from newsextract.extensions.jsonl import utc_now
from newsextract.items import FailureItem
from newsextract.state import StateStoreError


class StateStoreLost:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StateStoreLost:
        return cls(crawler)

    def process_spider_exception(
        self, response: Response, exception: BaseException
    ) -> Iterable[Any] | None:
        if not isinstance(exception, StateStoreError):
            return None
        site = str(getattr(self.crawler.spider, "site_name", ""))
        failure = FailureItem(
            response.url, "state", str(exception), response.status, site, utc_now()
        )
        self.crawler.signals.send_catch_log(signal=failure_recorded, failure=failure)
        return []

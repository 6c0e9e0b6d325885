"""The listing log: fetched pages that are not articles (listing pages, sitemaps, feeds,
robots.txt), so every fetched URL ends as an article, a failure or a listing record.

Spiders send :data:`listing_fetched` with a :class:`~newsextract.items.ListingItem`; the log
counts it (``newsextract/pages/<kind>``) and, when the setting ``NEWSEXTRACT_LISTINGS``
names a file, appends it there as a JSON line.
"""

from __future__ import annotations

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector

from newsextract.extensions.jsonl import SpiderRecordLog
from newsextract.items import ListingItem

#: Sent by spiders for each non-article document fetched: ``listing=ListingItem``.
listing_fetched = object()


class ListingLog(SpiderRecordLog):
    setting = "NEWSEXTRACT_LISTINGS"

    def __init__(self, stats: StatsCollector, path_template: str | None = None) -> None:
        super().__init__(path_template)
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ListingLog:
        assert crawler.stats is not None
        log = cls(crawler.stats, crawler.settings.get("NEWSEXTRACT_LISTINGS") or None)
        # A template that cannot be filled fails here, before the crawl starts.
        spider = crawler.spider or crawler.spidercls
        log.check_template(spider, str(getattr(spider, "name", "") or "spider"))
        crawler.signals.connect(log.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(log.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(log.listing_fetched, signal=listing_fetched)
        return log

    def listing_fetched(self, listing: ListingItem) -> None:
        self.stats.inc_value(f"newsextract/pages/{listing.kind}")
        self.write(listing)

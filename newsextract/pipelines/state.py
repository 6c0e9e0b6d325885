"""The harvest stage (ITEM_PIPELINES 800): remember each article for the next scheduled run.

Every article record is written to the state store (URL and content hash) before it is
exported, so a re-run skips it before requesting it. A text already harvested under
another URL (the same story at a second address), or a URL harvested already, is dropped as
a duplicate. Switched off
with ``-s NEWSEXTRACT_STATE=off``.
"""

from __future__ import annotations

from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newsextract.items import ArticleItem
from newsextract.pipelines import DropPage
from newsextract.state import StateStore, content_hash, open_store


class HarvestPipeline:
    def __init__(self, store: StateStore, stats: StatsCollector) -> None:
        self.store = store
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HarvestPipeline:
        store = open_store(crawler.settings)
        if store is None:
            raise NotConfigured("NEWSEXTRACT_STATE is off")
        assert crawler.stats is not None
        return cls(store, crawler.stats)

    def close_spider(self) -> None:
        self.store.close()

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ArticleItem):
            return item
        if self.store.is_harvested(item.url):
            # Fetched twice (a resumed crawl's own queue and its recovered requests, while the
            # first copy was still held by the template stage): one record is enough.
            self.stats.inc_value("newsextract/state/duplicates")
            raise DropPage(f"{item.url} was harvested already", stage="duplicate")
        digest = content_hash(item.articleBody)
        original = self.store.record_harvest(item.url, digest, item.site, item.fetchedAt)
        if original is not None:
            self.stats.inc_value("newsextract/state/duplicates")
            raise DropPage(f"duplicate of {original}", stage="duplicate")
        self.stats.inc_value("newsextract/state/recorded")
        return item

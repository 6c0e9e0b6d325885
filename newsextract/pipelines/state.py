"""The harvest stage (ITEM_PIPELINES 800): remember each article for the next scheduled run.

A URL harvested already, or a text already harvested under another URL (the same story at a
second address), is dropped as a duplicate here; so is one that an earlier item of this run
holds while it waits to be exported. The article is written to the state store (URL and
content hash) only once it has been exported (``item_scraped``, sent after the feed wrote
it), so a re-run skips it before requesting it. Recording it here, before the export,
would lose it to a crawl killed in between: Scrapy hands a batch of items (the pages the
template stage held) through the pipeline before it exports the first of them, and the
resumed crawl would skip them as harvested. Switched off with ``-s NEWSEXTRACT_STATE=off``.
"""

from __future__ import annotations

from typing import Any

from scrapy import signals
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
        # Items passed on and not yet exported: URL -> content hash, and the reverse.
        self._waiting: dict[str, str] = {}
        self._waiting_texts: dict[str, str] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HarvestPipeline:
        store = open_store(crawler.settings)
        if store is None:
            raise NotConfigured("NEWSEXTRACT_STATE is off")
        assert crawler.stats is not None
        pipeline = cls(store, crawler.stats)
        crawler.signals.connect(pipeline.item_exported, signal=signals.item_scraped)
        return pipeline

    def close_spider(self) -> None:
        self.store.close()

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ArticleItem):
            return item
        if item.url in self._waiting or self.store.is_harvested(item.url):
            # Fetched twice (a resumed crawl's own queue and its recovered requests, while the
            # first copy was still held by the template stage): one record is enough.
            self.stats.inc_value("newsextract/state/duplicates")
            raise DropPage(f"{item.url} was harvested already", stage="duplicate")
        digest = content_hash(item.articleBody)
        original = self._waiting_texts.get(digest) or self.store.holder_of(digest, item.url)
        if original is not None:
            self.stats.inc_value("newsextract/state/duplicates")
            raise DropPage(f"duplicate of {original}", stage="duplicate")
        self._waiting[item.url] = digest
        self._waiting_texts[digest] = item.url
        return item

    def item_exported(self, item: Any, **kwargs: Any) -> None:
        """The feed has written the article: remember it for the next run."""
        if not isinstance(item, ArticleItem) or item.url not in self._waiting:
            return
        digest = self._waiting.pop(item.url)
        self._waiting_texts.pop(digest, None)
        original = self.store.record_harvest(item.url, digest, item.site, item.fetchedAt)
        if original is not None:  # another crawl on this store exported it meanwhile
            self.stats.inc_value("newsextract/state/duplicates_across_crawls")
        self.stats.inc_value("newsextract/state/recorded")

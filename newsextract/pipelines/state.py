"""The harvest stage (ITEM_PIPELINES 800): remember each article for the next scheduled run.

A URL harvested already, or a text already harvested under another URL (the same story at a
second address), is dropped as a duplicate here; so is one that an earlier item of this run
holds while it waits to be exported. The article is written to the state store (URL and
content hash) only once a feed holds it (:data:`~newsextract.extensions.feeds.article_stored`,
sent by the feed watch), so a re-run skips it before requesting it. Recording it on
``item_scraped`` would count articles no feed wrote: a crawl with no ``-o``, a feed file that
cannot be written, a remote feed whose upload failed; the next run would skip them for good.
Recording it here, before the export, would lose it to a crawl killed in between: Scrapy
hands a batch of items (the pages the template stage held) through the pipeline before it
exports the first of them. Switched off with ``-s NEWSEXTRACT_STATE=off``.

A state store that cannot be trusted (locked by another process, read-only, damaged, not a
state store) stops the crawl: at the start, before any request, or when a call fails later
(:func:`~newsextract.extensions.outcome.stop_crawl`, with the message naming the file). The
store stays open until the engine stops, because a feed that stores its items at the end
(stdout, S3) confirms them after the pipelines have closed. A re-run says how many known
articles it skipped, and how to fetch them again.

In shared mode an article is written only by the worker that holds its open request: one
whose request another worker took over (it looked dead for a whole lease) drops its copy,
and the other writes it. A state store that cannot be reached past its retry budget ends
the page as a failure record (stage ``state``): its request stays open, and the next run of
the worker (or another worker) fetches it again. An article a feed wrote stays in a journal
until Redis has recorded it, and is recorded when the worker starts again
(:mod:`newsextract.sharedmode.state`).
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newsextract.extensions.feeds import article_stored
from newsextract.extensions.outcome import stop_crawl
from newsextract.items import ArticleItem
from newsextract.pipelines import DropPage
from newsextract.sharedmode.state import RedisStateStore
from newsextract.state import HarvestStore, StateStoreError, content_hash, open_store

logger = logging.getLogger(__name__)

#: Stats of the articles the spiders did not request (or dropped after a redirect) because
#: an earlier run harvested them.
SKIPPED_STATS = ("newsextract/state/skipped_known", "newsextract/state/skipped_known_after_fetch")


class HarvestPipeline:
    def __init__(
        self, store: HarvestStore, stats: StatsCollector, crawler: Crawler | None = None
    ) -> None:
        self.store = store
        self.stats = stats
        self.crawler = crawler
        # Items passed on and not yet exported: URL -> content hash, and the reverse.
        self._waiting: dict[str, str] = {}
        self._waiting_texts: dict[str, str] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HarvestPipeline:
        store = open_store(crawler.settings, on_error=partial(stop_crawl, crawler))
        if store is None:
            raise NotConfigured("NEWSEXTRACT_STATE is off")
        assert crawler.stats is not None
        pipeline = cls(store, crawler.stats, crawler)
        crawler.signals.connect(pipeline.item_exported, signal=article_stored)
        crawler.signals.connect(pipeline.report_skipped, signal=signals.spider_closed)
        crawler.signals.connect(pipeline.close, signal=signals.engine_stopped)
        return pipeline

    def close(self) -> None:
        self.store.close()

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, ArticleItem):
            return item
        try:
            return self._admit(item)
        except StateStoreError as error:
            raise DropPage(f"the state store cannot be reached: {error}", stage="state") from None

    def _admit(self, item: ArticleItem) -> ArticleItem:
        if self._taken_over(item.url):
            self.stats.inc_value("newsextract/state/taken_over")
            raise DropPage(f"{item.url} was taken over by another worker", stage="duplicate")
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

    def _taken_over(self, url: str) -> bool:
        """Shared mode: another worker holds this page's open request now, and writes it."""
        crawl = getattr(getattr(self.crawler, "spider", None), "ledger", None)
        crawl_name = getattr(crawl, "crawl", None)
        if not isinstance(self.store, RedisStateStore) or not isinstance(crawl_name, str):
            return False
        return self.store.held_by_another(crawl_name, url)

    def item_exported(self, item: Any, **kwargs: Any) -> None:
        """A feed holds the article: remember it for the next run."""
        if not isinstance(item, ArticleItem) or item.url not in self._waiting:
            return
        digest = self._waiting.pop(item.url)
        self._waiting_texts.pop(digest, None)
        try:
            original = self.store.record_harvest(item.url, digest, item.site, item.fetchedAt)
        except StateStoreError:
            return  # the store's error hook has stopped the crawl, with the message
        if original is not None:  # another crawl on this store exported it meanwhile
            self.stats.inc_value("newsextract/state/duplicates_across_crawls")
        self.stats.inc_value("newsextract/state/recorded")

    def report_skipped(self) -> None:
        """A re-run fetches only what is new: say how much it left out, and how to get it."""
        skipped = sum(int(self.stats.get_value(key, 0) or 0) for key in SKIPPED_STATS)
        if not skipped:
            return
        new = int(self.stats.get_value("newsextract/articles", 0) or 0)
        log = logger.warning if new == 0 else logger.info  # "0 articles" needs its reason
        log(
            "skipped %d articles harvested by earlier runs (state store %s); "
            "crawl with -s NEWSEXTRACT_STATE=off to fetch them again",
            skipped,
            self.store.path,
        )

"""Which feed wrote which article: an article counts as exported once every feed that takes
it holds it, and only then does the harvest stage remember it (:data:`article_stored`).

Scrapy sends ``item_scraped`` whether or not a feed wrote the item: with no ``-o``/``-O``,
with a feed file that cannot be opened, or with a remote feed whose upload fails at the end.
This extension watches Scrapy's feed exporter instead, item by item:

- each feed slot counts the items it wrote; a slot that takes the item (its
  ``item_classes``) and did not count it failed to write it. The article becomes a failure
  record (stage ``export``) and the crawl stops
  (:func:`~newsextract.extensions.outcome.stop_crawl`): every further article would be lost
  the same way;
- a local file feed (:class:`~newsextract.exporters.FlushedFileFeedStorage`, no
  post-processing) holds an item as soon as it is written, so a crawl killed a moment later
  keeps it; any other feed (stdout, S3, FTP, a compressed file) holds its items only once
  Scrapy has stored the feed, at the end, and they count as exported only if no feed failed;
- before the first request every local feed file is opened once, so a path that cannot be
  written stops the crawl at once, with its name, instead of losing every article;
- a crawl with no feed at all exports nothing and records nothing, and says so once.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.extensions.feedexport import FeedExporter, FeedSlot, FileFeedStorage

from newsextract.exporters import FlushedFileFeedStorage
from newsextract.extensions.failures import failure_recorded
from newsextract.extensions.jsonl import utc_now
from newsextract.extensions.outcome import FEED_FAILED_PREFIX, refuse_to_start, stop_crawl
from newsextract.items import ArticleItem, FailureItem

logger = logging.getLogger(__name__)

#: Sent with ``item=ArticleItem`` once every feed that takes the article holds it. An article
#: held back until the feeds are stored is sent without its body (nobody needs it by then).
article_stored = object()


class FeedWatch:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.feeds: FeedExporter | None = None
        self._counts: dict[FeedSlot, int] = {}  # each slot's item count at the last look
        self._held: list[ArticleItem] = []  # written to feeds that store at the end
        self._unfed = 0  # articles no feed takes
        self._warned_untaken = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FeedWatch:
        watch = cls(crawler)
        connect = crawler.signals.connect
        connect(watch.spider_opened, signal=signals.spider_opened)
        connect(watch.item_scraped, signal=signals.item_scraped)
        connect(watch.feed_exporter_closed, signal=signals.feed_exporter_closed)
        connect(watch.spider_closed, signal=signals.spider_closed)
        return watch

    def spider_opened(self, spider: Spider) -> None:
        self.feeds = self.crawler.get_extension(FeedExporter)
        settings = self.crawler.settings
        if self.feeds is None:
            if settings.getdict("FEEDS") or settings.get("FEED_URI"):
                refuse_to_start(
                    self.crawler,
                    "the feeds given (-o, -O or FEEDS) could not be set up (see the error "
                    "above): fix them, or nothing this crawl finds would be written",
                )
            logger.warning(
                "no feed (-o FILE or -O FILE): the articles of this crawl are written nowhere, "
                "and none is recorded as harvested (the next crawl with a feed fetches them)"
            )
            return
        for slot in self.feeds.slots:
            problem = _cannot_write(slot)
            if problem:
                # Scrapy would try the file again when it closes the feed, with a traceback.
                self.feeds.slots.remove(slot)
                refuse_to_start(
                    self.crawler,
                    f"the feed {slot.uri} cannot be written ({problem}): give -o/-O a file "
                    "this crawl can write; nothing was fetched",
                )
        self._counts = {slot: slot.itemcount for slot in self.feeds.slots}

    def item_scraped(self, item: Any, **kwargs: Any) -> None:
        """Runs after the feed exporter's own handler (connected before this one)."""
        if self.feeds is None:
            self._unfed += isinstance(item, ArticleItem)
            return
        takers = [slot for slot in self._counts if slot.filter.accepts(item)]
        missed = [slot for slot in takers if slot.itemcount <= self._counts[slot]]
        self._counts = {slot: slot.itemcount for slot in self.feeds.slots}
        if not isinstance(item, ArticleItem):
            return
        if not takers:
            self._untaken()
        elif missed:
            self._lost(item, missed)
        elif all(_holds_at_once(slot) for slot in takers):
            self._stored(item)
        else:
            self._held.append(dataclasses.replace(item, articleBody=""))

    def feed_exporter_closed(self) -> None:
        """Every feed is stored, or Scrapy logged why not: the held articles are settled."""
        failed = sum(
            int(value)
            for key, value in self._stats().get_stats().items()
            if key.startswith(FEED_FAILED_PREFIX)
        )
        held, self._held = self._held, []
        if not failed:
            for item in held:
                self._stored(item)
            return
        for item in held:
            self._record_failure(item, "the feed holding it could not be stored")
        lost = (
            f": the {len(held)} articles held for it are not recorded as harvested, and the "
            "next crawl fetches them again"
            if held
            else ""
        )
        stop_crawl(
            self.crawler, f"{failed} feed(s) could not be stored (see 'Error storing' above){lost}"
        )

    def spider_closed(self, spider: Spider) -> None:
        if self._unfed:
            logger.info("%d articles were extracted and written to no feed", self._unfed)

    def _stored(self, item: ArticleItem) -> None:
        self._stats().inc_value("newsextract/feeds/stored")
        self.crawler.signals.send_catch_log(signal=article_stored, item=item)

    def _lost(self, item: ArticleItem, slots: list[FeedSlot]) -> None:
        uris = ", ".join(slot.uri for slot in slots)
        self._record_failure(item, f"not written to the feed {uris} (see the error above)")
        stop_crawl(
            self.crawler,
            f"the feed {uris} could not be written (see the error above): the crawl stops "
            "so that no more articles are lost; the next crawl fetches the lost ones again",
        )

    def _untaken(self) -> None:
        self._unfed += 1
        if not self._warned_untaken:
            self._warned_untaken = True
            logger.warning(
                "no feed takes article records (see FEEDS item_classes): they are written "
                "nowhere, and none is recorded as harvested"
            )

    def _record_failure(self, item: ArticleItem, reason: str) -> None:
        self._stats().inc_value("newsextract/feeds/lost")
        failure = FailureItem(item.url, "export", reason, None, item.site, utc_now())
        self.crawler.signals.send_catch_log(signal=failure_recorded, failure=failure)

    def _stats(self) -> Any:
        assert self.crawler.stats is not None
        return self.crawler.stats


def _holds_at_once(slot: FeedSlot) -> bool:
    """A written item is on disk now (a local file written unbuffered, not compressed)."""
    return isinstance(slot.storage, FlushedFileFeedStorage) and not slot.feed_options.get(
        "postprocessing"
    )


def _cannot_write(slot: FeedSlot) -> str:
    """Why a local feed file cannot be opened for writing ("" when it can; other storages
    are checked by Scrapy when it stores them)."""
    if not isinstance(slot.storage, FileFeedStorage):
        return ""
    path = Path(slot.storage.path)
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab"):
            pass
    except OSError as error:
        return f"{type(error).__name__}: {error}"
    if not existed:
        path.unlink(missing_ok=True)  # Scrapy creates it with the first record
    return ""

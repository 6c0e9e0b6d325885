"""The feed watch: an article counts as exported only once a feed holds it; a feed that
cannot be written stops the crawl; a crawl with no feed says so once. Scrapy's own feed
exporter runs in-process here, on a real file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scrapy import Spider, signals
from scrapy.exceptions import CloseSpider
from scrapy.extensions.feedexport import FeedExporter
from scrapy.utils.test import get_crawler

from newsextract.extensions.failures import FailureLog
from newsextract.extensions.feeds import FeedWatch, article_stored
from newsextract.extensions.outcome import FATAL_REASON, FATAL_STAT
from newsextract.items import ArticleItem

QUIET = {"LOGSTATS_INTERVAL": 0}
EXTENSIONS = {
    "newsextract.extensions.failures.FailureLog": 100,
    "newsextract.extensions.feeds.FeedWatch": 100,
}
FLUSHED = {
    "": "newsextract.exporters.FlushedFileFeedStorage",
    "file": "newsextract.exporters.FlushedFileFeedStorage",
}


def article(number: int) -> ArticleItem:
    return ArticleItem(
        f"https://a.jp/{number}", "", "h", f"story {number}", "", "", [], "en", "a.jp", "t"
    )


class Watched:
    """A crawler with Scrapy's feed exporter and the watch, and what the watch announced."""

    def __init__(self, tmp_path: Path, feeds: dict[str, Any], **settings: Any) -> None:
        self.crawler = get_crawler(
            Spider,
            {
                **QUIET,
                "FEEDS": feeds,
                "FEED_STORAGES": FLUSHED,
                "EXTENSIONS": EXTENSIONS,
                "NEWSEXTRACT_FAILURES": str(tmp_path / "failures.jsonl"),
                **settings,
            },
        )
        self.spider = Spider("news")
        self.stored: list[str] = []
        self.crawler.signals.connect(self.on_stored, signal=article_stored)

    def on_stored(self, item: ArticleItem) -> None:
        self.stored.append(item.url)

    def open(self) -> list[Any]:
        """What each receiver returned or raised (as the engine sees it, CloseSpider too)."""
        results = self.crawler.signals.send_catch_log(
            signals.spider_opened, spider=self.spider, dont_log=CloseSpider
        )
        return [getattr(result, "value", result) for _, result in results]

    def scraped(self, item: Any) -> None:
        self.crawler.signals.send_catch_log(
            signals.item_scraped, item=item, response=None, spider=self.spider
        )

    def close(self) -> None:
        for slot in self.feeds().slots:
            if slot.file is not None:
                slot.file.close()
        log = self.crawler.get_extension(FailureLog)
        assert log is not None
        log.spider_closed(self.spider)

    def feeds(self) -> FeedExporter:
        exporter = self.crawler.get_extension(FeedExporter)
        assert exporter is not None
        return exporter


def test_an_article_written_to_a_local_feed_is_stored_at_once(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    watched = Watched(tmp_path, {str(out): {"format": "jsonl"}})
    watched.open()
    watched.scraped(article(1))
    assert watched.stored == ["https://a.jp/1"]
    assert out.read_text(encoding="utf-8").count("https://a.jp/1") == 1  # on disk already
    watched.scraped(article(2))
    assert watched.stored == ["https://a.jp/1", "https://a.jp/2"]
    watched.close()


def test_an_article_no_feed_could_write_is_a_failure_and_stops_the_crawl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.jsonl"
    watched = Watched(tmp_path, {str(out): {"format": "jsonl"}})
    watched.open()
    watched.scraped(article(1))
    (slot,) = watched.feeds().slots

    def disk_full() -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(slot, "start_exporting", disk_full)
    watched.scraped(article(2))
    assert watched.stored == ["https://a.jp/1"]
    failures = (tmp_path / "failures.jsonl").read_text(encoding="utf-8")
    assert '"url": "https://a.jp/2", "stage": "export"' in failures
    assert str(out) in str(watched.crawler.stats.get_value(FATAL_STAT))
    watched.close()


def test_a_feed_file_that_cannot_be_opened_stops_the_crawl_before_it_starts(
    tmp_path: Path,
) -> None:
    (tmp_path / "feeds").write_text("a file where a directory should be", encoding="utf-8")
    watched = Watched(tmp_path, {str(tmp_path / "feeds" / "out.jsonl"): {"format": "jsonl"}})
    results = watched.open()
    closing = [result for result in results if isinstance(result, CloseSpider)]
    assert [c.reason for c in closing] == [FATAL_REASON]
    message = str(watched.crawler.stats.get_value(FATAL_STAT))
    assert "feeds/out.jsonl cannot be written" in message
    assert watched.feeds().slots == []  # Scrapy will not try the file again on closing
    watched.close()


def test_a_crawl_without_a_feed_says_so_once_and_stores_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    watched = Watched(tmp_path, {})
    assert watched.crawler.get_extension(FeedWatch) is not None
    watched.open()
    for number in range(3):
        watched.scraped(article(number))
    assert watched.stored == []
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len([w for w in warnings if "no feed" in w]) == 1
    assert watched.crawler.stats.get_value(FATAL_STAT) is None


def test_a_feed_that_takes_no_articles_stores_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    feeds = {str(tmp_path / "pages.jsonl"): {"format": "jsonl", "item_classes": [dict]}}
    watched = Watched(tmp_path, feeds)
    watched.open()
    watched.scraped(article(1))
    watched.scraped(article(2))
    assert watched.stored == []
    warnings = [r.getMessage() for r in caplog.records if "no feed takes" in r.getMessage()]
    assert len(warnings) == 1
    watched.close()

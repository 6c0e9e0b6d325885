"""The harvest stage: articles remembered for the next run once a feed holds them (not when
Scrapy reports them scraped), duplicates dropped, skipped articles reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from newsextract.extensions.feeds import article_stored
from newsextract.items import ArticleItem, PageItem
from newsextract.pipelines import DropPage
from newsextract.pipelines.state import HarvestPipeline
from newsextract.state import StateStore


def article(url: str, body: str) -> ArticleItem:
    return ArticleItem(url, "", "h", body, "", "", [], "en", "a.jp", "2026-11-29T00:00:00")


@pytest.fixture
def pipeline(tmp_path: Path) -> HarvestPipeline:
    return HarvestPipeline.from_crawler(
        get_crawler(settings_dict={"NEWSEXTRACT_DATA_DIR": str(tmp_path)})
    )


def passed_and_exported(pipeline: HarvestPipeline, item: ArticleItem) -> ArticleItem:
    passed: ArticleItem = pipeline.process_item(item)
    pipeline.item_exported(passed)
    return passed


def test_articles_are_recorded_once_a_feed_holds_them(tmp_path: Path) -> None:
    crawler = get_crawler(settings_dict={"NEWSEXTRACT_DATA_DIR": str(tmp_path)})
    pipeline = HarvestPipeline.from_crawler(crawler)
    item = article("https://a.jp/1", "one story")
    assert pipeline.process_item(item) is item
    with StateStore(tmp_path / "state.sqlite3") as store:
        # passed on, not yet written by the feed: a crawl killed now must fetch it again
        assert not store.is_harvested("https://a.jp/1")
        # scraped is not written: with no feed, or a feed that failed, nothing is recorded
        crawler.signals.send_catch_log(signals.item_scraped, item=item, response=None)
        assert not store.is_harvested("https://a.jp/1")
        crawler.signals.send_catch_log(article_stored, item=item)
        assert store.is_harvested("https://a.jp/1")
    assert pipeline.stats.get_value("newsextract/state/recorded") == 1
    pipeline.close()


def test_a_text_waiting_for_export_is_not_passed_twice(pipeline: HarvestPipeline) -> None:
    pipeline.process_item(article("https://a.jp/1", "one story"))
    with pytest.raises(DropPage, match="duplicate of https://a.jp/1"):
        pipeline.process_item(article("https://a.jp/amp/1", "one story"))
    with pytest.raises(DropPage, match="harvested already"):
        pipeline.process_item(article("https://a.jp/1", "one story"))
    pipeline.close()


def test_the_same_text_under_a_second_url_is_dropped(pipeline: HarvestPipeline) -> None:
    passed_and_exported(pipeline, article("https://a.jp/1", "one  story"))
    with pytest.raises(DropPage, match="duplicate of https://a.jp/1") as dropped:
        pipeline.process_item(article("https://a.jp/amp/1", "one story"))
    assert dropped.value.stage == "duplicate"
    assert passed_and_exported(pipeline, article("https://a.jp/2", "another story")).url == (
        "https://a.jp/2"
    )
    assert pipeline.stats.get_value("newsextract/state/duplicates") == 1
    assert pipeline.stats.get_value("newsextract/state/recorded") == 2
    pipeline.close()


def test_a_url_harvested_already_is_dropped(pipeline: HarvestPipeline) -> None:
    passed_and_exported(pipeline, article("https://a.jp/1", "one story"))
    with pytest.raises(DropPage, match="harvested already"):
        pipeline.process_item(article("https://a.jp/1", "one story"))
    pipeline.close()


def test_pages_pass_untouched(pipeline: HarvestPipeline) -> None:
    page = PageItem("https://a.jp/1", b"<html></html>", "text/html", 200, "a.jp", "t")
    assert pipeline.process_item(page) is page
    pipeline.close()


def test_the_stage_is_off_with_the_state(tmp_path: Path) -> None:
    crawler = get_crawler(settings_dict={"NEWSEXTRACT_STATE": "off"})
    with pytest.raises(NotConfigured):
        HarvestPipeline.from_crawler(crawler)


def test_the_store_stays_open_after_the_pipelines_close(tmp_path: Path) -> None:
    """A feed that stores its items at the end (stdout, S3) confirms them after Scrapy has
    closed the pipelines: the store closes when the engine stops."""
    crawler = get_crawler(settings_dict={"NEWSEXTRACT_DATA_DIR": str(tmp_path)})
    pipeline = HarvestPipeline.from_crawler(crawler)
    item = article("https://a.jp/1", "one story")
    pipeline.process_item(item)
    assert not hasattr(pipeline, "close_spider")
    crawler.signals.send_catch_log(article_stored, item=item)
    crawler.signals.send_catch_log(signals.engine_stopped)
    assert pipeline.store.closed
    with StateStore(tmp_path / "state.sqlite3") as store:
        assert store.is_harvested("https://a.jp/1")


def test_a_rerun_says_how_many_known_articles_it_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    crawler = get_crawler(settings_dict={"NEWSEXTRACT_DATA_DIR": str(tmp_path)})
    pipeline = HarvestPipeline.from_crawler(crawler)
    pipeline.stats.inc_value("newsextract/state/skipped_known", 39)
    pipeline.stats.inc_value("newsextract/state/skipped_known_after_fetch", 1)
    with caplog.at_level("INFO"):
        crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")
    (message,) = [r for r in caplog.records if "skipped" in r.getMessage()]
    assert message.levelname == "WARNING"  # nothing new came out: say why, loudly
    assert "skipped 40 articles harvested by earlier runs" in message.getMessage()
    assert "NEWSEXTRACT_STATE=off" in message.getMessage()
    assert str(tmp_path / "state.sqlite3") in message.getMessage()
    pipeline.close()


def test_nothing_is_said_when_nothing_was_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    crawler = get_crawler(settings_dict={"NEWSEXTRACT_DATA_DIR": str(tmp_path)})
    pipeline = HarvestPipeline.from_crawler(crawler)
    with caplog.at_level("INFO"):
        crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")
    assert [r for r in caplog.records if "skipped" in r.getMessage()] == []
    pipeline.close()

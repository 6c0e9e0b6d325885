"""The harvest stage: articles remembered for the next run, duplicates dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

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


def test_articles_are_recorded_and_passed_on(pipeline: HarvestPipeline, tmp_path: Path) -> None:
    item = article("https://a.jp/1", "one story")
    assert pipeline.process_item(item) is item
    pipeline.close_spider()
    with StateStore(tmp_path / "state.sqlite3") as store:
        assert store.is_harvested("https://a.jp/1")


def test_the_same_text_under_a_second_url_is_dropped(pipeline: HarvestPipeline) -> None:
    pipeline.process_item(article("https://a.jp/1", "one  story"))
    with pytest.raises(DropPage, match="duplicate of https://a.jp/1") as dropped:
        pipeline.process_item(article("https://a.jp/amp/1", "one story"))
    assert dropped.value.stage == "duplicate"
    assert pipeline.process_item(article("https://a.jp/2", "another story")).url == "https://a.jp/2"
    assert pipeline.stats.get_value("newsextract/state/duplicates") == 1
    assert pipeline.stats.get_value("newsextract/state/recorded") == 2
    pipeline.close_spider()


def test_a_url_harvested_already_is_dropped(pipeline: HarvestPipeline) -> None:
    pipeline.process_item(article("https://a.jp/1", "one story"))
    with pytest.raises(DropPage, match="harvested already"):
        pipeline.process_item(article("https://a.jp/1", "one story"))
    pipeline.close_spider()


def test_pages_pass_untouched(pipeline: HarvestPipeline) -> None:
    page = PageItem("https://a.jp/1", b"<html></html>", "text/html", 200, "a.jp", "t")
    assert pipeline.process_item(page) is page
    pipeline.close_spider()


def test_the_stage_is_off_with_the_state(tmp_path: Path) -> None:
    crawler = get_crawler(settings_dict={"NEWSEXTRACT_STATE": "off"})
    with pytest.raises(NotConfigured):
        HarvestPipeline.from_crawler(crawler)

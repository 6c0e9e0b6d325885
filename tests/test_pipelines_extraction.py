"""Single-page extraction as a pipeline stage: page in, article record out, or a drop with
the stage that failed."""

from __future__ import annotations

import time
from typing import Any

import pytest
from scrapy import Spider
from scrapy.logformatter import LogFormatter
from scrapy.utils.test import get_crawler

from newsextract.extraction import Article, Page
from newsextract.extraction.decision.combiner import CombinerConfig
from newsextract.extraction.evidence import classifier
from newsextract.extraction.evidence.classifier import default_model
from newsextract.extraction.pagemodel.page import PageLimits
from newsextract.items import ArticleItem, PageItem
from newsextract.pipelines import DropPage
from newsextract.pipelines import extraction as stage
from newsextract.pipelines.extraction import ExtractionPipeline, article_item
from newsextract.pipelines.learning import LearnerConfig, SiteLearner
from newsextract.pipelines.templates import _site_templates, learner_config

STORY = (
    "<html lang='ja'><head><title>記事</title><meta charset='shift_jis'></head><body>"
    "<p>市議会は火曜日、新しい予算案を賛成多数で可決した。学校と道路の整備が柱となる。</p>"
    "</body></html>"
)


def page_item(body: bytes, content_type: str = "text/html") -> PageItem:
    return PageItem(
        url="http://127.0.0.1/article/1.html",
        body=body,
        content_type=content_type,
        status=200,
        site="127.0.0.1",
        fetched_at="2026-11-29T00:00:00+00:00",
        language="ja",
    )


def fake_extractor(body: str, **fields: Any) -> Any:
    def extract(page: Page, config: CombinerConfig) -> Article:
        assert not config.main_region  # a crawl collects articles
        assert "市議会" in page.html  # the stage decoded the Shift_JIS bytes before this
        return Article(url=page.url, body=body, **fields)

    return extract


@pytest.fixture
def pipeline() -> ExtractionPipeline:
    return ExtractionPipeline.from_crawler(get_crawler())


def test_a_page_becomes_an_article_record(
    pipeline: ExtractionPipeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    extractor = fake_extractor(
        "本文", headline="見出し", method="single", confidence=0.87654, authors=("記者",)
    )
    monkeypatch.setattr(stage, "extract_article", extractor)
    item = pipeline.process_item(page_item(STORY.encode("cp932"), "text/html; charset=Shift_JIS"))
    assert isinstance(item, ArticleItem)
    assert (item.url, item.headline, item.articleBody, item.authors) == (
        "http://127.0.0.1/article/1.html",
        "見出し",
        "本文",
        ["記者"],
    )
    assert (item.site, item.fetchedAt, item.inLanguage) == (
        "127.0.0.1",
        "2026-11-29T00:00:00+00:00",
        "ja",
    )
    assert item.extraction == {"method": "single", "ruleVersion": "", "confidence": 0.8765}
    assert pipeline.stats.get_value("newsextract/extraction/single") == 1


def test_article_items_from_the_template_stage_pass_untouched(pipeline: ExtractionPipeline) -> None:
    article = article_item(page_item(b"x"), Article(url="u", body="b", method="rules"))
    assert pipeline.process_item(article) is article


@pytest.mark.parametrize(
    ("body", "stage_name", "reason"),
    [
        (b"", "decode", "empty response body"),
        (b"   \n ", "decode", "empty response body"),
        (bytes(range(256)) * 20, "decode", "not a document"),
    ],
)
def test_pages_that_are_no_documents_are_dropped(
    pipeline: ExtractionPipeline, body: bytes, stage_name: str, reason: str
) -> None:
    with pytest.raises(DropPage, match=reason) as dropped:
        pipeline.process_item(page_item(body))
    assert dropped.value.stage == stage_name


def test_a_page_without_main_text_is_dropped_as_an_extraction_failure(
    pipeline: ExtractionPipeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stage, "extract_article", fake_extractor("  \n "))
    with pytest.raises(DropPage, match="no main text") as dropped:
        pipeline.process_item(page_item(STORY.encode("cp932")))
    assert dropped.value.stage == "extraction"


def test_the_real_extractor_reads_a_shift_jis_page(pipeline: ExtractionPipeline) -> None:
    paragraph = "市議会は火曜日、新しい予算案を賛成多数で可決した。" * 6
    html = (
        "<html><head><meta charset='shift_jis'><title>記事</title></head>"
        f"<body><article><p>{paragraph}</p></article></body></html>"
    )
    item = pipeline.process_item(page_item(html.encode("cp932"), ""))
    assert isinstance(item, ArticleItem)
    assert "市議会は火曜日" in item.articleBody


# --- pages too complex to parse: element bombs ---------------------------------------------

#: ``<p>a`` 200,000 times (800 kB): an element bomb, small enough that the code before the
#: limit (2.9 GB and a minute for the 8 MB bomb of test_extraction_hostile.py) fails quickly.
BOMB = b"<html><body>" + b"<p>a" * 200_000


def test_an_element_bomb_is_dropped_as_too_complex_at_once(pipeline: ExtractionPipeline) -> None:
    started = time.monotonic()
    with pytest.raises(DropPage, match="page too complex") as dropped:
        pipeline.process_item(page_item(BOMB))
    assert time.monotonic() - started < 5
    assert dropped.value.stage == "too-complex"
    assert "more than the limit of 100,000 (NEWSEXTRACT_MAX_ELEMENTS)" in str(dropped.value)


@pytest.mark.parametrize(
    ("settings", "paragraphs", "setting"),
    [
        ({"NEWSEXTRACT_MAX_ELEMENTS": 50}, 48, "NEWSEXTRACT_MAX_ELEMENTS"),  # 50 tags: kept
        ({"NEWSEXTRACT_MAX_ELEMENTS": 50}, 49, "NEWSEXTRACT_MAX_ELEMENTS"),  # 51: dropped
        ({"NEWSEXTRACT_MAX_BLOCKS": 20}, 20, "NEWSEXTRACT_MAX_BLOCKS"),
        ({"NEWSEXTRACT_MAX_BLOCKS": 20}, 21, "NEWSEXTRACT_MAX_BLOCKS"),
    ],
)
def test_the_limits_are_settings(
    monkeypatch: pytest.MonkeyPatch, settings: dict[str, int], paragraphs: int, setting: str
) -> None:
    extract = lambda page, config: Article(url=page.url, body="b")  # noqa: E731
    monkeypatch.setattr(stage, "extract_article", extract)
    pipeline = ExtractionPipeline.from_crawler(get_crawler(settings_dict=settings))
    item = page_item(b"<html><body>" + b"<p>a sentence</p>" * paragraphs)
    if paragraphs in (48, 20):
        assert isinstance(pipeline.process_item(item), ArticleItem)
        return
    with pytest.raises(DropPage, match=setting) as dropped:
        pipeline.process_item(item)
    assert dropped.value.stage == "too-complex"


def test_a_dropped_page_is_logged_without_its_body(pipeline: ExtractionPipeline) -> None:
    item = page_item(BOMB)
    with pytest.raises(DropPage) as dropped:
        pipeline.process_item(item)
    crawler = get_crawler(Spider)
    spider = Spider.from_crawler(crawler, name="bombs")
    logged = LogFormatter().dropped(item, dropped.value, None, spider)
    line = str(logged["msg"]) % logged["args"]
    assert len(line) < 1000, line[:200]
    assert "http://127.0.0.1/article/1.html" in line and "<p>a<p>a" not in line


class RulesThatMustNotRun:
    """A site with rules for every kind, which a page over the limits never reaches."""

    def learn(self, pages: Any, kind: str = "article") -> None:
        raise AssertionError("learned from a page over the limits")

    def extract(self, page: Page, kind: str = "article") -> None:
        raise AssertionError("rules applied to a page over the limits")

    extract_light = extract

    def has_rules(self, kind: str) -> bool:
        return True

    def rule_version(self, kind: str) -> str:
        return "s/article/v1"


def test_the_template_stage_passes_an_element_bomb_on_to_be_recorded() -> None:
    config = learner_config(get_crawler(settings_dict={"NEWSEXTRACT_MAX_ELEMENTS": 1000}).settings)
    assert config.limits == PageLimits(max_elements=1000)
    learner = SiteLearner(_site_templates, LearnerConfig(rules_dir=None, limits=config.limits))
    item = page_item(b"<html><body>" + b"<p>a" * 2000)
    started = time.monotonic()
    verdict = learner.process(item)
    assert verdict.result is item and verdict.held is None and item.page is None
    assert time.monotonic() - started < 5


def test_the_rules_light_path_keeps_the_configured_limit() -> None:
    limits = PageLimits(max_elements=1000)  # under the default, which the light page keeps
    learner = SiteLearner(
        lambda site, rules_dir: RulesThatMustNotRun(), LearnerConfig(limits=limits)
    )
    item = page_item(b"<html><body>" + b"<p>a" * 2000)
    verdict = learner.process(item)
    assert verdict.result is item and item.page is None


def test_the_model_is_read_when_the_crawl_starts_not_on_its_first_page() -> None:
    default_model.cache_clear()
    ExtractionPipeline.from_crawler(get_crawler())
    assert default_model.cache_info().currsize == 1


def test_a_model_that_cannot_be_read_stops_no_crawl_at_its_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default_model.cache_clear()
    monkeypatch.setattr(classifier, "MODEL_FILE", "missing.json")
    try:
        ExtractionPipeline.from_crawler(get_crawler())  # each page meets the error, as before
        assert default_model.cache_info().currsize == 0
    finally:
        default_model.cache_clear()

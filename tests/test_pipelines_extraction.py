"""Single-page extraction as a pipeline stage: page in, article record out, or a drop with
the stage that failed."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy.utils.test import get_crawler

from newsextract.extraction import Article, Page
from newsextract.items import ArticleItem, PageItem
from newsextract.pipelines import DropPage
from newsextract.pipelines import extraction as stage
from newsextract.pipelines.extraction import ExtractionPipeline, article_item

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
    def extract(page: Page) -> Article:
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

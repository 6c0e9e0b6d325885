"""Single-page extraction (ITEM_PIPELINES 500): a fetched page becomes an article record.

Pages the template stage answered arrive as :class:`ArticleItem` and pass untouched.
A :class:`PageItem` is parsed by :func:`newsextract.extraction.parse_page` (which decodes
the raw bytes: BOM, HTTP header, meta charset, detection) and extracted by
:func:`newsextract.extraction.extract_article`. A page that is not a document, cannot be
decoded or has no main text is dropped with its stage, and so becomes a failure record.
"""

from __future__ import annotations

from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newsextract.exceptions import ExtractionError, NotHTMLError
from newsextract.extraction import Article, extract_article, parse_page
from newsextract.extraction.page import Page
from newsextract.items import ArticleItem, PageItem
from newsextract.pipelines import DropPage


def article_item(item: PageItem, article: Article) -> ArticleItem:
    """The record of an article, schema.org names, from the page it came from."""
    return ArticleItem(
        url=item.url,
        canonicalUrl=article.canonical_url,
        headline=article.headline,
        articleBody=article.body,
        datePublished=article.date_published,
        datePublishedRaw=article.date_published_raw,
        authors=list(article.authors),
        inLanguage=article.language or item.language,
        site=item.site,
        fetchedAt=item.fetched_at,
        extraction={
            "method": article.method,
            "ruleVersion": article.rule_version,
            "confidence": round(article.confidence, 4),
        },
    )


def parse_item(item: PageItem) -> Page:
    """The page model of a fetched page, or DropPage saying why there is none."""
    if item.page is not None:
        return item.page
    if not item.body.strip():
        raise DropPage("empty response body", stage="decode")
    try:
        return parse_page(item.body, item.url, item.content_type or None)
    except NotHTMLError as error:
        raise DropPage(f"not a document: {error}", stage="decode") from error
    except (UnicodeError, LookupError) as error:
        raise DropPage(f"cannot decode: {type(error).__name__}: {error}", stage="decode") from error


def extract_item(item: PageItem) -> ArticleItem:
    page = parse_item(item)
    try:
        article = extract_article(page)
    except ExtractionError as error:
        raise DropPage(f"no article: {error}", stage="extraction") from error
    if not article.body.strip():
        raise DropPage("no main text found", stage="extraction")
    return article_item(item, article)


class ExtractionPipeline:
    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExtractionPipeline:
        if not crawler.settings.getbool("NEWSEXTRACT_EXTRACTION_ENABLED", True):
            raise NotConfigured("NEWSEXTRACT_EXTRACTION_ENABLED is off")
        assert crawler.stats is not None
        return cls(crawler.stats)

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem):
            return item
        article = extract_item(item)
        self.stats.inc_value(f"newsextract/extraction/{article.extraction['method'] or 'unknown'}")
        return article

"""Single-page extraction (ITEM_PIPELINES 500): a fetched page becomes an article record.

Pages the template stage answered arrive as :class:`ArticleItem` and pass untouched.
A :class:`PageItem` is parsed by :func:`newsextract.extraction.parse_page` (which decodes
the raw bytes: BOM, HTTP header, meta charset, detection) and extracted by
:func:`newsextract.extraction.extract_article`. A page that is not a document, cannot be
decoded, is too complex or has no main text is dropped with its stage, and so becomes a
failure record. A crawl collects articles: a page without one never answers its main region
(``CombinerConfig.main_region``) as one-off pages do.

Settings (all optional):

``NEWSEXTRACT_EXTRACTION_ENABLED`` (bool, default True)
    False switches the stage off.
``NEWSEXTRACT_MAX_ELEMENTS`` (int, default 100,000)
    Tags a page may hold (``newsextract.extraction.pagemodel.page.MAX_ELEMENTS_DEFAULT``); a
    page with more (an element bomb: ``<p>`` two million times) is refused before it is parsed and
    becomes a ``too-complex`` failure record. The template stage uses the same bound.
``NEWSEXTRACT_MAX_BLOCKS`` (int, default 30,000)
    Blocks a page may be cut into (``MAX_BLOCKS_DEFAULT``); a page with more is refused as
    ``too-complex`` before any method scores it.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings
from scrapy.statscollectors import StatsCollector

from newsextract.exceptions import ExtractionError, NotHTMLError, PageTooComplexError
from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.decision.combiner import CombinerConfig
from newsextract.extraction.evidence.classifier import default_model
from newsextract.extraction.pagemodel.page import (
    DEFAULT_LIMITS,
    MAX_BLOCKS_DEFAULT,
    MAX_ELEMENTS_DEFAULT,
    Page,
    PageLimits,
)
from newsextract.items import ArticleItem, PageItem
from newsextract.items import article_item as article_item  # its home before items.py
from newsextract.pipelines import DropPage

#: The single-page answer of a crawl: articles, never a page's main region in their place.
ARTICLES_ONLY = CombinerConfig(main_region=False)


def page_limits(settings: BaseSettings) -> PageLimits:
    """``NEWSEXTRACT_MAX_ELEMENTS`` and ``NEWSEXTRACT_MAX_BLOCKS`` (see the module's docstring)."""
    return PageLimits(
        max_elements=max(1, settings.getint("NEWSEXTRACT_MAX_ELEMENTS", MAX_ELEMENTS_DEFAULT)),
        max_blocks=max(1, settings.getint("NEWSEXTRACT_MAX_BLOCKS", MAX_BLOCKS_DEFAULT)),
    )


#: What a too-complex page's failure record says, by the limit it broke.
_LIMIT_SETTINGS = {"tags": "NEWSEXTRACT_MAX_ELEMENTS", "blocks": "NEWSEXTRACT_MAX_BLOCKS"}


def parse_item(item: PageItem, limits: PageLimits = DEFAULT_LIMITS) -> Page:
    """The page model of a fetched page, or DropPage saying why there is none."""
    if item.page is not None:
        return item.page
    if not item.body.strip():
        raise DropPage("empty response body", stage="decode")
    try:
        return parse_page(item.body, item.url, item.content_type or None, limits=limits)
    except NotHTMLError as error:
        raise DropPage(f"not a document: {error}", stage="decode") from error
    except PageTooComplexError as error:
        setting = _LIMIT_SETTINGS.get(error.what, "")
        raise DropPage(f"{error} ({setting})", stage="too-complex") from error
    except (UnicodeError, LookupError) as error:
        raise DropPage(f"cannot decode: {type(error).__name__}: {error}", stage="decode") from error


def extract_item(item: PageItem, limits: PageLimits = DEFAULT_LIMITS) -> ArticleItem:
    page = parse_item(item, limits)
    try:
        article = extract_article(page, ARTICLES_ONLY)
    except ExtractionError as error:
        raise DropPage(f"no article: {error}", stage="extraction") from error
    if not article.body.strip():
        raise DropPage("no main text found", stage="extraction")
    return article_item(item, article)


def read_model_early() -> None:
    """Read the shipped model as the crawl starts (30 ms), not on its first page. A model that
    cannot be read fails each page as it did, with a failure record saying why."""
    with suppress(Exception):
        default_model()


class ExtractionPipeline:
    def __init__(self, stats: StatsCollector, limits: PageLimits = DEFAULT_LIMITS) -> None:
        self.stats = stats
        self.limits = limits

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExtractionPipeline:
        if not crawler.settings.getbool("NEWSEXTRACT_EXTRACTION_ENABLED", True):
            raise NotConfigured("NEWSEXTRACT_EXTRACTION_ENABLED is off")
        assert crawler.stats is not None
        read_model_early()
        return cls(crawler.stats, page_limits(crawler.settings))

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem):
            return item
        article = extract_item(item, self.limits)
        self.stats.inc_value(f"newsextract/extraction/{article.extraction['method'] or 'unknown'}")
        return article

"""Single-page extraction: pure functions over a parsed page, no Scrapy import."""

from newsextract.extraction.combiner import extract_article
from newsextract.extraction.page import Page, parse_page
from newsextract.extraction.result import Article, MethodResult

__all__ = ["Article", "MethodResult", "Page", "extract_article", "parse_page"]

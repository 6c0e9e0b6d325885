"""Single-page extraction: pure functions over a parsed page, no Scrapy import.

The package is laid out by stage, in the order the data goes (nothing imports a later stage):

- ``pagemodel``: decode, parse, clean, blocks and the block table (the compiled walk);
- ``evidence``: layout and wording features, stop lists, the classifiers, methods C and D;
- ``decision``: the combiner, regions and the rules after the classifier;
- ``record``: the article record, its metadata and headline.
"""

from newsextract.extraction.evidence.method import MethodResult
from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.extraction.record.article import Article, extract_article

__all__ = ["Article", "MethodResult", "Page", "extract_article", "parse_page"]

"""Extract one saved page's article: the body text, or the whole record as JSON.

The record is built by the crawl's own record builder
(:func:`newsextract.pipelines.extraction.article_item`) and serialised as the feeds serialise
it, so ``extract --json`` and ``batch`` give the fields of a crawl's records.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from newsextract.evaluation.runner import failure_reason
from newsextract.exceptions import NewsExtractError
from newsextract.extraction import Article, extract_article, parse_page

if TYPE_CHECKING:
    from newsextract.items import ArticleItem

DESCRIPTION = """\
Extract the article of one saved page (.html or .html.gz) and print its main text, one
paragraph a line, or with --json the whole article record, with the fields of a crawl's
records.

Exit status: 0 an article was read, 1 the page gave none, 2 the page could not be read."""

EPILOG = """\
examples:
  newsextract extract page.html
  newsextract extract page.html.gz --url https://example.org/news/1.html --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", type=Path, help="a saved HTML page (.html or .html.gz)")
    parser.add_argument(
        "--url", help="the page's URL, if known: it helps the metadata and fills the record's url"
    )
    parser.add_argument(
        "--content-type", help="the HTTP Content-Type header, if known (its charset wins)"
    )
    parser.add_argument("--json", action="store_true", help="print the whole record as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        body = read_page_file(args.page)
    except (OSError, EOFError, zlib.error) as error:
        print(f"newsextract extract: cannot read {args.page}: {error}", file=sys.stderr)
        return 2
    try:
        article = extract_article(parse_page(body, args.url, args.content_type))
    except NewsExtractError as error:
        print(f"newsextract extract: {args.page}: {failure_reason(error)}", file=sys.stderr)
        return 1
    if args.json:
        record = article_record(article, args.url)
        print(json.dumps(record, ensure_ascii=False, indent=2))
    elif article.body:
        print(article.body)
    return 0


def read_page_file(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def article_record(article: Article, url: str | None) -> dict[str, Any]:
    """The record a crawl would export for this article (a missing field is None)."""
    from newsextract.exporters import record_dict  # imports Scrapy: see saved_page_item

    return record_dict(saved_page_item(article, url))


def saved_page_item(
    article: Article,
    url: str | None,
    site: str | None = None,
    language: str = "",
    fetched_at: str = "",
) -> ArticleItem:
    """The article item of a saved page, built as a crawl builds it. ``site`` is the host
    name of ``url`` unless given; ``fetched_at``: when the page was fetched, if known."""
    # Scrapy takes a second to import: only the commands that write records pay for it.
    from newsextract.items import PageItem
    from newsextract.pipelines.extraction import article_item

    if site is None:
        site = (urlsplit(url).hostname or "") if url else ""
    page = PageItem(
        url=url or "",
        body=b"",  # the record builder reads the page's context, never its bytes
        content_type="",
        status=0,
        site=site,
        fetched_at=fetched_at,
        language=language,
    )
    return article_item(page, article)

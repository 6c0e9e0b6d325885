"""``newsextract extract``: one saved page's article, the body text or the whole record as
JSON (:mod:`newsextract.records`: the fields of a crawl's records)."""

from __future__ import annotations

import argparse
import gzip
import sys
import zlib
from pathlib import Path

from newsextract.exceptions import NewsExtractError, failure_reason
from newsextract.extraction import extract_article, parse_page

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
        body = args.page.read_bytes()  # as apply reads it: evaluation.dataset costs 1 ms to import
        body = gzip.decompress(body) if args.page.suffix == ".gz" else body
    except (OSError, EOFError, zlib.error) as error:
        print(f"newsextract extract: cannot read {args.page}: {error}", file=sys.stderr)
        return 2
    try:
        article = extract_article(parse_page(body, args.url, args.content_type))
    except NewsExtractError as error:
        print(f"newsextract extract: {args.page}: {failure_reason(error)}", file=sys.stderr)
        return 1
    if args.json:
        import json

        from newsextract.records import article_record  # the record's fields: only for --json

        record = article_record(article, args.url)
        print(json.dumps(record, ensure_ascii=False, indent=2))
    elif article.body:
        print(article.body)
    return 0

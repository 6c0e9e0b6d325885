"""Extract one saved page's article: the body text, or the whole record as JSON."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

from newsextract.exceptions import NewsExtractError
from newsextract.extraction import Article, extract_article, parse_page


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", type=Path, help="a saved HTML page (.html or .html.gz)")
    parser.add_argument("--url", help="the page's URL, if known (helps metadata)")
    parser.add_argument(
        "--content-type", help="the HTTP Content-Type header, if known (its charset wins)"
    )
    parser.add_argument("--json", action="store_true", help="print the whole record as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        body = read_page_file(args.page)
    except OSError as error:
        print(f"newsextract extract: cannot read {args.page}: {error}", file=sys.stderr)
        return 2
    try:
        article = extract_article(parse_page(body, args.url, args.content_type))
    except NewsExtractError as error:
        print(f"newsextract extract: {args.page}: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(article_record(article), ensure_ascii=False, indent=2))
    elif article.body:
        print(article.body)
    return 0


def read_page_file(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def article_record(article: Article) -> dict[str, Any]:
    """The article under schema.org names, as the crawl exports it."""
    return {
        "url": article.url,
        "canonicalUrl": article.canonical_url,
        "headline": article.headline,
        "articleBody": article.body,
        "datePublished": article.date_published,
        "datePublishedRaw": article.date_published_raw,
        "authors": list(article.authors),
        "inLanguage": article.language,
        "extraction": {
            "method": article.method,
            "ruleVersion": article.rule_version,
            "confidence": round(article.confidence, 4),
            "keptBlocks": list(article.kept_blocks),
        },
    }

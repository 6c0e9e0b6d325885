"""Apply a saved rule file to a page and print the article it gives.

    newsextract apply rules.xml PAGE [--kind article] [--json]

With ``--kind listing`` it prints the records (title, tab, link) of a listing page. An
article is read from a light page first (:mod:`newsextract.templates.fastpath`); the full page
model is built only when that gives no validated answer.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from dataclasses import asdict
from pathlib import Path

from newsextract.exceptions import NewsExtractError
from newsextract.extraction.pagemodel.page import parse_page
from newsextract.extraction.record.article import Article
from newsextract.templates.site import LISTING_KIND, SiteTemplates
from newsextract.templates.store import current_version, read_rule_file

DESCRIPTION = """\
Apply a saved rule file to a saved page and print the article the rules give: the headline,
a blank line, then the main text; or, with --kind listing, one line a record of a listing
page (title, a tab, the link).

Exit status: 0 the rules gave an answer, 1 they gave none, 2 a file could not be read."""

EPILOG = """\
examples:
  newsextract apply rules.xml page.html
  newsextract apply rules.xml page.html.gz --json
  newsextract apply rules.xml section.html --kind listing
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rules", type=Path, help="an XML rule file")
    parser.add_argument("page", type=Path, help="a saved HTML page (.html or .html.gz)")
    parser.add_argument("--kind", default="article", help="the page kind the rules are for")
    parser.add_argument("--json", action="store_true", help="print the article as JSON")


def run(args: argparse.Namespace) -> int:
    url = args.page.resolve().as_uri()
    try:
        versions = read_rule_file(args.rules)
        data = args.page.read_bytes()
        data = gzip.decompress(data) if args.page.suffix == ".gz" else data
    except (OSError, EOFError, NewsExtractError) as error:  # EOFError: a truncated .gz
        print(f"newsextract apply: {error}", file=sys.stderr)
        return 2
    site = versions[0].site if versions else args.rules.name.split(".")[0]
    templates = SiteTemplates.from_versions(site, versions)
    if current_version([v for v in versions if v.kind == args.kind]) is None:
        print(f"newsextract apply: no current {args.kind} rules in {args.rules}", file=sys.stderr)
        return 1
    try:
        if args.kind == LISTING_KIND:
            for record in templates.records(parse_page(data, url), args.kind):
                print(f"{record.title}\t{record.link}")
            return 0
        article = _article(templates, data, url, args.kind)
    except NewsExtractError as error:
        print(f"newsextract apply: {error}", file=sys.stderr)
        return 2
    if article is None:
        print(f"newsextract apply: rules failed: {templates.last_verdict.reason}", file=sys.stderr)
        return 1
    if args.json:
        fields = asdict(article)
        fields.pop("kept_blocks")
        print(json.dumps(fields, ensure_ascii=False, indent=2))
    else:
        print(article.headline, article.body, sep="\n\n")
    return 0


def _article(templates: SiteTemplates, data: bytes, url: str, kind: str) -> Article | None:
    """The light page's answer, else the full page model's."""
    article = templates.extract_raw(data, url, kind=kind)
    return article if article is not None else templates.extract(parse_page(data, url), kind)

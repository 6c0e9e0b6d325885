"""Apply a saved rule file to a page and print the article it gives.

    newsextract apply rules.xml PAGE [--kind article] [--json]

With ``--kind listing`` it prints the records (title, tab, link) of a listing page.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from newsextract.exceptions import NewsExtractError
from newsextract.templates.induce_command import read_page
from newsextract.templates.site import LISTING_KIND, SiteTemplates
from newsextract.templates.store import current_version, parse_rules


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rules", type=Path, help="an XML rule file")
    parser.add_argument("page", type=Path, help="a saved HTML page")
    parser.add_argument("--kind", default="article", help="page kind (default: article)")
    parser.add_argument("--json", action="store_true", help="print the article as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        versions = parse_rules(args.rules.read_bytes(), str(args.rules))
        page = read_page(args.page)
    except (OSError, NewsExtractError) as error:
        print(f"newsextract apply: {error}", file=sys.stderr)
        return 2
    site = versions[0].site if versions else args.rules.name.split(".")[0]
    templates = SiteTemplates.from_versions(site, versions)
    if current_version([v for v in versions if v.kind == args.kind]) is None:
        print(f"newsextract apply: no current {args.kind} rules in {args.rules}", file=sys.stderr)
        return 1
    if args.kind == LISTING_KIND:
        for record in templates.records(page, args.kind):
            print(f"{record.title}\t{record.link}")
        return 0
    article = templates.extract(page, args.kind)
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

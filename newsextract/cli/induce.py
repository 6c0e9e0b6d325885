"""Learn extraction rules from pages of one site and kind, and write them as an XML rule file.

newsextract induce PAGE... --out rules.xml [--site NAME] [--kind article] [--template-only]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from newsextract.exceptions import NewsExtractError, RuleFileError
from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.progress import track
from newsextract.templates.config import TemplateConfig
from newsextract.templates.induce import induce
from newsextract.templates.store import RuleStore

DESCRIPTION = """\
Learn extraction rules from saved pages of one site and one page kind (two or more pages
that share the site's layout) and add them, as a new version, to an XML rule file a person
can read and edit.

Exit status: 0 rules written, 1 no template found in the pages, 2 a file could not be read
or written."""

EPILOG = """\
examples:
  newsextract induce page1.html page2.html page3.html --out example.org.rules.xml
  newsextract induce saved/*.html.gz --out rules.xml --site example.org
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pages", nargs="+", type=Path, help="saved HTML pages (two or more)")
    parser.add_argument(
        "--out", type=Path, required=True, help="the rule file to write (or add a version to)"
    )
    parser.add_argument(
        "--site", default="", help="site name (default: the --out file name up to its first dot)"
    )
    parser.add_argument("--kind", default="article", help="the page kind the rules are for")
    parser.add_argument(
        "--template-only",
        action="store_true",
        help="learn from the pages' template alone, without the single-page answer's veto",
    )
    parser.add_argument("--quiet", action="store_true", help="show no progress")


def read_page(path: Path) -> Page:
    import gzip

    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return parse_page(data, path.resolve().as_uri())


def run(args: argparse.Namespace) -> int:
    try:
        pages = [read_page(path) for path in track(args.pages, quiet=args.quiet)]
    except (OSError, EOFError, NewsExtractError) as error:  # EOFError: a truncated .gz
        print(f"newsextract induce: {error}", file=sys.stderr)
        return 2
    site = args.site or args.out.name.split(".")[0]
    config = TemplateConfig(single_page_veto=not args.template_only)
    induction = induce(pages, site, args.kind, config)
    if induction.version is None:
        print("newsextract induce: no template found in these pages", file=sys.stderr)
        return 1
    store = RuleStore(args.out.parent, file=args.out)
    try:
        saved = store.add_version(site, induction.version)
    except RuleFileError as error:
        print(f"newsextract induce: {error}", file=sys.stderr)
        return 2
    print(
        f"{saved.label}: {len(saved.bodies)} body rule(s), {len(saved.fields)} field rule(s), "
        f"learned in {induction.seconds:.2f} s -> {args.out}"
    )
    return 0

"""Write an annotated view of one saved page: what was kept, what was dropped, and why.

    newsextract show PAGE.html [--url URL] [--rules FILE | --rules-dir DIR] --out view.html

The view (:mod:`newsextract.views.page_view`, written by :mod:`newsextract.views.view_file`)
is one self-contained HTML file: the page as its reader sees it, with the body blocks and the
dropped ones in two colours, the headline, date and authors boxed, and a side panel with the
record and every block's score. Rules are only read: nothing is written to a rules directory.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path

from newsextract.evaluation.dataset import read_page_file
from newsextract.exceptions import NewsExtractError, failure_reason
from newsextract.views.view_file import load_templates, write_view

DESCRIPTION = """\
Write an annotated view of a saved page (.html or .html.gz): the page as its reader sees
it, body blocks in green, dropped blocks in red, the headline, date and authors boxed, and a
side panel with the article record, each block's score and a legend. With rules, the rule's
region is outlined and each block says which rule kept or dropped it.

The view is one file that runs none of the page's scripts and loads nothing from elsewhere.

Exit status: 0 the view was written, 2 a file could not be read or written."""

EPILOG = """\
examples:
  newsextract show page.html --out view.html
  newsextract show page.html --url https://example.org/1.html --rules-dir rules --out v.html
  newsextract show page.html.gz --rules example.org.rules.xml --out view.html
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", type=Path, help="a saved HTML page (.html or .html.gz)")
    parser.add_argument("--url", help="the page's URL, if known (with --rules-dir: names the site)")
    parser.add_argument("--content-type", help="the HTTP Content-Type header, if known")
    rules = parser.add_mutually_exclusive_group()
    rules.add_argument("--rules", type=Path, help="an XML rule file to apply")
    rules.add_argument("--rules-dir", type=Path, help="a rules folder: the site's file is used")
    parser.add_argument(
        "--site", help="the site whose rules --rules-dir holds (default: the URL's host)"
    )
    parser.add_argument(
        "--kind",
        help='the page kind of the rules (default "article", else the first kind with a body rule)',
    )
    parser.add_argument("--out", type=Path, required=True, help="the view to write (.html)")


def run(args: argparse.Namespace) -> int:
    try:
        body = read_page_file(args.page)
        templates, kind = load_templates(args.rules, args.rules_dir, args.site, args.url, args.kind)
    except (OSError, EOFError, zlib.error, NewsExtractError) as error:
        print(f"newsextract show: {error}", file=sys.stderr)
        return 2
    try:
        summary = write_view(body, args.url, args.out, templates, args.content_type, kind)
    except OSError as error:
        print(f"newsextract show: cannot write {args.out}: {error}", file=sys.stderr)
        return 2
    except NewsExtractError as error:
        print(f"newsextract show: {args.page}: {failure_reason(error)}", file=sys.stderr)
        return 2
    print(
        f"newsextract show: {args.out} ({summary.kept} of {summary.blocks} blocks kept, "
        f"method {summary.method or '-'}, {summary.seconds:.2f} s)"
    )
    return 0

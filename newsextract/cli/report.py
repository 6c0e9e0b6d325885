"""Write an HTML report of a crawl's data directory (:mod:`newsextract.views.report`).

newsextract report DATA_DIR --out report.html [--articles FEED.jsonl] [--log crawl.log]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from newsextract.views.report import read_report, render_report

DESCRIPTION = """\
Write an HTML report of a crawl's data directory: for each site, its rule versions (when
each was valid and from how many pages it was learned), its failure records by stage and,
if the state store exists, how many URLs were harvested. An article feed (--articles) adds
the articles by extraction method, a crawl log (--log) the template stage's counters.

Nothing in the data directory is changed. Exit status: 0 written, 2 it could not be."""

EPILOG = """\
examples:
  newsextract report data --out report.html
  newsextract report data --articles asahi.jsonl --log crawl.log --out report.html
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data_dir", type=Path, help="the crawl's data directory")
    parser.add_argument("--out", type=Path, required=True, help="the report to write (.html)")
    parser.add_argument(
        "--articles", type=Path, action="append", default=[], help="an article feed (JSONL)"
    )
    parser.add_argument("--log", type=Path, help="a crawl log, for its stats dump")


def run(args: argparse.Namespace) -> int:
    if not args.data_dir.is_dir():
        print(f"newsextract report: {args.data_dir}: not a directory", file=sys.stderr)
        return 2
    report = read_report(args.data_dir, args.articles, args.log)
    try:
        args.out.write_text(render_report(report), encoding="utf-8")
    except OSError as error:
        print(f"newsextract report: cannot write {args.out}: {error}", file=sys.stderr)
        return 2
    print(f"newsextract report: {args.out} ({len(report.sites)} sites)")
    return 0

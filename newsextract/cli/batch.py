"""``newsextract batch``: saved pages, or the pages of web archives, into article records.

The work is :mod:`newsextract.batch` (saved pages) and :mod:`newsextract.warc.batch` (web
archives); this module reads the command line, and says what happened.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from newsextract.batch import BatchError
from newsextract.batch.interrupt import StopOnInterrupt
from newsextract.batch.output import BatchOutput
from newsextract.batch.pages import mode_warnings, read_pages, units
from newsextract.batch.workers import WorkerPool
from newsextract.cli import EXIT_INTERRUPTED
from newsextract.evaluation.dataset import ManifestEntry, ManifestError
from newsextract.evaluation.outcome import PageOutcome
from newsextract.progress import progress

if TYPE_CHECKING:  # the web archives' module imports Scrapy: only --warc pays for it
    from newsextract.warc.batch import ArchiveFiles, ArchiveOutput

DESCRIPTION = """\
Extract the article of every saved page and write, in the --out folder:
  <id>.txt          each page's main text, one paragraph a line (empty if it gave none)
  _articles.jsonl   the article records, with the fields of a crawl's records
                    (_articles.xml with --format xml)
  _errors.jsonl     one line for each page that gave no article, with the reason

The pages are a folder of saved pages (*.html, *.html.gz, searched in subfolders too; a
page's id is its path there without the suffix), a manifest (one JSON object a line, with
"html" the page file relative to the manifest and optionally "id", "url", "lang" and the
field --group-by names; see the README), or - to read a list of page files from standard
input, one a line, each optionally followed by a tab and the page's URL.

The pages are read by --workers processes (a site's pages, in site and rules modes, by one);
the files are those of a run with one, byte for byte. Each page's result is written as soon
as its turn comes. Ctrl-C stops the run after the pages written so far, which stay written.

Exit status: 0 every page gave an article, 1 some pages gave none, 2 bad arguments or
input (nothing is extracted), 130 interrupted."""

EPILOG = """\
examples:
  newsextract batch saved-pages/ --out out/
  newsextract batch pages/manifest.jsonl --out out/ --format xml --with-headline
  find saved-pages -name '*.html' | newsextract batch - --out out/
  newsextract batch pages/manifest.jsonl --out out/ --mode site --rules-dir rules/
  newsextract batch more-pages/manifest.jsonl --out out2/ --mode rules --rules-dir rules/
  newsextract batch --warc warc/site-*.warc.gz --out articles.jsonl --mode site
  newsextract batch saved-pages/ --out out/ --workers 1
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "pages",
        metavar="PAGES",
        nargs="?",
        help="a folder of saved pages (or one saved page), a manifest.jsonl (or a folder "
        "holding one), or - for a list of page files on standard input",
    )
    parser.add_argument(
        "--warc",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="read the pages of these web archives (.warc.gz or .warc; the files a crawl "
        "rotated, in their order, are read as one) instead of PAGES; --out "
        "is then the records file, with the failures beside it (<stem>.failures.jsonl); "
        "--mode site then replays the crawl's template stage on the archive's pages in their "
        "order (--group-by is not used): a crawl's archive gives the crawl's bodies again",
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="folder to write into (created if missing)"
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "xml"),
        default="jsonl",
        help="format of the article records",
    )
    parser.add_argument(
        "--mode",
        choices=("single", "site", "rules"),
        default="single",
        help="single: each page alone; site: learn each site's template from its pages "
        "(grouped by --group-by) and read them with it; rules: only apply the rules saved "
        "in --rules-dir, as a later crawl does",
    )
    parser.add_argument(
        "--group-by",
        default="domain",
        help="the manifest field whose value is a page's site, in site and rules modes (pages "
        "listed with a URL on standard input have domain, the URL's host name)",
    )
    parser.add_argument(
        "--rules-dir",
        type=Path,
        help="folder of saved rules: rules mode reads them there (required in that mode), site "
        "mode saves there what it learns (default: keep nothing)",
    )
    parser.add_argument(
        "--with-headline",
        action="store_true",
        help="write the headline as each .txt file's first line",
    )
    parser.add_argument(
        "--workers",
        type=_positive,
        default=os.cpu_count() or 1,
        help="processes reading pages (the machine's cores; --warc --mode site uses one)",
    )
    parser.add_argument("--quiet", action="store_true", help="show no progress")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: at least 1")
    return value


def run(args: argparse.Namespace) -> int:
    if (args.pages is None) == (args.warc is None):
        _say("give either PAGES or --warc FILE")
        return 2
    if args.warc is not None:
        return run_warc(args)
    output: BatchOutput | None = None
    try:
        with StopOnInterrupt() as stop, WorkerPool(args.workers, stop.deferred) as pool:
            try:
                entries = read_pages(args.pages, sys.stdin)
                work = units(entries, args.mode, args.group_by, args.rules_dir)
                output = BatchOutput.open(args.out, args.format, args.with_headline)
            except (ManifestError, BatchError) as error:
                _say(str(error))
                return 2
            for warning in mode_warnings(entries, args.mode, args.group_by):
                _say(f"warning: {warning}")
            return _extract(args, entries, pool.outcomes(work), output, stop)
    except KeyboardInterrupt:
        pages, failed = (output.pages, output.failed) if output else (0, 0)
        _say(f"interrupted after {pages} pages ({failed} failed) -> {args.out}")
        return EXIT_INTERRUPTED


def _extract(
    args: argparse.Namespace,
    entries: Sequence[ManifestEntry],
    outcomes: Iterable[PageOutcome],
    output: BatchOutput,
    stop: StopOnInterrupt,
) -> int:
    try:
        with progress(len(entries), "pages", quiet=args.quiet) as bar:
            for outcome in outcomes:
                with stop.deferred():
                    output.write(outcome)
                bar.update()
    finally:
        with stop.deferred():
            output.close()  # the XML root element is closed even on Ctrl-C
    print(f"{output.pages} pages, {output.failed} failed -> {args.out}", file=sys.stderr)
    return 1 if output.failed else 0


def run_warc(args: argparse.Namespace) -> int:
    """``--warc``: exit status 0 articles were written (whatever failed is in the failures
    file), 1 none, 2 the archive or the output cannot be opened."""
    from newsextract.recordfile import RecordFile
    from newsextract.warc import batch

    archives, out = [Path(path) for path in args.warc], Path(args.out)
    for archive in archives:
        if not archive.is_file():
            return _said(f"--warc {archive}: no such file", 2)
    if out.is_dir():
        return _said(f"--out {out}: with --warc, the records file (e.g. out.jsonl)", 2)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        failures = batch.failures_path(out).open("w", encoding="utf-8")
        records = RecordFile(out, args.format)
    except OSError as error:
        return _said(f"--out {out}: {error.strerror or error}", 2)
    reader = batch.ArchiveFiles(archives)
    output = batch.ArchiveOutput(records, failures)
    try:
        with StopOnInterrupt() as stop:
            output.uninterrupted = stop.deferred
            try:
                _write_archive(args, reader, output)
            finally:
                with stop.deferred():  # the files are closed (XML: its root too) even on Ctrl-C
                    records.close()
                    failures.close()
    except BatchError as error:
        return _said(str(error), 2)
    except KeyboardInterrupt:
        done = f"{output.articles} articles, {output.failed} failures"
        return _said(f"interrupted after {done} -> {out}", EXIT_INTERRUPTED)
    other = f", {output.skipped} listings, sitemaps or feeds left out" if output.skipped else ""
    print(f"{output.articles} articles, {output.failed} failures{other} -> {out}", file=sys.stderr)
    return 0 if output.articles else 1


def _write_archive(args: argparse.Namespace, reader: ArchiveFiles, output: ArchiveOutput) -> None:
    from newsextract.warc import batch

    pages = batch.article_pages(reader, output)
    if args.mode == "site":
        for replayed in batch.replayed(pages, reader, args.rules_dir):
            output.write_replayed(replayed)
    else:
        with WorkerPool(args.workers, output.uninterrupted) as pool:
            mode, group_by, rules_dir = args.mode, args.group_by, args.rules_dir
            for outcome in batch.archive_outcomes(pages, mode, group_by, rules_dir, pool):
                output.write(outcome)
    for damage in reader.damages:
        output.fail("", "", "archive", damage)
        _said(f"{damage}; the records before it were read", 0)


def _say(message: str) -> None:
    print(f"newsextract batch: {message}", file=sys.stderr)


def _said(message: str, status: int) -> int:
    _say(message)
    return status

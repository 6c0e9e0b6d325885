"""Extract saved pages into article records and one text file a page (gold text is never read).

The pages come from a manifest, a folder of saved pages or a list on standard input
(:mod:`newsextract.evaluation.dataset`). Every page's result is written as soon as it is done
(:class:`BatchOutput`), so an interrupted run keeps what it did. Modes ``site`` and ``rules``
hand the pages to the template stage: ``site`` learns each group's template from its pages
(:mod:`newsextract.templates.sitemode`, one group at a time), ``rules`` only applies the rules
saved in ``--rules-dir``, as a later crawl does (:mod:`newsextract.templates.rulesmode`).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any, TextIO

from newsextract.evaluation import runner
from newsextract.evaluation.conventions import with_headline
from newsextract.evaluation.dataset import (
    ManifestEntry,
    ManifestError,
    group_entries,
    is_saved_page,
    manifest_path,
    read_manifest,
    read_page_folder,
    read_page_list,
)
from newsextract.evaluation.extract_command import saved_page_item
from newsextract.evaluation.outcome import PageOutcome
from newsextract.progress import progress

if TYPE_CHECKING:
    from newsextract.exporters import RecordFile

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

Each page's result is written as soon as it is done. Ctrl-C stops the run after the pages
done so far, which stay written.

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
"""

ERRORS_FILE = "_errors.jsonl"
RECORDS_FILE = "_articles"  # + ".jsonl" or ".xml"
RULE_FILES = "*.rules.xml"  # newsextract.templates.store.site_file
#: The exit status of a run stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130
NO_MAIN_TEXT = "no main text found"


class BatchError(Exception):
    """A run that cannot start: its message is one line for the user."""


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
    parser.add_argument("--quiet", action="store_true", help="show no progress")


def run(args: argparse.Namespace) -> int:
    if (args.pages is None) == (args.warc is None):
        _say("give either PAGES or --warc FILE")
        return 2
    if args.warc is not None:
        from newsextract.warc.batch import run as run_warc

        return run_warc(args)
    output: BatchOutput | None = None
    try:
        with StopOnInterrupt() as stop:
            try:
                entries = read_pages(args.pages, sys.stdin)
                outcomes = page_outcomes(entries, args.mode, args.group_by, args.rules_dir)
                output = BatchOutput.open(args.out, args.format, args.with_headline)
            except (ManifestError, BatchError) as error:
                _say(str(error))
                return 2
            return _extract(args, entries, outcomes, output, stop)
    except KeyboardInterrupt:
        pages, failed = (output.pages, output.failed) if output else (0, 0)
        _say(f"interrupted after {pages} pages ({failed} failed) -> {args.out}")
        return EXIT_INTERRUPTED


def _extract(
    args: argparse.Namespace,
    entries: Sequence[ManifestEntry],
    outcomes: Iterator[PageOutcome],
    output: BatchOutput,
    stop: StopOnInterrupt,
) -> int:
    for warning in mode_warnings(entries, args.mode, args.group_by):
        _say(f"warning: {warning}")
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


def _say(message: str) -> None:
    print(f"newsextract batch: {message}", file=sys.stderr)


# -- the pages ---------------------------------------------------------------------------------


def read_pages(source: str, stdin: TextIO) -> list[ManifestEntry]:
    """The pages of a manifest, of a folder of saved pages (without a manifest), or of the
    list on standard input (``-``); raise :class:`ManifestError` or :class:`BatchError`."""
    if source == "-":
        entries, empty = read_page_list(stdin), "the list on standard input names no page"
    elif Path(source).is_dir() and not manifest_path(source).exists():
        entries = read_page_folder(Path(source))
        empty = f"{source}: no manifest.jsonl and no saved pages (*.html, *.html.gz) here"
    elif is_saved_page(Path(source)):
        entries, empty = read_page_list([source], origin=source), ""
    else:
        entries, empty = list(read_manifest(source)), f"{manifest_path(source)}: no pages"
    if not entries:
        raise BatchError(empty)
    _check_unique_ids(entries)
    return entries


def _check_unique_ids(entries: Sequence[ManifestEntry]) -> None:
    """Two pages with one id would write one output file."""
    seen: dict[str, ManifestEntry] = {}
    for entry in entries:
        first = seen.setdefault(entry.id, entry)
        if first is not entry:
            raise ManifestError(f"{entry.origin}: id {entry.id!r} again (first: {first.origin})")


# -- the outcomes ------------------------------------------------------------------------------


def page_outcomes(
    entries: Sequence[ManifestEntry], mode: str, group_by: str, rules_dir: Path | None
) -> Iterator[PageOutcome]:
    """Every page's outcome, one at a time (site mode: one site at a time). What the mode
    needs is checked here, before the first page is read."""
    if mode == "rules":
        return _rules_outcomes(entries, group_by, rules_dir)
    if mode == "site":
        return _site_outcomes(entries, group_by, rules_dir)
    method = runner.load_method("combined")  # looked up at call time: tests replace it
    return (runner.extract_one(entry, method, "combined") for entry in entries)


def mode_warnings(entries: Sequence[ManifestEntry], mode: str, group_by: str) -> list[str]:
    if mode == "site" and not any(entry.fields.get(group_by) for entry in entries):
        return [
            f"no page has the field {group_by!r} (--group-by): with no sites to learn from, "
            "every page is read alone, as in single mode"
        ]
    return []


def _site_outcomes(
    entries: Sequence[ManifestEntry], group_by: str, rules_dir: Path | None
) -> Iterator[PageOutcome]:
    extract_site_mode = load_site_mode()

    def outcomes() -> Iterator[PageOutcome]:
        for members in group_entries(entries, group_by).values():
            try:
                site_outcomes, _ = extract_site_mode(
                    members, group_by=group_by, rules_dir=rules_dir, learn=True
                )
            except Exception as error:  # one site's failure must not end a long run
                reason = f"site mode failed on this site: {runner.failure_reason(error)}"
                site_outcomes = [PageOutcome(entry, "", "site", 0.0, reason) for entry in members]
            yield from site_outcomes

    return outcomes()


def _rules_outcomes(
    entries: Sequence[ManifestEntry], group_by: str, rules_dir: Path | None
) -> Iterator[PageOutcome]:
    if rules_dir is None:
        raise BatchError("--mode rules needs --rules-dir, the folder of saved rules")
    if not rules_dir.is_dir():
        raise BatchError(f"--rules-dir {rules_dir}: no such folder")
    if not any(rules_dir.glob(RULE_FILES)):
        raise BatchError(f"--rules-dir {rules_dir}: no rules in this folder ({RULE_FILES})")
    from newsextract.templates.rulesmode import rules_outcome
    from newsextract.templates.site import SiteTemplates

    sites: dict[str, Any] = {}
    for key in group_entries(entries, group_by):
        templates = None if key.startswith("_single:") else SiteTemplates(key, rules_dir)
        sites[key] = templates if templates is not None and templates.has_rules() else None
    if not any(sites.values()):
        raise BatchError(
            f"--rules-dir {rules_dir} has no rules for the sites of these pages "
            f"(their {group_by!r} field, --group-by)"
        )

    def outcome(entry: ManifestEntry) -> PageOutcome:
        try:
            return rules_outcome(entry, sites[entry.group_key(group_by)])
        except Exception as error:  # one page's failure must not end a long run
            return PageOutcome(entry, "", "rules", 0.0, runner.failure_reason(error))

    return (outcome(entry) for entry in entries)


def load_site_mode() -> Callable[..., tuple[list[PageOutcome], Any]]:
    """``extract_site_mode`` of the template stage, imported only when a mode needs it."""
    from newsextract.templates.sitemode import extract_site_mode

    return extract_site_mode


# -- the output --------------------------------------------------------------------------------


@dataclass
class BatchOutput:
    """The files of a run, written page by page and flushed: a run stopped at any point
    leaves every finished page's text, record and error line on disk."""

    folder: Path
    records: RecordFile
    errors: TextIO
    headline_first: bool = False
    pages: int = 0
    failed: int = 0

    @classmethod
    def open(cls, folder: Path, record_format: str, headline_first: bool) -> BatchOutput:
        """Create the folder and its files; raise :class:`BatchError` if that fails."""
        from newsextract.exporters import RecordFile  # imports Scrapy, a second's work

        if folder.exists() and not folder.is_dir():
            raise BatchError(f"--out {folder}: not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            errors = (folder / ERRORS_FILE).open("w", encoding="utf-8")
        except OSError as error:
            raise BatchError(f"--out {folder}: {error.strerror or error}") from None
        try:
            records = RecordFile(folder / f"{RECORDS_FILE}.{record_format}", record_format)
        except OSError as error:
            errors.close()
            raise BatchError(f"--out {folder}: {error.strerror or error}") from None
        return cls(folder, records, errors, headline_first)

    def write(self, outcome: PageOutcome) -> None:
        """The page's text file, and its record or its error line."""
        body = "" if outcome.error else outcome.body.strip("\n")
        text = with_headline(body, outcome.headline) if self.headline_first else body
        path = self.folder / f"{_safe_name(outcome.entry.id)}.txt"
        path.write_text(text + "\n" if text else "", encoding="utf-8")
        self.pages += 1
        error = outcome.error or ("" if body.strip() else NO_MAIN_TEXT)
        if error:
            self.failed += 1
            self.errors.write(json.dumps(_error_record(outcome, error), ensure_ascii=False) + "\n")
            self.errors.flush()
            return
        self.records.write(_record(outcome))

    def close(self) -> None:
        self.records.close()
        self.errors.close()


def _record(outcome: PageOutcome) -> Any:
    """The page's article record. Site and rules modes give the body and headline only:
    their other fields stay empty."""
    entry = outcome.entry
    site = entry.fields.get("site")
    return saved_page_item(outcome.answer(), entry.url, str(site) if site else None, entry.lang)


def _error_record(outcome: PageOutcome, error: str) -> dict[str, Any]:
    return {
        "id": outcome.entry.id,
        "url": outcome.entry.url,
        "html": str(outcome.entry.html_path),
        "method": outcome.method,
        "error": error,
    }


def _safe_name(page_id: str) -> str:
    """A page id as a file name: no separators, no leading dot."""
    name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in page_id)
    return name.lstrip(".") or "_"


# -- stopping -----------------------------------------------------------------------------------


class StopOnInterrupt(AbstractContextManager["StopOnInterrupt"]):
    """Ctrl-C (SIGINT) raises KeyboardInterrupt at once while a page is being extracted, and
    at the end of :meth:`deferred` while its result is being written: a file is never left
    half-written."""

    def __init__(self) -> None:
        self.requested = False
        self._writing = False
        self._previous: Any = None

    def __enter__(self) -> StopOnInterrupt:
        try:
            self._previous = signal.signal(signal.SIGINT, self._handle)
        except ValueError:  # not the main thread: Python's own handling stays
            self._previous = None
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True
        if not self._writing:
            raise KeyboardInterrupt

    @contextmanager
    def deferred(self) -> Iterator[None]:
        self._writing = True
        try:
            yield
        finally:
            self._writing = False
        if self.requested:
            raise KeyboardInterrupt

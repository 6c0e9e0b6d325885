"""Extract every page of a manifest into DIR/<id>.txt (gold text is never read).

A page that fails gives an empty file and a line in DIR/_errors.jsonl. Modes ``site`` and
``rules`` hand the pages to the template stage: ``site`` learns each group's template from its
pages (``newsextract.templates.sitemode``), ``rules`` only applies the rules saved in
``--rules-dir``, as a later crawl does (``newsextract.templates.rulesmode``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from newsextract.evaluation import runner
from newsextract.evaluation.conventions import with_headline
from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.outcome import PageOutcome

ERRORS_FILE = "_errors.jsonl"
#: Progress is shown on runs longer than this many pages, every this many pages.
PROGRESS_EVERY_DEFAULT = 50


class SiteModeUnavailableError(RuntimeError):
    """The template stage is not installed in this tree."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("manifest", type=Path, help="manifest.jsonl (or its folder)")
    parser.add_argument("--out", type=Path, required=True, help="folder for <id>.txt files")
    parser.add_argument("--mode", choices=("single", "site", "rules"), default="single")
    parser.add_argument(
        "--group-by", default="domain", help="manifest field that groups pages into sites"
    )
    parser.add_argument("--rules-dir", type=Path, help="folder of saved rules (site, rules)")
    parser.add_argument(
        "--with-headline",
        action="store_true",
        help="write the headline as each file's first line (for gold that opens with it)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def run(args: argparse.Namespace) -> int:
    entries = list(read_manifest(args.manifest))
    progress = None if args.quiet else _progress_printer(len(entries), sys.stderr)
    try:
        outcomes = extract_entries(
            entries, args.mode, group_by=args.group_by, rules_dir=args.rules_dir, progress=progress
        )
    except SiteModeUnavailableError as error:
        print(f"newsextract batch: {error}", file=sys.stderr)
        return 2
    failed = write_outcomes(outcomes, args.out, args.with_headline)
    print(f"{len(outcomes)} pages, {failed} failed -> {args.out}", file=sys.stderr)
    return 0


Progress = Callable[[int], None]


def extract_entries(
    entries: Sequence[ManifestEntry],
    mode: str,
    *,
    group_by: str = "domain",
    rules_dir: Path | None = None,
    progress: Progress | None = None,
) -> list[PageOutcome]:
    """The outcome of every entry, in manifest order."""
    if mode == "single":
        method = runner.load_method("combined")  # looked up at call time: tests replace it
        outcomes = []
        for number, entry in enumerate(entries, 1):
            outcomes.append(runner.extract_one(entry, method, "combined"))
            if progress:
                progress(number)
        return outcomes
    if mode == "rules":
        extract_rules_mode = load_rules_mode()
        return extract_rules_mode(
            entries, group_by=group_by, rules_dir=rules_dir, progress=progress
        )
    extract_site_mode = load_site_mode()
    site_outcomes, _ = extract_site_mode(
        entries, group_by=group_by, rules_dir=rules_dir, learn=True
    )
    return list(site_outcomes)


def load_site_mode() -> Callable[..., tuple[list[PageOutcome], Any]]:
    """``extract_site_mode`` of the template stage, imported only when a mode needs it."""
    try:
        from newsextract.templates.sitemode import extract_site_mode
    except ImportError as error:
        raise SiteModeUnavailableError(
            f"site and rules modes need newsextract.templates.sitemode: {error}"
        ) from error
    return extract_site_mode


def load_rules_mode() -> Callable[..., list[PageOutcome]]:
    """``extract_rules_mode`` of the template stage, imported only when rules mode needs it."""
    try:
        from newsextract.templates.rulesmode import extract_rules_mode
    except ImportError as error:
        raise SiteModeUnavailableError(
            f"rules mode needs newsextract.templates.rulesmode: {error}"
        ) from error
    return extract_rules_mode


def write_outcomes(
    outcomes: Sequence[PageOutcome], folder: Path, headline_first: bool = False
) -> int:
    """Write <id>.txt for every page and _errors.jsonl for failures; return the failures.

    The body leaves the headline out, as schema.org's ``articleBody`` does; with
    ``headline_first`` the headline is each file's first line."""
    folder.mkdir(parents=True, exist_ok=True)
    failed = 0
    with (folder / ERRORS_FILE).open("w", encoding="utf-8") as errors:
        for outcome in outcomes:
            body = "" if outcome.error else outcome.body.strip("\n")
            if headline_first:
                body = with_headline(body, outcome.headline)
            (folder / f"{_safe_name(outcome.entry.id)}.txt").write_text(
                body + "\n" if body else "", encoding="utf-8"
            )
            if outcome.error:
                failed += 1
                errors.write(json.dumps(_error_record(outcome), ensure_ascii=False) + "\n")
    return failed


def _error_record(outcome: PageOutcome) -> dict[str, Any]:
    return {
        "id": outcome.entry.id,
        "url": outcome.entry.url,
        "html": str(outcome.entry.html_path),
        "method": outcome.method,
        "error": outcome.error,
    }


def _safe_name(page_id: str) -> str:
    """A page id as a file name: no separators, no leading dot."""
    name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in page_id)
    return name.lstrip(".") or "_"


def _progress_printer(total: int, stream: TextIO) -> Progress | None:
    if total <= PROGRESS_EVERY_DEFAULT:
        return None
    started = time.perf_counter()

    def show(done: int) -> None:
        if done % PROGRESS_EVERY_DEFAULT and done != total:
            return
        rate = done / max(time.perf_counter() - started, 1e-9)
        print(f"\r{done}/{total} pages, {rate:.0f} pages/s", end="", file=stream, flush=True)
        if done == total:
            print(file=stream)

    return show

"""Score extraction against the gold text of a manifest, as shared/data/README.md defines.

Prints precision, recall, F1, exact-match rate, the shares of pages with F1 >= 0.9 and
>= 0.99, and pages per second (1 / median page time, and from the mean), for the product
(``combined``, or the template stage in site mode) and for each method alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from newsextract.batch.pages import load_site_mode, mode_warnings
from newsextract.evaluation.conventions import HEADLINE_SETS, gold_opens_with_headline
from newsextract.evaluation.dataset import ManifestEntry, ManifestError, read_manifest
from newsextract.evaluation.runner import (
    METHOD_NAMES,
    Evaluation,
    MethodUnavailableError,
    evaluate,
    evaluate_method,
)
from newsextract.progress import track

DESCRIPTION = """\
Score extraction against gold text: a manifest (one JSON object a line, see the README) whose
lines give "html", the saved page, and "text", the file of its main text, both relative to
the manifest. Prints precision, recall, F1, the exact-match rate, the shares of pages with
F1 >= 0.9 and >= 0.99, and pages per second (from the median page time, and from the mean),
for the product (combined, or the template stage with --mode site) and for each method
alone.

Exit status: 0 scored, 2 bad arguments or a manifest that cannot be read."""

EPILOG = """\
examples:
  newsextract eval my-set/manifest.jsonl
  newsextract eval my-set/ --methods combined --json
  newsextract eval my-set/ --mode site --group-by domain
"""

_COLUMNS = ("precision", "recall", "f1", "exact", "f1>=0.9", "f1>=0.99")


@dataclass(frozen=True)
class SiteFigures:
    """Seed 002's figures for the template stage over a manifest."""

    groups: int
    induction_seconds_per_group: float  # mean over groups that induced a template
    application_seconds_per_page: float  # mean over pages the templates were applied to
    reduction_ratio: float  # mean of pruned size / original size

    def as_dict(self) -> dict[str, float | int]:
        return {
            "groups": self.groups,
            "induction_ms_per_group": round(self.induction_seconds_per_group * 1000, 2),
            "application_ms_per_page": round(self.application_seconds_per_page * 1000, 3),
            "reduction_ratio": round(self.reduction_ratio, 3),
        }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "manifest", type=Path, help="a manifest.jsonl with gold text, or the folder holding it"
    )
    parser.add_argument(
        "--mode",
        choices=("single", "site"),
        default="single",
        help="site: also score the template stage, each site's template learned from its pages",
    )
    parser.add_argument(
        "--group-by", default="domain", help="the manifest field whose value is a page's site"
    )
    parser.add_argument(
        "--rules-dir",
        type=Path,
        help="where site mode saves the rules it learns (default: keep nothing)",
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        default=list(METHOD_NAMES),
        metavar="METHOD",
        help=f"methods to score alone (default: {' '.join(METHOD_NAMES)})",
    )
    parser.add_argument(
        "--headline",
        choices=("auto", "first", "none"),
        default="auto",
        help="score the headline before the body (first), the body alone (none), or as the "
        "set's gold is written (auto: first for a set in a folder named "
        f"{', '.join(sorted(HEADLINE_SETS))}, whose gold opens with the headline)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quiet", action="store_true", help="show no progress")


def headline_first(args: argparse.Namespace) -> bool:
    """Whether the headline is scored before the body (``--headline``)."""
    if args.headline == "auto":
        return gold_opens_with_headline(args.manifest)
    return bool(args.headline == "first")


def run(args: argparse.Namespace) -> int:
    try:
        entries = read_scored_manifest(args.manifest)
    except ManifestError as error:
        print(f"newsextract eval: {error}", file=sys.stderr)
        return 2
    for warning in mode_warnings(entries, args.mode, args.group_by):
        print(f"newsextract eval: warning: {warning}", file=sys.stderr)
    first = headline_first(args)
    rows: list[Evaluation] = []
    notes: list[str] = []
    site: SiteFigures | None = None
    if args.mode == "site":
        evaluation, site = evaluate_site_mode(entries, args.group_by, args.rules_dir, first)
        rows.append(evaluation)
    for name in args.methods:
        try:
            rows.append(evaluate_method(track(entries, label=name, quiet=args.quiet), name, first))
        except MethodUnavailableError as error:
            notes.append(f"skipped {name}: {error}")
    notes.append(f"headline {'scored before the body' if first else 'left out'} (--headline)")
    if args.json:
        print(json.dumps(_json_report(args.manifest, rows, site, notes), indent=2))
    else:
        print(format_table(rows, site, notes))
    return 0


def read_scored_manifest(path: Path) -> list[ManifestEntry]:
    """The entries of a manifest, each with gold to score against; raise ManifestError."""
    entries = list(read_manifest(path))
    if not entries:
        raise ManifestError(f"{path}: no pages")
    for entry in entries:
        if entry.has_snippet_gold:
            continue
        if entry.text_path is None:
            raise ManifestError(f'{entry.origin}: no "text" field (the gold text to score against)')
        if not entry.text_path.is_file():
            raise ManifestError(f"{entry.origin}: no gold text file {entry.text_path}")
    return entries


def evaluate_site_mode(
    entries: Sequence[ManifestEntry],
    group_by: str,
    rules_dir: Path | None,
    headline_first: bool = False,
) -> tuple[Evaluation, SiteFigures]:
    extract_site_mode = load_site_mode()
    outcomes, stats = extract_site_mode(entries, group_by=group_by, rules_dir=rules_dir, learn=True)
    figures = SiteFigures(
        groups=int(stats.groups),
        induction_seconds_per_group=_mean(stats.induction_seconds),
        application_seconds_per_page=_mean(stats.application_seconds),
        reduction_ratio=_mean(stats.reduction_ratios),
    )
    return evaluate(outcomes, "site", headline_first), figures


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def format_table(rows: Sequence[Evaluation], site: SiteFigures | None, notes: Sequence[str]) -> str:
    header = f"{'method':<12}{'pages':>6}" + "".join(f"{c:>10}" for c in _COLUMNS)
    header += f"{'pages/s':>9}{'(mean)':>8}{'errors':>7}"
    lines = [header]
    for row in rows:
        figures = row.as_dict()
        cells = "".join(f"{float(str(figures[c])):>10.3f}" for c in _COLUMNS)
        lines.append(
            f"{row.method:<12}{row.summary.pages:>6}{cells}"
            f"{row.speed.median_pages_per_second:>9.1f}{row.speed.mean_pages_per_second:>8.1f}"
            f"{row.errors:>7}"
        )
    if site is not None:
        lines.append(
            "site mode: {groups} groups, induction {induction_ms_per_group} ms/group, "
            "application {application_ms_per_page} ms/page, "
            "reduction ratio {reduction_ratio}".format(**site.as_dict())
        )
    lines.extend(
        f"{row.method}: {row.errors} failed, first: {row.first_error}" for row in rows if row.errors
    )
    lines.extend(notes)
    return "\n".join(lines)


def _json_report(
    manifest: Path, rows: Sequence[Evaluation], site: SiteFigures | None, notes: Sequence[str]
) -> dict[str, Any]:
    return {
        "manifest": str(manifest),
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "methods": [row.as_dict() for row in rows],
        "site_mode": site.as_dict() if site else None,
        "notes": list(notes),
    }

"""Milliseconds a page for each stage of single-page extraction, and for the stored-rules
path, so that anyone sees where the time goes without instrumenting by hand.

    python3 benchmarks/stages.py ../shared/data/dragnet
    python3 benchmarks/stages.py ../shared/data/wcxb_dev --pages 300 --repeat 3

Each stage is timed on its own, on every page, in the order extraction runs them; a stage
that needs the one before gets that stage's output, computed before its clock starts.
Cleaning changes the tree in place, so each repeat parses afresh. The best of the repeats
is kept for each stage (the least disturbed by the rest of the machine).

- decode: bytes to text (the page's encoding found and checked)
- parse: the checks before parsing, and libxml2's parse
- page model: structured data, cleaning, blocks
- evidence: the block table, layout and wording features, both classifiers
- decision: the combiner's rules after the classifier (scores, regions, comments ...)
- record: metadata and headline
- rules path: a page through its site's stored rules (light page, XPath, body text),
  after one untimed pass that learns them; pages are grouped by their set's site field
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from template_stage import page_items, run_stage

from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.evidence.classifier import block_evidence
from newsextract.extraction.pagemodel.blocks import split_blocks
from newsextract.extraction.pagemodel.encoding import decode_html
from newsextract.extraction.pagemodel.page import (
    Page,
    ParsedHTML,
    clean_tree,
    parse_html,
    read_structured_data,
)
from newsextract.extraction.record.article import scored_article
from newsextract.extraction.record.metadata import read_metadata
from newsextract.pipelines.learning import LearnerConfig, SiteLearner
from newsextract.templates.site import SiteTemplates

STAGES = ("decode", "parse", "page model", "evidence", "decision", "record")


def page_model(parsed: ParsedHTML, url: str | None) -> Page:
    """The page model of a parsed page: structured data, cleaning, blocks (as parse_page)."""
    structured = read_structured_data(parsed.root)
    hidden = clean_tree(parsed.root)
    blocks = split_blocks(parsed.root, hidden)
    return Page(url, parsed.encoding, parsed.html, parsed.root, blocks, structured)


def clock(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def stage_times(entry: ManifestEntry) -> dict[str, float] | None:
    """Seconds of each stage on one page (None: the page is refused before extraction)."""
    body, url, kind = entry.read_html(), entry.url, entry.content_type or None
    times: dict[str, float] = {}
    try:
        times["decode"], _ = clock(lambda: decode_html(body, kind))
        parse_time, parsed = clock(lambda: parse_html(body, kind))
        times["parse"] = max(parse_time - times["decode"], 0.0)
        times["page model"], page = clock(lambda: page_model(parsed, url))
    except NewsExtractError:
        return None
    times["evidence"], _ = clock(lambda: block_evidence(page))
    whole, scored = clock(lambda: scored_article(page))
    times["record"], _ = clock(lambda: read_metadata(page, scored.article.body))
    times["decision"] = max(whole - times["evidence"] - times["record"], 0.0)
    return times


def best_of(runs: Sequence[dict[str, float]]) -> dict[str, float]:
    return {stage: min(run[stage] for run in runs) for stage in runs[0]}


def single_page_table(entries: list[ManifestEntry], repeat: int) -> dict[str, float]:
    """Milliseconds a page for each stage, summed over pages, best of ``repeat`` runs."""
    totals: dict[str, float] = dict.fromkeys(STAGES, 0.0)
    measured = 0
    for entry in entries:
        runs = [t for t in (stage_times(entry) for _ in range(repeat)) if t is not None]
        if not runs:
            continue
        measured += 1
        for stage, seconds in best_of(runs).items():
            totals[stage] += seconds
    return {stage: 1000 * seconds / max(measured, 1) for stage, seconds in totals.items()}


def rules_path_ms(entries: list[ManifestEntry], repeat: int) -> float | None:
    """Milliseconds a page through the stored-rules stage (None: no site learned rules)."""
    items = page_items(entries, "domain")
    with tempfile.TemporaryDirectory() as rules_dir:
        config = LearnerConfig(rules_dir=Path(rules_dir))
        run_stage(SiteLearner(SiteTemplates, config), items)
        best = float("inf")
        for _ in range(repeat):
            learner = SiteLearner(SiteTemplates, config)
            seconds, _ = clock(lambda learner=learner: run_stage(learner, items))
            best = min(best, seconds)
    return 1000 * best / len(items) if items else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path, help="a development set's folder or manifest")
    parser.add_argument("--pages", type=int, default=0, help="the first N pages (0: all)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each stage a page")
    parser.add_argument("--no-rules", action="store_true", help="skip the stored-rules path")
    args = parser.parse_args(argv)
    manifest = args.set / "manifest.jsonl" if args.set.is_dir() else args.set
    entries = list(read_manifest(manifest))
    if args.pages:
        entries = entries[: args.pages]
    table = single_page_table(entries, args.repeat)
    print(f"{manifest.parent.name}: {len(entries)} pages, ms a page (best of {args.repeat})")
    for stage, ms in table.items():
        print(f"  {stage:<12} {ms:7.2f}")
    print(f"  {'all':<12} {sum(table.values()):7.2f}")
    if not args.no_rules:
        rules = rules_path_ms(entries, args.repeat)
        print(f"  {'rules path':<12} " + (f"{rules:7.2f}" if rules is not None else "   none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Today's single-page output on the development pages, pinned as one digest a page.

A change meant to keep every output (a faster page model, a module moved) must leave every
digest as it is; a change meant to alter output regenerates them, and its diff shows which
pages moved. The digest covers the page model (every block's fields), every block's final
score (to 1e-9) and the whole record.

    python3 tests/pinned.py --write              # regenerate tests/pinned_records.json
    python3 tests/pinned.py --check --all        # compare every development page, not the sample
    python3 tests/pinned.py --dump out.json --all  # full records and scores, to diff two runs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from devdata import SHARED_DATA  # noqa: E402

from newsextract.evaluation.dataset import ManifestEntry, read_manifest  # noqa: E402
from newsextract.exceptions import NewsExtractError  # noqa: E402
from newsextract.extraction.pagemodel.page import parse_page  # noqa: E402
from newsextract.extraction.record.article import scored_article  # noqa: E402

PINNED_FILE = Path(__file__).resolve().parent / "pinned_records.json"
#: Every SAMPLE_STEP-th page of each development set is pinned (about 480 pages of 4,763).
SAMPLE_STEP = 10
SETS = (
    "chinese_wced",
    "cleaneval",
    "cleanportaleval",
    "dragnet",
    "msv_big9_dev",
    "msv_chaos",
    "trafilatura_eval_dev",
    "wcxb_dev",
)
SCORE_DIGITS = 9


def development_entries(data: Path, sample: bool = True) -> Iterator[tuple[str, ManifestEntry]]:
    """(key, entry) for the pinned pages of every set found under ``data``."""
    for name in SETS:
        manifest = data / name / "manifest.jsonl"
        if not manifest.exists():
            continue
        for position, entry in enumerate(read_manifest(manifest)):
            if not sample or position % SAMPLE_STEP == 0:
                yield f"{name}/{entry.id}", entry


def page_output(entry: ManifestEntry) -> dict[str, Any]:
    """Everything single-page extraction gives for one page, as plain JSON values."""
    try:
        page = parse_page(entry.read_html(), entry.url, entry.content_type or None)
        scored = scored_article(page)
    except NewsExtractError as error:
        return {"failure": f"{type(error).__name__}: {error}"}
    blocks = [
        [b.tag, b.text, b.depth, b.link_chars, list(b.inline_tags), list(b.attr_texts), b.hidden]
        for b in page.blocks
    ]
    scores = [round(float(s), SCORE_DIGITS) for s in scored.scores]
    return {"blocks": blocks, "scores": scores, "record": asdict(scored.article)}


def digest(output: dict[str, Any]) -> str:
    text = json.dumps(output, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def digests(data: Path, sample: bool = True) -> dict[str, str]:
    return {key: digest(page_output(entry)) for key, entry in development_entries(data, sample)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--all", action="store_true", help="every page, not the sample")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="regenerate the pinned file")
    action.add_argument("--check", action="store_true", help="compare with the pinned file")
    action.add_argument("--dump", type=Path, help="write full outputs to this JSON file")
    args = parser.parse_args(argv)
    if args.dump:
        outputs = {k: page_output(e) for k, e in development_entries(args.data, not args.all)}
        args.dump.write_text(json.dumps(outputs, ensure_ascii=False), encoding="utf-8")
        return 0
    found = digests(args.data, sample=not args.all)
    if args.write:
        PINNED_FILE.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n")
        print(f"{len(found)} pages pinned in {PINNED_FILE.name}")
        return 0
    pinned = json.loads(PINNED_FILE.read_text())
    moved = sorted(k for k in found if k in pinned and pinned[k] != found[k])
    print(f"{len(found)} pages, {len(moved)} moved" + "".join(f"\n  {k}" for k in moved))
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())

"""How fast anything on lxml's tree can be: decoding, parsing and freeing each page's tree
alone, beside trafilatura and newsextract's single-page extraction on the same pages.

    python3 benchmarks/parse_ceiling.py dragnet msv_big9_dev [--pages 400]

Pages are interleaved (trafilatura, then the parse, then extraction, page by page), so a
busy machine slows them alike. "x traf." is trafilatura's time over the row's, by total and
by median page time: the parse row is the most any extraction that starts from libxml2's
tree could reach against trafilatura, with no work of its own.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bench import DATA_DEFAULT  # the sets' folder, as bench.py finds it

from newsextract.evaluation.dataset import read_manifest
from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.pagemodel.page import parse_html


def seconds_by_row(folder: Path, pages: int) -> dict[str, list[float]]:
    """Each row's seconds for each page."""
    import trafilatura

    entries = list(read_manifest(folder / "manifest.jsonl"))[: pages or None]
    rows: dict[str, list[float]] = {"trafilatura": [], "parse and free": [], "newsextract": []}
    for entry in entries:
        body = entry.read_html()
        started = time.perf_counter()
        trafilatura.extract(body, url=entry.url)
        extracted = time.perf_counter()
        parse_html(body)  # the tree is freed as the call's result is dropped
        parsed = time.perf_counter()
        extract_article(parse_page(body, entry.url))
        done = time.perf_counter()
        rows["trafilatura"].append(extracted - started)
        rows["parse and free"].append(parsed - extracted)
        rows["newsextract"].append(done - parsed)
    return rows


def report(name: str, rows: dict[str, list[float]]) -> None:
    reference = rows["trafilatura"]
    print(f"{name}: {len(reference)} pages, ms a page (total / median), x traf.")
    for row, times in rows.items():
        total, median = sum(times), statistics.median(times)
        print(
            f"  {row:<16} {1000 * total / len(times):7.2f} {1000 * median:7.2f}   "
            f"{sum(reference) / total:6.2f}x {statistics.median(reference) / median:6.2f}x"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", help="development sets (names or folders)")
    parser.add_argument("--pages", type=int, default=400, help="the first N pages (0: all)")
    parser.add_argument("--data", type=Path, default=DATA_DEFAULT, help="the sets' folder")
    args = parser.parse_args()
    for name in args.sets:
        folder = Path(name) if Path(name).is_dir() else args.data / name
        report(folder.name, seconds_by_row(folder, args.pages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""newsextract and the reference extractors on the same pages, in one process, side by side.

    pip install -e '.[bench]'
    python benchmarks/bench.py                      # every development set
    python benchmarks/bench.py cleanportaleval --limit 50 --extractors newsextract trafilatura

For each set it prints F1 (with precision, recall and the share of pages at F1 >= 0.9) and
pages per second (1 / median page time, as BASELINES.md; the mean-based figure beside it)
for each extractor, and that speed as a multiple of trafilatura's ("x traf."). Pages are
interleaved: every extractor runs on page 1, then on page 2, ..., so a busy machine slows
them alike. newsextract is given the raw bytes and its time
includes decoding and parsing; the reference extractors get the text decoded (untimed) by
newsextract's decoder, so the comparison, if anything, favours them. Their code comes only
from the ``bench`` extra: a missing one is skipped with a note. Each set is scored as its gold
is written (``newsextract.evaluation.conventions``): snippets pooled for snippet gold, and
newsextract's headline before its body where the gold opens with the headline.

A last table runs a generated 20 MB page and a page nested 100,000 levels deep, each in a
fresh interpreter, and prints the time, the peak of Python allocations (tracemalloc) and the
growth of the process's peak resident memory (which includes libxml2's allocations).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from newsextract.evaluation.conventions import HEADLINE_SETS, with_headline
from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.gold import Gold
from newsextract.evaluation.metric import PageScore, SnippetScore, summarise_set
from newsextract.evaluation.runner import Extracted
from newsextract.extraction import Page, extract_article, parse_page
from newsextract.extraction.pagemodel.encoding import decode_html

SETS_DEFAULT = (
    "dragnet",
    "cleaneval",
    "cleanportaleval",
    "msv_chaos",
    "chinese_wced",
    "wcxb_dev",
    "trafilatura_eval_dev",
)
#: Parts of a set with a line of their own: set -> (name, which pages).
PARTS: dict[str, tuple[str, Callable[[ManifestEntry], bool]]] = {
    "wcxb_dev": ("wcxb_dev articles", lambda entry: entry.fields.get("page_type") == "article"),
}
REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DEFAULT = Path(os.environ.get("NEWSEXTRACT_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))

Extractor = Callable[[bytes, str, str | None], Extracted]  # (raw bytes, text, url) -> answer


def newsextract_combined(body: bytes, _text: str, url: str | None) -> Extracted:
    article = extract_article(parse_page(body, url))
    return Extracted(article.body, article.headline)


def newsextract_method(name: str) -> Extractor:
    from newsextract.evaluation.runner import load_method

    method = load_method(name)
    return lambda body, _text, url: method(parse_page(body, url))


def trafilatura_extractor(**options: bool) -> Extractor:
    import trafilatura

    def extract(_body: bytes, text: str, url: str | None) -> Extracted:
        result: str | None = trafilatura.extract(text, url=url, **options)  # type: ignore[arg-type]
        return Extracted(result or "")

    return extract


def readability_extractor() -> Extractor:
    import html_text
    from readability import Document

    def extract(_body: bytes, text: str, _url: str | None) -> Extracted:
        return Extracted(str(html_text.extract_text(Document(text).summary(html_partial=True))))

    return extract


def newspaper_extractor() -> Extractor:
    from newspaper import Article

    def extract(_body: bytes, text: str, url: str | None) -> Extracted:
        # No image fetching: it would try the network for every page.
        article = Article(url or "http://example.com/article", fetch_images=False)
        article.download(input_html=text)
        article.parse()
        return Extracted(str(article.text))

    return extract


FACTORIES: dict[str, Callable[[], Extractor]] = {
    "newsextract": lambda: newsextract_combined,
    "newsextract-fft": lambda: newsextract_method("fft"),
    "newsextract-punctuation": lambda: newsextract_method("punctuation"),
    "newsextract-classifier": lambda: newsextract_method("classifier"),
    "trafilatura": trafilatura_extractor,
    "trafilatura-nocomments": lambda: trafilatura_extractor(include_comments=False),
    "readability+html-text": readability_extractor,
    "newspaper4k": newspaper_extractor,
}
EXTRACTORS_DEFAULT = (
    "newsextract",
    "trafilatura",
    "trafilatura-nocomments",
    "readability+html-text",
    "newspaper4k",
)


@dataclass
class Tally:
    scores: list[PageScore | SnippetScore] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    errors: int = 0


def load_extractors(names: Sequence[str]) -> tuple[dict[str, Extractor], list[str]]:
    extractors, notes = {}, []
    for name in names:
        try:
            extractors[name] = FACTORIES[name]()
        except ImportError as error:
            notes.append(f"skipped {name}: {error} (pip install -e '.[bench]')")
    return extractors, notes


def run_set(
    entries: Sequence[ManifestEntry], extractors: dict[str, Extractor], headline_first: bool
) -> dict[str, Tally]:
    """Every extractor on every page, in turn. Where the set's gold opens with the headline,
    newsextract's record gives it before the body (its body leaves it out); the reference
    extractors' output is scored as they give it."""
    tallies = {name: Tally() for name in extractors}
    for entry in entries:
        body, gold = entry.read_html(), Gold.of(entry)
        text = decode_html(body).text
        for name, extract in extractors.items():
            started = time.perf_counter()
            try:
                answer = extract(body, text, entry.url)
            except Exception:  # a reference extractor's crash is a failed page, as in BASELINES
                answer = Extracted("")
                tallies[name].errors += 1
            tallies[name].seconds.append(time.perf_counter() - started)
            predicted = answer.body
            if headline_first:
                predicted = with_headline(predicted, answer.headline)
            tallies[name].scores.append(gold.score(predicted))
    return tallies


#: The extractor every speed is also given relative to (issue 3's target is twice its speed).
SPEED_REFERENCE = "trafilatura"


def print_set(name: str, tallies: dict[str, Tally], pages: Sequence[bool] = ()) -> None:
    """One line an extractor (``pages``: which of the set's pages to count; all when empty)."""
    print(f"\n{name}")
    print(
        f"  {'extractor':<26}{'pages':>6}{'F1':>7}{'P':>7}{'R':>7}{'>=0.9':>7}"
        f"{'pages/s':>9}{'(mean)':>8}{'x traf.':>8}{'errors':>7}"
    )
    reference = tallies.get(SPEED_REFERENCE)
    reference_speed = pages_per_second(reference.seconds) if reference else 0.0
    for extractor, tally in tallies.items():
        counted = pages or [True] * len(tally.scores)
        picked = [s for s, keep in zip(tally.scores, counted, strict=True) if keep]
        summary = summarise_set(picked)
        total = sum(tally.seconds)
        by_median = pages_per_second(tally.seconds)
        by_mean = len(tally.seconds) / total if total else 0.0
        ratio = f"{by_median / reference_speed:>8.2f}" if reference_speed else f"{'-':>8}"
        print(
            f"  {extractor:<26}{summary.pages:>6}{summary.f1:>7.3f}{summary.precision:>7.3f}"
            f"{summary.recall:>7.3f}{summary.share_f1_90:>7.2f}"
            f"{by_median:>9.1f}{by_mean:>8.1f}{ratio}"
            f"{tally.errors:>7}",
            flush=True,
        )


def pages_per_second(seconds: Sequence[float]) -> float:
    """1 / the median page time, as BASELINES.md measures speed (0 when nothing ran)."""
    median = statistics.median(seconds) if seconds else 0.0
    return 1 / median if median else 0.0


# --- memory and size -------------------------------------------------------------------


def big_page(megabytes: int = 20) -> bytes:
    paragraph = "<div><p>" + "Some words, in a sentence of a long page. " * 30 + "</p></div>\n"
    count = megabytes * 1_000_000 // len(paragraph) + 1
    return ("<html><body>" + paragraph * count + "</body></html>").encode()


def deep_page(depth: int = 100_000) -> bytes:
    return (
        "<html><body>" + "<div>level " * depth + "deepest" + "</div>" * depth + "</body></html>"
    ).encode()


MEMORY_CASES: dict[str, Callable[[], bytes]] = {"20 MB page": big_page, "100,000 levels": deep_page}


def measure_case(name: str) -> dict[str, float | int | str]:
    """Run one generated page through parse_page, the combiner and methods C and D.

    Called in a fresh process. Timed without tracemalloc (it slows every allocation), then
    run again under tracemalloc for the peak of Python allocations.
    """
    body = MEMORY_CASES[name]()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    page = parse_page(body)
    parsed = time.perf_counter() - started
    extracted = _run_methods(page)
    seconds = time.perf_counter() - started
    rss_growth_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    del page
    tracemalloc.start()
    _run_methods(parse_page(body))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "case": name,
        "bytes": len(body),
        "blocks": len(parse_page(body).blocks),
        "parse_seconds": round(parsed, 2),
        "total_seconds": round(seconds, 2),
        "python_peak_mb": round(peak / 1e6, 1),
        "rss_growth_mb": round(rss_growth_kb / 1024, 1),
        "extracted": extracted,
    }


def _run_methods(page: Page) -> str:
    from newsextract.extraction.evidence.fft import fft_interval
    from newsextract.extraction.evidence.punctuation import punctuation_density

    fft_interval(page)
    punctuation_density(page)
    try:
        extract_article(page)
    except Exception as error:  # the combiner may be missing its model in a partial tree
        return f"combined failed: {type(error).__name__}"
    return "combined"


def print_memory() -> None:
    print("\nmemory and size (each case in a fresh interpreter; parse_page, combiner, C and D)")
    for name in MEMORY_CASES:
        command = [sys.executable, str(Path(__file__).resolve()), "--memory-case", name]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        if result.returncode:
            print(f"  {name}: failed: {result.stderr.strip().splitlines()[-1:]}")
            continue
        figures = json.loads(result.stdout)
        print(
            f"  {name:<16} {figures['bytes'] / 1e6:6.1f} MB in, {figures['blocks']} blocks, "
            f"parse {figures['parse_seconds']} s, all {figures['total_seconds']} s, "
            f"Python peak {figures['python_peak_mb']} MB, RSS +{figures['rss_growth_mb']} MB "
            f"({figures['extracted']})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", default=list(SETS_DEFAULT), help="development sets")
    parser.add_argument("--data", type=Path, default=DATA_DEFAULT, help="folder of the sets")
    parser.add_argument("--limit", type=int, help="at most this many pages a set")
    parser.add_argument(
        "--extractors", nargs="+", default=list(EXTRACTORS_DEFAULT), choices=sorted(FACTORIES)
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the memory and size table")
    parser.add_argument("--memory-case", choices=sorted(MEMORY_CASES), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_case:
        print(json.dumps(measure_case(args.memory_case)))
        return 0
    extractors, notes = load_extractors(args.extractors)
    for note in notes:
        print(note)
    for name in args.sets:
        entries = list(read_manifest(args.data / name / "manifest.jsonl"))[: args.limit]
        tallies = run_set(entries, extractors, name in HEADLINE_SETS)
        print_set(name, tallies)
        if name in PARTS:
            part, keep = PARTS[name]
            print_set(part, tallies, [keep(entry) for entry in entries])
    if not args.no_memory:
        print_memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Site mode measured side by side with single mode and trafilatura on the same pages.

    python -m newsextract.templates.measure MANIFEST --group-by site [--min-group 5]
        [--template-only] [--no-trafilatura]

Prints F1 (with the share of pages at F1 >= 0.9) for each, then pages per second (1 / median
page time) for applying stored rules, for parse_page alone and for trafilatura, then the
induction time per group and the reduction ratio. trafilatura comes with the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import Summary, score_page, summarise
from newsextract.extraction import extract_article
from newsextract.extraction.page import parse_page
from newsextract.templates.config import TemplateConfig
from newsextract.templates.site import SiteTemplates
from newsextract.templates.sitemode import extract_site_mode


def _summary(entries: Sequence[ManifestEntry], bodies: Sequence[str]) -> Summary:
    return summarise(
        score_page(body, e.read_gold(), e.lang) for e, body in zip(entries, bodies, strict=True)
    )


def _line(name: str, summary: Summary) -> str:
    return (
        f"{name:<28} F1 {summary.f1:.3f} ({summary.share_f1_90:.2f})  P {summary.precision:.3f}"
        f"  R {summary.recall:.3f}  pages {summary.pages}"
    )


def _rate(seconds: Sequence[float]) -> str:
    median = statistics.median(seconds) if seconds else 0.0
    return f"{1 / median:8.0f} pages/s" if median else "       - pages/s"


def _timed(
    function: Callable[[bytes], str], pages: Sequence[bytes]
) -> tuple[list[str], list[float]]:
    bodies, seconds = [], []
    for html in pages:
        start = time.perf_counter()
        bodies.append(function(html))
        seconds.append(time.perf_counter() - start)
    return bodies, seconds


def _trafilatura(html: bytes) -> str:
    import trafilatura

    return trafilatura.extract(html) or ""


def _application_seconds(
    entries: Sequence[ManifestEntry], group_by: str, config: TemplateConfig
) -> tuple[list[float], list[float]]:
    """Rule application alone and parse_page alone, per page, with rules learned beforehand."""
    groups: dict[str, list[ManifestEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.group_key(group_by), []).append(entry)
    applying, parsing = [], []
    for key, members in groups.items():
        pages = []
        for entry in members:
            start = time.perf_counter()
            pages.append(parse_page(entry.read_html(), entry.url))
            parsing.append(time.perf_counter() - start)
        site = SiteTemplates(key, None, config)
        site.learn(pages)
        for page in pages:
            start = time.perf_counter()
            site.extract(page)
            applying.append(time.perf_counter() - start)
    return applying, parsing


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("manifest", type=Path)
    parser.add_argument("--group-by", default="domain")
    parser.add_argument("--min-group", type=int, default=2)
    parser.add_argument("--template-only", action="store_true")
    parser.add_argument("--no-trafilatura", action="store_true")
    args = parser.parse_args(argv)
    config = TemplateConfig(single_page_veto=not args.template_only)
    entries = list(read_manifest(args.manifest))
    sizes = Counter(e.group_key(args.group_by) for e in entries)
    entries = [e for e in entries if sizes[e.group_key(args.group_by)] >= args.min_group]
    outcomes, stats = extract_site_mode(entries, group_by=args.group_by, config=config)
    print(_line("site mode", _summary(entries, [o.body for o in outcomes])))
    print(f"{'':<28} methods {dict(Counter(o.method for o in outcomes))}")
    single = [extract_article(parse_page(e.read_html(), e.url)).body for e in entries]
    print(_line("single mode", _summary(entries, single)))
    htmls = [e.read_html() for e in entries]
    traf_seconds: list[float] = []
    if not args.no_trafilatura:
        traf_bodies, traf_seconds = _timed(_trafilatura, htmls)
        print(_line("trafilatura", _summary(entries, traf_bodies)))
    applying, parsing = _application_seconds(entries, args.group_by, config)
    print(f"applying stored rules        {_rate(applying)}")
    print(f"parse_page alone             {_rate(parsing)}")
    both = [a + p for a, p in zip(applying, parsing, strict=True)]
    print(f"parse_page + rules           {_rate(both)}")
    if traf_seconds:
        print(f"trafilatura                  {_rate(traf_seconds)}")
    induction = stats.induction_seconds
    print(
        f"induction per group          median {statistics.median(induction):.3f} s, "
        f"max {max(induction):.3f} s over {len(induction)} groups"
    )
    print(f"reduction ratio (method B)   mean {statistics.mean(stats.reduction_ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

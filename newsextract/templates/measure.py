"""Site mode measured side by side with single mode and trafilatura on the same pages.

    python -m newsextract.templates.measure MANIFEST --group-by site [--min-group 5]
        [--template-only] [--no-trafilatura] [--repeat 3]

Prints F1 (with the share of pages at F1 >= 0.9) for site mode, single mode and trafilatura.
Then stored rules (learned on each group's pages first) applied from each page's bytes to its
record, as a later crawl does, on two paths: the full page model (``parse_page``, the rules,
single mode where they fail) and the light page of :mod:`newsextract.templates.fastpath`
(falling back to the full path); their F1, how many bodies differ, and pages per second
(1 / median page time, and pages / total time) side by side with trafilatura, timed page by
page in turn in one process, each page ``--repeat`` times on each path (in a rotating order),
its fastest run counting; and the light page's speed-up over trafilatura page by page, and by
total time without the largest pages. Then the induction time per group and the reduction ratio.
trafilatura comes with the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from newsextract.evaluation.conventions import gold_opens_with_headline, with_headline
from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import Summary, score_page, summarise
from newsextract.exceptions import NewsExtractError
from newsextract.extraction import extract_article
from newsextract.extraction.pagemodel.page import parse_page
from newsextract.extraction.record.article import Article
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


def _trafilatura(html: bytes) -> str:
    import trafilatura

    return trafilatura.extract(html) or ""


T = TypeVar("T")


@dataclass
class _StoredRules:
    """Stored rules applied page by page, from the bytes, on both paths, with trafilatura
    timed on the same page just before (interleaved, so that load on the machine falls on
    all alike). Each path falls back as the crawl does: full page model, then single mode."""

    headline_first: bool = False  # bodies as the set's gold reads: the headline first
    light: dict[str, str] = field(default_factory=dict)  # entry id -> body
    full: dict[str, str] = field(default_factory=dict)
    trafilatura: dict[str, str] = field(default_factory=dict)
    by_rules: set[str] = field(default_factory=set)  # pages the light path answered
    seconds: dict[str, list[float]] = field(default_factory=dict)  # per page, fastest run
    sizes: list[int] = field(default_factory=list)  # per page, bytes
    _page: dict[str, float] = field(default_factory=dict)  # this page's fastest runs so far

    def time(self, name: str, function: Callable[[], T]) -> T:
        start = time.perf_counter()
        try:
            return function()
        finally:
            elapsed = time.perf_counter() - start
            self._page[name] = min(elapsed, self._page.get(name, elapsed))

    def next_page(self) -> None:
        for name, elapsed in self._page.items():
            self.seconds.setdefault(name, []).append(elapsed)
        self._page.clear()


def _full_path(
    templates: SiteTemplates | None, html: bytes, url: str | None, figures: _StoredRules
) -> str:
    """Today's path: the full page model, the rules on it, else single mode."""
    try:
        page = figures.time("parse_page", functools.partial(parse_page, html, url))
    except NewsExtractError:
        return ""
    article = templates.extract(page) if templates is not None else None
    return _text(article or extract_article(page), figures.headline_first)


def _light_path(
    templates: SiteTemplates | None, html: bytes, url: str | None, headline_first: bool
) -> str | None:
    """The light page of stored rules; None where the page falls back to the full path."""
    article = templates.extract_raw(html, url) if templates is not None else None
    return _text(article, headline_first) if article is not None else None


def _text(article: Article, headline_first: bool) -> str:
    """The article's body, with the headline first when the set's gold opens with it."""
    return with_headline(article.body, article.headline) if headline_first else article.body


def _stored_rules(
    entries: Sequence[ManifestEntry],
    group_by: str,
    config: TemplateConfig,
    traf: bool,
    repeat: int,
    headline_first: bool = False,
) -> _StoredRules:
    """Rules learned on each group's pages (untimed), then applied from each page's bytes by
    fresh instances, as a later crawl would: no history of bodies, rules from the store.
    Each page is timed ``repeat`` times on each path in turn; its fastest run counts (on a
    shared machine, the others measure the neighbours' load)."""
    figures = _StoredRules(headline_first)
    groups: dict[str, list[ManifestEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.group_key(group_by), []).append(entry)
    for key, members in groups.items():
        htmls = [entry.read_html() for entry in members]
        learned = SiteTemplates(key, None, config)
        if not key.startswith("_single:"):
            learned.learn([parse_page(html, e.url) for html, e in zip(htmls, members, strict=True)])
        versions = learned.versions()
        light = SiteTemplates.from_versions(key, versions) if versions else None
        full = SiteTemplates.from_versions(key, versions) if versions else None
        for html, entry in zip(htmls, members, strict=True):
            for run in range(repeat):
                _time_page(figures, entry, html, (light, full), traf, run)
            figures.next_page()
            figures.sizes.append(len(html))
    return figures


def _time_page(
    figures: _StoredRules,
    entry: ManifestEntry,
    html: bytes,
    templates: tuple[SiteTemplates | None, SiteTemplates | None],
    traf: bool,
    run: int,
) -> None:
    """One run of each path on the page: trafilatura, the light page, the full page model,
    starting with the next one at each run (so that none always runs in another's wake)."""
    light, full = templates
    runs = [
        functools.partial(_time_light, figures, entry, html, light),
        functools.partial(_time_full, figures, entry, html, full),
    ]
    if traf:
        runs.insert(0, functools.partial(_time_trafilatura, figures, entry, html))
    for number in range(len(runs)):
        runs[(number + run) % len(runs)]()


def _time_trafilatura(figures: _StoredRules, entry: ManifestEntry, html: bytes) -> None:
    traf_body = figures.time("trafilatura", functools.partial(_trafilatura, html))
    figures.trafilatura[entry.id] = traf_body


def _time_light(
    figures: _StoredRules, entry: ManifestEntry, html: bytes, templates: SiteTemplates | None
) -> None:
    light_path = functools.partial(_light_or_full, templates, html, entry, figures)
    figures.light[entry.id] = figures.time("light", light_path)


def _time_full(
    figures: _StoredRules, entry: ManifestEntry, html: bytes, templates: SiteTemplates | None
) -> None:
    full_path = functools.partial(_full_path, templates, html, entry.url, figures)
    figures.full[entry.id] = figures.time("full", full_path)


def _light_or_full(
    templates: SiteTemplates | None, html: bytes, entry: ManifestEntry, figures: _StoredRules
) -> str:
    body = _light_path(templates, html, entry.url, figures.headline_first)
    if body is not None:
        figures.by_rules.add(entry.id)
        return body
    untimed = _StoredRules(figures.headline_first)  # not the full path's parse
    return _full_path(templates, html, entry.url, untimed)


def _print_stored_rules(entries: Sequence[ManifestEntry], figures: _StoredRules) -> None:
    print(_line("stored rules, full page", _summary(entries, _ordered(entries, figures.full))))
    print(_line("stored rules, light page", _summary(entries, _ordered(entries, figures.light))))
    differ = sum(figures.light[e.id] != figures.full[e.id] for e in entries)
    light_share = f"{len(figures.by_rules)} pages by the light page, the rest fell back"
    print(f"{'':<28} {light_share}; {differ} bodies differ from the full page's")
    seconds = figures.seconds
    traf = seconds.get("trafilatura", [])
    print("bytes -> record, in turn       1 / median        total time")
    for name, label in _TIMED:
        if name in seconds:
            rates = f"{_rate(seconds[name])} {_total_rate(seconds[name])}"
            print(f"  {label:<26} {rates}{_ratio(traf, seconds[name])}")
    if traf and "light" in seconds:
        print(_speedups(traf, seconds["light"], figures.sizes))


_TIMED = (
    ("trafilatura", "trafilatura"),
    ("full", "parse_page + rules"),
    ("light", "light page + rules"),
    ("parse_page", "parse_page alone"),
)


def _ordered(entries: Sequence[ManifestEntry], bodies: dict[str, str]) -> list[str]:
    return [bodies[entry.id] for entry in entries]


def _total_rate(seconds: Sequence[float]) -> str:
    return f"{len(seconds) / sum(seconds):8.0f} pages/s" if sum(seconds) else ""


def _ratio(reference: Sequence[float], seconds: Sequence[float]) -> str:
    """How many times trafilatura's pages per second, by median and by total time."""
    if not reference or reference is seconds:
        return ""
    by_median = statistics.median(reference) / statistics.median(seconds)
    return f"   {by_median:5.1f}x / {sum(reference) / sum(seconds):5.1f}x trafilatura"


#: Share of the largest pages left out of the trimmed total: whether a few big pages, where
#: trafilatura is slowest, carry the speed-up by total time.
LARGEST_SHARE_DEFAULT = 0.05


def _speedups(reference: Sequence[float], seconds: Sequence[float], sizes: Sequence[int]) -> str:
    """The light page's speed-up page by page, and by total time without the largest pages."""
    ratios = [slow / fast for slow, fast in zip(reference, seconds, strict=True)]
    by_size = sorted(range(len(sizes)), key=sizes.__getitem__)
    kept = by_size[: max(1, round(len(by_size) * (1 - LARGEST_SHARE_DEFAULT)))]
    trimmed = sum(reference[i] for i in kept) / sum(seconds[i] for i in kept)
    return (
        f"  light page's speed-up per page: median {statistics.median(ratios):.1f}x, geometric"
        f" mean {statistics.geometric_mean(ratios):.1f}x; by total time without the"
        f" {LARGEST_SHARE_DEFAULT:.0%} largest pages {trimmed:.1f}x"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("manifest", type=Path)
    parser.add_argument("--group-by", default="domain")
    parser.add_argument("--min-group", type=int, default=2)
    parser.add_argument("--template-only", action="store_true")
    parser.add_argument("--no-trafilatura", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each page on each path (fastest counts)"
    )
    args = parser.parse_args(argv)
    config = TemplateConfig(single_page_veto=not args.template_only)
    entries = list(read_manifest(args.manifest))
    sizes = Counter(e.group_key(args.group_by) for e in entries)
    entries = [e for e in entries if sizes[e.group_key(args.group_by)] >= args.min_group]
    first = gold_opens_with_headline(args.manifest)
    outcomes, stats = extract_site_mode(entries, group_by=args.group_by, config=config)
    site = [with_headline(o.body, o.headline) if first else o.body for o in outcomes]
    print(_line("site mode", _summary(entries, site)))
    print(f"{'':<28} methods {dict(Counter(o.method for o in outcomes))}")
    single = [_text(extract_article(parse_page(e.read_html(), e.url)), first) for e in entries]
    print(_line("single mode", _summary(entries, single)))
    traf = not args.no_trafilatura
    repeat = max(1, args.repeat)
    figures = _stored_rules(entries, args.group_by, config, traf, repeat, first)
    if figures.trafilatura:
        print(_line("trafilatura", _summary(entries, _ordered(entries, figures.trafilatura))))
    _print_stored_rules(entries, figures)
    induction = stats.induction_seconds
    print(
        f"induction per group          median {statistics.median(induction):.3f} s, "
        f"max {max(induction):.3f} s over {len(induction)} groups"
    )
    print(f"reduction ratio (method B)   mean {statistics.mean(stats.reduction_ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Pages per second through the crawl's template stage with stored rules, side by side with
single-page extraction and trafilatura on the same pages, with the F1 of each.

    python benchmarks/template_stage.py ../shared/data/msv_big9_dev --group-by site

Pages are fed to the stage as a crawl would (a PageItem per page, grouped per site and URL
pattern; pages without a URL get one on their site). A first, untimed pass learns and saves
each site's rules; the timed pass is a new stage over the same rules directory, i.e. a later
crawl: every page takes the fast path from the first, on a light page (decoded, parsed, and
cleaned and cut into blocks only where the rules look), and the full page model only where
that gives no validated answer. Single-page extraction is what the ExtractionPipeline does
(parse_page + extract_article). Timings include decoding and parsing.
"""

from __future__ import annotations

import argparse
import collections
import functools
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import score_page, summarise
from newsextract.extraction import extract_article, parse_page
from newsextract.items import ArticleItem, PageItem
from newsextract.pipelines.learning import LearnerConfig, SiteLearner
from newsextract.templates.site import SiteTemplates


def page_items(entries: list[ManifestEntry], group_by: str) -> list[PageItem]:
    items = []
    for entry in entries:
        site = entry.group_key(group_by)
        url = entry.url or f"https://{entry.fields.get('domain') or site}/news/{entry.id}.html"
        items.append(PageItem(url, entry.read_html(), "text/html", 200, site, "2026-01-01"))
    return items


def run_stage(learner: SiteLearner, items: list[PageItem]) -> dict[str, str | None]:
    """Each page's body from the stage (None: passed on to single-page extraction)."""
    bodies: dict[str, str | None] = {}

    def record(item: PageItem, result: object) -> None:
        bodies[item.url] = result.articleBody if isinstance(result, ArticleItem) else None

    for item in items:
        verdict = learner.process(item)
        for held, result in verdict.released:
            record(held.item, result)
        if verdict.held is None:
            record(item, verdict.result)
    for held, result in learner.release_all():
        record(held.item, result)
    return bodies


def single(item: PageItem) -> str:
    return extract_article(parse_page(item.body, item.url, item.content_type)).body


def trafilatura_body(item: PageItem) -> str:
    import trafilatura

    return trafilatura.extract(item.body, url=item.url) or ""


def each(extract: Callable[[PageItem], str], items: list[PageItem]) -> dict[str, str | None]:
    return {item.url: extract(item) for item in items}


def timed(
    name: str, items: list[PageItem], run: Callable[[], dict[str, str | None]], repeat: int
) -> tuple[float, dict[str, str | None]]:
    best, bodies = float("inf"), {}
    for _ in range(repeat):
        start = time.perf_counter()
        bodies = run()
        best = min(best, time.perf_counter() - start)
    print(f"{name:<34} {len(items) / best:8.1f} pages/s", end="")
    return best, bodies


Gold = dict[str, tuple[str, str]]  # url -> (gold text, language)


def f1_of(bodies: dict[str, str | None], items: list[PageItem], gold: Gold) -> str:
    scores = [score_page(bodies.get(i.url) or "", *gold[i.url]) for i in items]
    summary = summarise(scores)
    return f"F1 {summary.f1:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifest", type=Path)
    parser.add_argument("--group-by", default="domain")
    parser.add_argument("--min-pages", type=int, default=5, help="skip smaller sites")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--where", metavar="FIELD=VALUE", help="only pages with this value")
    args = parser.parse_args(argv)

    entries = list(read_manifest(args.manifest))
    if args.where:
        field, _, value = args.where.partition("=")
        entries = [e for e in entries if str(e.fields.get(field)) == value]
    sizes = collections.Counter(entry.group_key(args.group_by) for entry in entries)
    entries = [e for e in entries if sizes[e.group_key(args.group_by)] >= args.min_pages]
    sites = len({e.group_key(args.group_by) for e in entries})
    items = page_items(entries, args.group_by)
    gold = {i.url: (e.read_gold(), e.lang) for i, e in zip(items, entries, strict=True)}
    with tempfile.TemporaryDirectory() as rules:
        config = LearnerConfig(rules_dir=Path(rules))
        learned = run_stage(SiteLearner(SiteTemplates, config), items)
        first = {i.url: learned[i.url] if learned[i.url] is not None else single(i) for i in items}
        print(f"{len(items)} pages, {sites} sites; first crawl (learning): "
              f"{sum(b is not None for b in learned.values())} pages by rules, "
              f"{f1_of(first, items, gold)} (rest single)")  # fmt: skip

        stats: collections.Counter[str] = collections.Counter()

        def stored() -> dict[str, str | None]:
            stats.clear()
            for item in items:
                item.page = None  # a new crawl: nothing parsed yet
            return run_stage(
                SiteLearner(SiteTemplates, config, lambda key: stats.update([key])), items
            )

        _, bodies = timed("stage, stored rules (parse incl.)", items, stored, args.repeat)
        by_rules = sum(body is not None for body in bodies.values())
        filled = {i.url: bodies[i.url] if bodies[i.url] is not None else single(i) for i in items}
        print(f"  {by_rules}/{len(items)} by rules ({stats['light']} on the light page), "
              f"{f1_of(filled, items, gold)} (rest single)")  # fmt: skip
    for name, extract in (("single-page (parse + extract)", single),
                          ("trafilatura 2.3.1", trafilatura_body)):  # fmt: skip
        _, bodies = timed(name, items, functools.partial(each, extract, items), args.repeat)
        print(f"  {f1_of(bodies, items, gold)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

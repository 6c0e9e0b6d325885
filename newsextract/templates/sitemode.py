"""Site mode for the batch and eval commands: pages sharing a group value form a site; each
page's body may use everything learned from all pages of its group (never gold text)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.outcome import PageOutcome
from newsextract.exceptions import NewsExtractError
from newsextract.extraction import extract_article
from newsextract.extraction.page import Page, parse_page
from newsextract.templates.alignment import reduction_ratio
from newsextract.templates.combine import combine
from newsextract.templates.config import DEFAULT, TemplateConfig
from newsextract.templates.site import SiteTemplates


@dataclass(frozen=True)
class SiteModeStats:
    groups: int
    induction_seconds: list[float] = field(default_factory=list)
    application_seconds: list[float] = field(default_factory=list)
    reduction_ratios: list[float] = field(default_factory=list)


@dataclass
class _Parsed:
    entry: ManifestEntry
    page: Page | None
    seconds: float
    error: str | None = None


def _parse(entry: ManifestEntry) -> _Parsed:
    start = time.perf_counter()
    try:
        page = parse_page(entry.read_html(), entry.url)
    except (NewsExtractError, OSError, ValueError) as error:
        return _Parsed(entry, None, time.perf_counter() - start, f"{type(error).__name__}: {error}")
    return _Parsed(entry, page, time.perf_counter() - start)


def _groups(entries: Sequence[ManifestEntry], group_by: str) -> dict[str, list[ManifestEntry]]:
    groups: dict[str, list[ManifestEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.group_key(group_by), []).append(entry)
    return groups


def extract_site_mode(
    entries: Sequence[ManifestEntry],
    *,
    group_by: str = "domain",
    rules_dir: Path | None = None,
    learn: bool = True,
    config: TemplateConfig = DEFAULT,
) -> tuple[list[PageOutcome], SiteModeStats]:
    """Outcomes in the order of ``entries``, and the figures of seed 002."""
    outcomes: dict[str, PageOutcome] = {}
    figures = _Figures()
    for key, members in _groups(entries, group_by).items():
        parsed = [_parse(entry) for entry in members]
        templates = None
        if not key.startswith("_single:"):
            templates = _site_templates(key, parsed, rules_dir, learn, config, figures)
        for item in parsed:
            outcomes[item.entry.id] = _outcome(item, templates, figures, config.combine_single)
    stats = SiteModeStats(figures.groups, figures.induction, figures.application, figures.reduction)
    return [outcomes[entry.id] for entry in entries], stats


@dataclass
class _Figures:
    """The figures gathered during a run (frozen into :class:`SiteModeStats` at its end)."""

    groups: int = 0
    induction: list[float] = field(default_factory=list)
    application: list[float] = field(default_factory=list)
    reduction: list[float] = field(default_factory=list)


def _site_templates(
    site: str,
    parsed: list[_Parsed],
    rules_dir: Path | None,
    learn: bool,
    config: TemplateConfig,
    figures: _Figures,
) -> SiteTemplates | None:
    pages = [item.page for item in parsed if item.page is not None]
    templates = SiteTemplates(site, rules_dir, config)
    if learn and len(pages) >= config.min_pages:
        figures.groups += 1
        start = time.perf_counter()
        templates.learn(pages)
        figures.induction.append(time.perf_counter() - start)
        figures.reduction.append(_reduction_ratio(pages))
    elif not learn and templates.has_rules():
        figures.groups += 1
    return templates if templates.has_rules() else None


#: Page pairs aligned per group for the reduction ratio (seed 002's figure; each pair costs a
#: few milliseconds).
RATIO_PAIRS_DEFAULT = 5


def _reduction_ratio(pages: Sequence[Page]) -> float:
    """Mean reduction ratio of consecutive page pairs of the group."""
    pairs = list(zip(pages, pages[1:], strict=False))[:RATIO_PAIRS_DEFAULT]
    return sum(reduction_ratio(a.root, b.root) for a, b in pairs) / len(pairs)


def _outcome(
    item: _Parsed, templates: SiteTemplates | None, figures: _Figures, combine_single: bool
) -> PageOutcome:
    if item.page is None:
        return PageOutcome(item.entry, "", "failed", item.seconds, item.error)
    start = time.perf_counter()
    article = templates.extract(item.page) if templates is not None else None
    if article is not None and combine_single:
        # without a single-page answer on this page, the rules' answer stands
        with contextlib.suppress(NewsExtractError):
            article = combine(item.page, article, extract_article(item.page))
    if article is not None:
        seconds = time.perf_counter() - start
        figures.application.append(seconds)
        return PageOutcome(item.entry, article.body, article.method, item.seconds + seconds)
    try:
        single = extract_article(item.page)
    except NewsExtractError as error:
        seconds = item.seconds + time.perf_counter() - start
        return PageOutcome(item.entry, "", "failed", seconds, f"{type(error).__name__}: {error}")
    return PageOutcome(
        item.entry, single.body, single.method, item.seconds + time.perf_counter() - start
    )

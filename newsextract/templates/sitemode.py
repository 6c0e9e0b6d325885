"""Site mode for the batch and eval commands: pages sharing a group value form a site; each
page's body may use everything learned from all pages of its group (never gold text).

Each site's rules are learned from its pages (or read from the rules directory), then every
page gets the rules' answer and the single-page answer. The single-page answers are first
checked against one another: a block kept on one page at a place the site's other pages drop is
dropped (consistency.py). Where the rules and the single-page answers agree on the site as a
whole, the page's body is the rules' answer narrowed to what the single-page answer keeps, with
the non-template blocks it keeps above the region (``template+single``, combine.py); where they
do not, the site's template is not trusted and the checked single-page answers stand. Pages
without rules, and sites of one page, get single mode.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from newsextract.evaluation.dataset import ManifestEntry, group_entries
from newsextract.evaluation.outcome import PageOutcome
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.decision.combiner import keep_threshold
from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.extraction.record.article import Article, scored_article
from newsextract.templates.alignment import reduction_ratio
from newsextract.templates.combine import agreement, combine, narrowed
from newsextract.templates.config import DEFAULT, TemplateConfig
from newsextract.templates.consistency import (
    PageVerdict,
    consistent_kept,
)
from newsextract.templates.frequency import find_template_blocks
from newsextract.templates.rules import apply_version, find_region
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
        page = parse_page(entry.read_html(), entry.url, entry.content_type or None)
    except (NewsExtractError, OSError, EOFError, ValueError) as error:  # EOFError: a cut .gz
        return _Parsed(entry, None, time.perf_counter() - start, f"{type(error).__name__}: {error}")
    return _Parsed(entry, page, time.perf_counter() - start)


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
    for key, members in group_entries(entries, group_by).items():
        parsed = [_parse(entry) for entry in members]
        templates = None
        if not key.startswith("_single:"):
            templates = _site_templates(key, parsed, rules_dir, learn, config, figures)
        for outcome in _group_outcomes(parsed, templates, figures, config, learn):
            outcomes[outcome.entry.id] = outcome
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
    templates = SiteTemplates(site, rules_dir, config)
    return _learned(templates, parsed, learn, config, figures)


def _learned(
    templates: SiteTemplates,
    parsed: list[_Parsed],
    learn: bool,
    config: TemplateConfig,
    figures: _Figures,
) -> SiteTemplates | None:
    """``templates`` once learned from the parsed pages (when ``learn``), or None without
    rules."""
    pages = [item.page for item in parsed if item.page is not None]
    if learn and len(pages) >= config.min_pages:
        figures.groups += 1
        start = time.perf_counter()
        templates.learn(pages)
        figures.induction.append(time.perf_counter() - start)
        figures.reduction.append(_reduction_ratio(pages))
    elif not learn and templates.has_rules():
        figures.groups += 1
    return templates if templates.has_rules() else None


def site_outcomes(
    pages: Sequence[tuple[ManifestEntry, Page]], templates: SiteTemplates, *, learn: bool = True
) -> list[PageOutcome]:
    """One site's parsed pages read as :func:`extract_site_mode` reads a group, with the rules
    of ``templates`` (first learned from these pages when ``learn``; kept by ``templates``)."""
    parsed = [_Parsed(entry, page, 0.0) for entry, page in pages]
    figures = _Figures()
    learned = _learned(templates, parsed, learn, templates.config, figures)
    return _group_outcomes(parsed, learned, figures, templates.config, learn)


#: Page pairs aligned per group for the reduction ratio (seed 002's figure; each pair costs a
#: few milliseconds).
RATIO_PAIRS_DEFAULT = 5


def _reduction_ratio(pages: Sequence[Page]) -> float:
    """Mean reduction ratio of consecutive page pairs of the group."""
    pairs = list(zip(pages, pages[1:], strict=False))[:RATIO_PAIRS_DEFAULT]
    return sum(reduction_ratio(a.root, b.root) for a, b in pairs) / len(pairs)


@dataclass
class _Answers:
    """One page's answers: the rules' (timed) and the single-page one, with what the site's
    other pages tell about it."""

    item: _Parsed
    rules: Article | None = None
    single: Article | None = None
    error: str | None = None
    seconds: float = 0.0  # both answers
    rules_seconds: float = 0.0  # applying the rules alone
    scores: tuple[float, ...] = ()  # the single-page score of every block
    region_start: int | None = None  # first block inside the rules' region
    template: frozenset[int] = frozenset()  # method A's template blocks on the page


def _group_outcomes(
    parsed: list[_Parsed],
    templates: SiteTemplates | None,
    figures: _Figures,
    config: TemplateConfig,
    learn: bool = True,
) -> list[PageOutcome]:
    """``learn``: the group's pages may inform one another (site consistency, method A's
    template); without it each page gets its rules and its own single-page answer only."""
    with_scores = learn and config.combine_single and config.site_consistency
    answers = [_answers(item, templates, config, with_scores) for item in parsed]
    for answer in answers:
        if answer.rules is not None:
            figures.application.append(answer.rules_seconds)
    pairs = [
        (a.rules.body, a.single.body, a.item.entry.lang)
        for a in answers
        if a.rules is not None and a.single is not None
    ]
    trusted = not pairs or agreement(pairs) >= config.min_agreement
    if with_scores:
        _check_against_site(answers, config)
    if learn and templates is not None and config.combine_single:
        _mark_template(answers, config)
    return [_outcome(answer, config.combine_single, trusted) for answer in answers]


def _answers(
    item: _Parsed, templates: SiteTemplates | None, config: TemplateConfig, with_scores: bool
) -> _Answers:
    answer, with_single = _Answers(item), config.combine_single
    if item.page is None:
        return answer
    start = time.perf_counter()
    answer.rules = templates.extract(item.page) if templates is not None else None
    answer.seconds = answer.rules_seconds = time.perf_counter() - start
    if answer.rules is not None and templates is not None and with_single:
        answer.region_start = _region_start(templates, item.page)
    if answer.rules is None or with_single:
        start = time.perf_counter()
        try:
            scored = scored_article(item.page, config.single_page)
            answer.single = scored.article
            answer.scores = tuple(map(float, scored.scores)) if with_scores else ()
        except NewsExtractError as error:
            answer.error = f"{type(error).__name__}: {error}"
        answer.seconds += time.perf_counter() - start
    return answer


def _region_start(templates: SiteTemplates, page: Page) -> int | None:
    """Index of the first block inside the region the current rules find on the page."""
    version = templates.current()
    applied = apply_version(version, page) if version is not None else None
    if version is None or applied is None:
        return None
    region = find_region(page, version.bodies[applied.rule_index])
    inside = {id(element) for element in region.iter()} if region is not None else set()
    return next((b.index for b in page.blocks if id(b.element) in inside), None)


def _check_against_site(answers: Sequence[_Answers], config: TemplateConfig) -> None:
    """Narrow each single-page answer by the site's other pages (consistency.py)."""
    checked = [
        (answer, PageVerdict(answer.item.page, answer.single.kept_blocks, answer.scores))
        for answer in answers
        if answer.item.page is not None and answer.single is not None
    ]
    threshold = keep_threshold(config.single_page)
    kept = consistent_kept([v for _, v in checked], threshold, config.consistency)
    for (answer, verdict), blocks in zip(checked, kept, strict=True):
        if answer.single is not None:
            answer.single = narrowed(verdict.page, answer.single, blocks)


def _mark_template(answers: Sequence[_Answers], config: TemplateConfig) -> None:
    """Method A's template blocks on every page of the group."""
    parsed = [a for a in answers if a.item.page is not None]
    pages = [a.item.page.blocks for a in parsed if a.item.page is not None]
    template = find_template_blocks(pages, config.frequency)
    for answer, marked in zip(parsed, template.template, strict=True):
        answer.template = marked


def _outcome(answer: _Answers, combine_single: bool, trusted: bool) -> PageOutcome:
    """The rules' answer, narrowed by the single-page one where the site's rules and the
    single-page answers agree; the single-page answer where they do not, or without rules."""
    item, seconds = answer.item, answer.item.seconds + answer.seconds
    if item.page is None:
        return PageOutcome(item.entry, "", "failed", item.seconds, item.error)
    chosen = answer.rules
    if answer.single is not None and (chosen is None or (combine_single and not trusted)):
        chosen = answer.single
    elif chosen is not None and answer.single is not None and combine_single:
        chosen = combine(item.page, chosen, answer.single, answer.template, answer.region_start)
    if chosen is None:
        return PageOutcome(item.entry, "", "failed", seconds, answer.error)
    return PageOutcome(
        item.entry, chosen.body, chosen.method, seconds, headline=chosen.headline, article=chosen
    )

"""Induction: from pages of one site and kind to a rule version (methods A and B, compiled)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from newsextract.extraction.combiner import extract_article
from newsextract.extraction.page import Page
from newsextract.templates.compile import body_rule, choose_regions, headline_rule, meta_rules
from newsextract.templates.config import DEFAULT, TemplateConfig
from newsextract.templates.evidence import PageEvidence, page_evidence
from newsextract.templates.frequency import GroupTemplate, find_template_blocks
from newsextract.templates.rules import RuleVersion, find_region


@dataclass(frozen=True)
class Induction:
    version: RuleVersion | None
    template: GroupTemplate
    evidence: tuple[PageEvidence, ...]
    seconds: float


def group_evidence(
    pages: Sequence[Page], config: TemplateConfig = DEFAULT
) -> tuple[GroupTemplate, tuple[PageEvidence, ...]]:
    template = find_template_blocks([p.blocks for p in pages], config.frequency)
    evidence = tuple(
        page_evidence(p, _not_content(p, template.template[n], config),
                      config.compile.max_link_density, config.noise_weight)
        for n, p in enumerate(pages)
    )
    return template, evidence


def _not_content(page: Page, template: frozenset[int], config: TemplateConfig) -> frozenset[int]:
    """Template blocks, and the blocks the single-page answer rejects: its veto on per-page
    noise that repeats nowhere (a related-stories box differs on every page)."""
    if not config.single_page_veto:
        return template
    kept = set(extract_article(page).kept_blocks)
    return template | {b.index for b in page.blocks if b.index not in kept}


def induce(
    pages: Sequence[Page], site: str, kind: str = "article", config: TemplateConfig = DEFAULT
) -> Induction:
    """Learn a version from the pages (number 0: the store numbers it when it is saved)."""
    start = time.perf_counter()
    template, evidence = group_evidence(pages, config)
    version = compile_version(evidence, site, kind, config)
    return Induction(version, template, evidence, time.perf_counter() - start)


def compile_version(
    evidence: Sequence[PageEvidence], site: str, kind: str, config: TemplateConfig = DEFAULT
) -> RuleVersion | None:
    chosen = choose_regions(evidence, config.compile)
    if not chosen:
        return None
    bodies = tuple(
        body_rule(candidate, [evidence[n] for n in covered], config.compile)
        for candidate, covered in chosen
    )
    regions = []
    for e in evidence:
        found = (find_region(e.page, rule) for rule in bodies)
        regions.append(next((r for r in found if r is not None), None))
    fields = meta_rules(evidence)
    headline = headline_rule(evidence, regions)
    if headline is not None:
        fields = (headline, *fields)
    return RuleVersion(site, kind, 0, bodies=bodies, fields=fields)

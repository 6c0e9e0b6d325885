"""Induction: from pages of one site and kind to a rule version (methods A and B, compiled)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from newsextract.exceptions import NewsExtractError
from newsextract.extraction.pagemodel.page import Page
from newsextract.extraction.record.article import extract_article
from newsextract.templates.compile import body_rule, choose_regions, headline_rules, meta_rules
from newsextract.templates.config import DEFAULT, TemplateConfig
from newsextract.templates.evidence import PageEvidence, page_evidence
from newsextract.templates.frequency import GroupTemplate, find_template_blocks
from newsextract.templates.noise import named_noise
from newsextract.templates.rules import RuleVersion, find_region

logger = logging.getLogger(__name__)


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
    evidence = []
    for n, page in enumerate(pages):
        rejected, named = _not_content(page, template.template[n], config)
        evidence.append(
            page_evidence(
                page, rejected, config.compile.max_link_density, config.noise_weight, named
            )
        )
    return template, tuple(evidence)


def _not_content(
    page: Page, template: frozenset[int], config: TemplateConfig
) -> tuple[frozenset[int], frozenset[int]]:
    """Template blocks, the blocks the single-page answer rejects (its veto on per-page noise
    that repeats nowhere: a related-stories box differs on every page) and named noise."""
    rejected = set(template)
    if config.single_page_veto:
        try:
            kept = set(extract_article(page, config.single_page).kept_blocks)
        except NewsExtractError as error:  # no veto on this page: the template alone decides
            logger.warning("single-page answer unavailable for %s: %s", page.url, error)
            kept = {b.index for b in page.blocks}
        rejected |= {b.index for b in page.blocks if b.index not in kept}
    named: frozenset[int] = frozenset()
    if config.named_noise:
        named = named_noise(page, [b.index not in rejected for b in page.blocks])
    return frozenset(rejected | named), named


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
    fields = (*headline_rules(evidence, regions), *fields)
    return RuleVersion(site, kind, 0, bodies=bodies, fields=fields)

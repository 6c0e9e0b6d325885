"""Re-induction after a redesign (seed 002, section 6): find the values extracted earlier from a
page in the redesigned page, by their content, and recompute the rules from where they now are.

The earlier body's lines mark the content blocks of the new page; everything else is treated
as template, and the usual compiler turns that evidence into a new version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from newsextract.extraction.pagemodel.page import Page
from newsextract.templates.config import DEFAULT, TemplateConfig
from newsextract.templates.evidence import PageEvidence, page_evidence
from newsextract.templates.induce import compile_version
from newsextract.templates.rules import RuleVersion

#: Share of an earlier body that must be found again in the new page for it to count as the
#: same article (a redesign keeps the text; a different story under the URL does not).
MIN_FOUND_SHARE_DEFAULT = 0.6


@dataclass(frozen=True)
class Previous:
    """What was extracted from a URL before: enough to find it again."""

    url: str
    headline: str
    body: str


def _lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip()}


def evidence_from_previous(
    page: Page, previous: Previous, config: TemplateConfig = DEFAULT
) -> PageEvidence | None:
    """The page's evidence with content = blocks holding the earlier values; None when too
    little of the earlier body is found."""
    wanted = _lines(previous.body)
    found = {b.index for b in page.blocks if b.text in wanted}
    found_chars = sum(len(page.blocks[i].text) for i in found)
    if not wanted or found_chars < MIN_FOUND_SHARE_DEFAULT * sum(len(w) for w in wanted):
        return None
    template = [b.index for b in page.blocks if b.index not in found]
    return page_evidence(page, template, config.compile.max_link_density, config.noise_weight)


def reinduce(
    pairs: Sequence[tuple[Page, Previous]],
    site: str,
    kind: str = "article",
    config: TemplateConfig = DEFAULT,
) -> RuleVersion | None:
    """A new version from redesigned pages whose earlier extraction is known."""
    evidence = [e for page, prev in pairs if (e := evidence_from_previous(page, prev, config))]
    if not evidence:
        return None
    version = compile_version(evidence, site, kind, config)
    return None if version is None else replace(version, source="reinduced")

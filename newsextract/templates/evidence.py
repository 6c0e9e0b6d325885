"""Per-page evidence for induction: which blocks are content, and how good each element is as
the page's body region.

A block is *content* when method A did not mark it as template and its link density is low.
An element's region score is the content text it holds less ``noise_weight`` times the noise
text it holds (template blocks, link lists): the best region holds the article and little else.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from lxml import etree

from newsextract.extraction.pagemodel.page import Page
from newsextract.templates.rules import MAX_LINK_DENSITY_DEFAULT, BodyRule, select
from newsextract.templates.xpaths import is_indexed_pivot, pivot_index

#: Weight of noise text against content text in a region's score. 1 was best on msv_big9_dev
#: and dragnet (0.5: 0.960 / 0.924, 1: 0.966 / 0.925, 2: 0.958 / 0.922).
NOISE_WEIGHT_DEFAULT = 1.0
#: Weight of noise the rules remove anyway (boxes named as noise, dropped at application)
#: against a region. latimes.com 2017 splits its story around related-story boxes: at full
#: weight the region shrank to one part of it. Swept 0.2-1 on msv_big9_dev and dragnet: 0.35
#: (msv 0.962 -> 0.966, dragnet 0.925 -> 0.925); weighing link lists less lost precision.
REMOVABLE_NOISE_WEIGHT_DEFAULT = 0.35


@dataclass(frozen=True)
class PageEvidence:
    page: Page
    content: tuple[bool, ...]  # per block
    template: frozenset[int]
    content_chars: dict[etree._Element, int]
    noise_chars: dict[etree._Element, int]
    best: etree._Element
    best_score: float
    noise_weight: float
    pivots: dict[str, list[etree._Element]]  # pivot XPath -> elements, for fast induction

    def select_pivot(self, pivot: str) -> list[etree._Element]:
        if pivot in self.pivots or is_indexed_pivot(pivot):
            return self.pivots.get(pivot, [])
        return select(self.page.root, pivot)

    def find_region(self, rule: BodyRule) -> etree._Element | None:
        """Like :func:`rules.find_region`, with the pivot looked up in the page's index."""
        pivots = self.select_pivot(rule.pivot)
        if len(pivots) != 1:
            return None
        regions = select(pivots[0], rule.path)
        return regions[0] if len(regions) == 1 else None

    def score(self, element: etree._Element) -> float:
        return self.content_chars.get(element, 0) - self.noise_weight * self.noise_chars.get(
            element, 0
        )

    def ratio(self, element: etree._Element) -> float:
        """How close an element comes to the page's best region (1 = as good)."""
        return self.score(element) / self.best_score if self.best_score > 0 else 0.0

    @property
    def total_content(self) -> int:
        return sum(len(b.text) for b, ok in zip(self.page.blocks, self.content, strict=True) if ok)


def page_evidence(
    page: Page,
    template: Collection[int],
    max_link_density: float = MAX_LINK_DENSITY_DEFAULT,
    noise_weight: float = NOISE_WEIGHT_DEFAULT,
    removable: Collection[int] = (),
    removable_weight: float = REMOVABLE_NOISE_WEIGHT_DEFAULT,
) -> PageEvidence:
    """``template``: blocks that are not content (method A's template and any veto);
    ``removable``: those of them that the rules will remove anyway (named noise boxes)."""
    content = tuple(
        b.index not in template and b.link_density <= max_link_density for b in page.blocks
    )
    content_chars: dict[etree._Element, int] = {}
    noise_chars: dict[etree._Element, int] = {}
    for block, is_content in zip(page.blocks, content, strict=True):
        target = content_chars if is_content else noise_chars
        weight = 1.0
        if not is_content and block.index in removable:
            weight = removable_weight
        size = round(len(block.text) * weight)
        element: etree._Element | None = block.element
        while element is not None:
            target[element] = target.get(element, 0) + size
            element = element.getparent()
    best, best_score = page.root, float("-inf")
    for element in content_chars:
        score = content_chars[element] - noise_weight * noise_chars.get(element, 0)
        if score > best_score:
            best, best_score = element, score
    return PageEvidence(
        page,
        content,
        frozenset(template),
        content_chars,
        noise_chars,
        best,
        max(best_score, 0.0),
        noise_weight,
        pivot_index(page.root),
    )

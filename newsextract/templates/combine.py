"""Template and single-page answers combined ("template+single"), for the batch commands.

The rules give the site's body region with its template removed; the single-page answer gives
the page's own judgement. The combined body keeps the blocks both agree on, and the blocks the
single-page answer keeps just above the region (headline, byline, date sit just outside the
site's container). The crawl's fast path applies the rules alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from newsextract.evaluation.metric import score_page
from newsextract.extraction.page import Page
from newsextract.extraction.result import Article

#: How many blocks above the region may still be the article's head (headline, standfirst,
#: byline, date). 8 and "any non-template block" gave the same F1 on msv_big9_dev (0.983) and
#: cleanportaleval (0.965).
HEAD_BLOCKS_DEFAULT = 8
COMBINED_METHOD = "template+single"
#: Mean agreement (the metric's F1 of the rules' body against the single-page body) over a
#: site's pages below which site mode trusts the single-page answers instead of the rules on
#: that site. dragnet (5+ pages), site mode: 0.85 / 0.9 / 0.95 gave 0.944 / 0.945 / 0.947
#: (single mode 0.948); msv_big9_dev stayed at 0.983 from 0.7 to 0.9.
MIN_AGREEMENT_DEFAULT = 0.9


def combine(page: Page, rules: Article, single: Article) -> Article:
    """The rules' article with its body narrowed to what the single-page answer agrees with."""
    if not rules.kept_blocks:
        return rules
    inside = set(rules.kept_blocks)
    agreed = {i for i in single.kept_blocks if i in inside}
    start = min(rules.kept_blocks)
    head = {i for i in single.kept_blocks if start - HEAD_BLOCKS_DEFAULT <= i < start}
    kept = tuple(sorted(agreed | head))
    if not agreed:
        return rules  # the single-page answer missed the region: trust the rules
    body = "\n".join(page.blocks[i].text for i in kept)
    return replace(rules, body=body, kept_blocks=kept, method=COMBINED_METHOD)


def agreement(pairs: Sequence[tuple[str, str, str]]) -> float:
    """How much a site's rule answers agree with its single-page answers: the mean F1 of
    (rules body, single body, language) taken as (prediction, reference). No gold text."""
    if not pairs:
        return 1.0
    return sum(score_page(rules, single, lang).f1 for rules, single, lang in pairs) / len(pairs)

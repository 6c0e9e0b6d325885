"""Template and single-page answers combined ("template+single"), for the batch commands.

The rules give the site's body region with its template removed; the single-page answer gives
the page's own judgement (already checked against the site's other pages: consistency.py). The
combined body keeps

* the blocks both keep;
* the blocks the single-page answer keeps *above* the region, unless method A found them
  repeated on the site's other pages: headline, standfirst, byline and date sit just outside
  the site's container, while what repeats there is the site's furniture;

and leaves out what the single-page answer keeps below the region (comments, teasers) or in
what the rules drop inside it (named boxes, link lists, template lines). The crawl's fast path
applies the rules alone.

Measured against the previous combination (the rules narrowed by the single-page answer, plus
its blocks among the 8 above the rules' first block), both with consistency.py, on
msv_big9_dev / cleanportaleval / dragnet's sites with 5+ pages: 0.9835 / 0.9655 / 0.9369 ->
0.9841 / 0.9655 / 0.9391 (single mode 0.9826 / 0.9632 / 0.9369). Also tried, and left out:
keeping what the single-page answer keeps inside the region where the rules drop it (dragnet
+0.0016, msv_big9_dev -0.0006, cleanportaleval -0.0009: link lines and bylines that one set's
gold counts and another's does not); restoring blocks the rules keep between the single-page
answer's first and last kept block where the site's other pages keep that place (msv_big9_dev
-0.0018: "Continue reading", credit lines).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from newsextract.evaluation.metric import score_page
from newsextract.extraction.pagemodel.page import Page
from newsextract.extraction.record.article import Article

COMBINED_METHOD = "template+single"
#: The single-page answer narrowed by the site's other pages alone (no rules, or rules the
#: site's single-page answers disagree with).
CONSISTENT_METHOD = "single+site"
#: Mean agreement (the metric's F1 of the rules' body against the single-page body) over a
#: site's pages below which site mode trusts the single-page answers instead of the rules on
#: that site. dragnet (5+ pages), site mode: 0.85 / 0.9 / 0.95 gave 0.944 / 0.945 / 0.947
#: (single mode 0.948); msv_big9_dev stayed at 0.983 from 0.7 to 0.9.
MIN_AGREEMENT_DEFAULT = 0.9


def combine(
    page: Page,
    rules: Article,
    single: Article,
    template: Collection[int] = frozenset(),
    region_start: int | None = None,
) -> Article:
    """The rules' article with its body narrowed to the blocks the single-page article keeps,
    and those of them above the region that are not ``template`` (method A) added.

    ``region_start``: index of the first block inside the region (default: the rules' first
    block). When the single-page answer keeps nothing the rules keep, the rules stand."""
    if not rules.kept_blocks:
        return rules
    inside = set(rules.kept_blocks)
    start = min(inside) if region_start is None else region_start
    agreed = {i for i in single.kept_blocks if i in inside}
    if not agreed:
        return rules  # the single-page answer missed the region: trust the rules
    head = {i for i in single.kept_blocks if i < start and i not in inside and i not in template}
    chosen = tuple(sorted(agreed | head))
    return replace(rules, body=body_of(page, chosen), kept_blocks=chosen, method=COMBINED_METHOD)


def narrowed(page: Page, single: Article, kept: Sequence[int]) -> Article:
    """The single-page article with its body reduced to ``kept`` (a subset of its blocks)."""
    chosen = tuple(kept)
    if chosen == single.kept_blocks:
        return single
    return replace(single, body=body_of(page, chosen), kept_blocks=chosen, method=CONSISTENT_METHOD)


def body_of(page: Page, kept: Sequence[int]) -> str:
    return "\n".join(page.blocks[i].text for i in kept)


def agreement(pairs: Sequence[tuple[str, str, str]]) -> float:
    """How much a site's rule answers agree with its single-page answers: the mean F1 of
    (rules body, single body, language) taken as (prediction, reference). No gold text."""
    if not pairs:
        return 1.0
    return sum(score_page(rules, single, lang).f1 for rules, single, lang in pairs) / len(pairs)

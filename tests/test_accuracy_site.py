"""Accuracy floors for site mode, pinned a little below what was measured (see the template
report): a change that loses accuracy fails here. The first floors learn from the template
evidence alone, so they do not move when the single-page methods change; the last ones run
site mode as the batch command does (rules narrowed by the single-page answers, checked
against the site's other pages) and ask it to beat single mode on the same pages."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from newsextract.evaluation.conventions import with_headline
from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import Summary, score_page, summarise
from newsextract.extraction import extract_article, parse_page
from newsextract.templates.config import TemplateConfig
from newsextract.templates.sitemode import extract_site_mode

pytestmark = pytest.mark.accuracy
TEMPLATE_ONLY = TemplateConfig(single_page_veto=False, combine_single=False)

# (data set, group field, smallest group, F1 floor, floor of the share of pages at F1 >= 0.9)
# Measured: msv_big9_dev 0.967 (0.97), cleanportaleval 0.957 (0.89), dragnet's sites with 5+
# pages 0.928 (0.83; 9 of its 707 pages fall back to single mode, hence the wider margin).
FLOORS = [
    ("msv_big9_dev", "site", 2, 0.96, 0.95),
    ("cleanportaleval", "site_group", 2, 0.95, 0.86),
    ("dragnet", "domain", 5, 0.915, 0.80),
]


@pytest.mark.parametrize(("name", "field", "smallest", "f1_floor", "share_floor"), FLOORS)
def test_site_mode_accuracy(
    shared_data: Path, name: str, field: str, smallest: int, f1_floor: float, share_floor: float
) -> None:
    entries = list(read_manifest(shared_data / name))
    sizes = Counter(entry.group_key(field) for entry in entries)
    entries = [e for e in entries if sizes[e.group_key(field)] >= smallest]
    outcomes, stats = extract_site_mode(entries, group_by=field, config=TEMPLATE_ONLY)
    summary = summarise(
        score_page(_as_gold(o.body, o.headline), o.entry.read_gold(), o.entry.lang)
        for o in outcomes
    )
    assert summary.f1 >= f1_floor, summary.as_dict()
    assert summary.share_f1_90 >= share_floor, summary.as_dict()
    assert stats.groups == len({e.group_key(field) for e in entries})
    assert all(0 < ratio < 1 for ratio in stats.reduction_ratios)
    assert sum(o.method == "rules" for o in outcomes) >= 0.95 * len(outcomes)


# (data set, group field, F1 floor, floor of the share of pages at F1 >= 0.9). Measured
# (2026-11-30, site mode vs single mode on the same pages): msv_big9_dev 0.9841 (0.99) vs
# 0.9826 (0.99), cleanportaleval 0.9655 (0.89) vs 0.9632 (0.89). dragnet's sites with 5+ pages
# (0.9391 (0.84) vs 0.9369 (0.83)) take 45 s and are left to the measure command. Site mode
# fills what the template leaves open with the single-page answer, so a retrained model moves
# msv_big9_dev's figure by a few thousandths: 0.9805 and 0.9797 with two models of 2026-12-04.
COMBINED_FLOORS = [
    ("msv_big9_dev", "site", 0.975, 0.97),
    ("cleanportaleval", "site_group", 0.96, 0.86),
]


def _as_gold(body: str, headline: str) -> str:
    """The body as these sets' gold reads: the headline first (the record holds it apart)."""
    return with_headline(body, headline)


def _summary(entries: list[ManifestEntry], bodies: list[str]) -> Summary:
    pairs = zip(entries, bodies, strict=True)
    return summarise(score_page(body, e.read_gold(), e.lang) for e, body in pairs)


@pytest.mark.parametrize(("name", "field", "f1_floor", "share_floor"), COMBINED_FLOORS)
def test_site_mode_beats_single_mode(
    shared_data: Path, name: str, field: str, f1_floor: float, share_floor: float
) -> None:
    entries = list(read_manifest(shared_data / name))
    outcomes, _ = extract_site_mode(entries, group_by=field)
    site = _summary(entries, [_as_gold(o.body, o.headline) for o in outcomes])
    articles = [extract_article(parse_page(e.read_html(), e.url)) for e in entries]
    single = [_as_gold(a.body, a.headline) for a in articles]
    alone = _summary(entries, single)
    assert site.f1 >= f1_floor, site.as_dict()
    assert site.share_f1_90 >= share_floor, site.as_dict()
    assert site.f1 > alone.f1, (site.as_dict(), alone.as_dict())

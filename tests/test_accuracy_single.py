"""Accuracy gate: single-page F1 on every development set must not fall below pinned floors.

Floors sit a little below what the shipped model measures (the model is trained on these
sets, so they guard against regressions). Held-out figures come from ``newsextract train
--folds 3`` (every set's sites unseen) and ``--holdout`` (a whole set unseen), not from here.
The reference extractors' best F1 is noted beside each floor.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from newsextract.evaluation.dataset import read_manifest
from newsextract.evaluation.metric import score_page, summarise
from newsextract.exceptions import NotHTMLError
from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.classifier import classify_blocks
from newsextract.extraction.page import Page

pytestmark = pytest.mark.accuracy

Method = Callable[[Page], str]
METHODS: dict[str, Method] = {
    "combined": lambda page: extract_article(page).body,
    "classifier": lambda page: classify_blocks(page).text(page),
}

# set -> method -> F1 floor. Best reference extractor (BASELINES.md): dragnet 0.909,
# cleaneval 0.891, cleanportaleval 0.945, msv_chaos 0.940, chinese_wced 0.887.
FLOORS: dict[str, dict[str, float]] = {
    # measured with the shipped model: combined / classifier
    "dragnet": {"combined": 0.915, "classifier": 0.915},  # 0.926 / 0.925
    "cleaneval": {"combined": 0.91, "classifier": 0.91},  # 0.923 / 0.925
    "cleanportaleval": {"combined": 0.955, "classifier": 0.955},  # 0.967 / 0.967
    "msv_chaos": {"combined": 0.955, "classifier": 0.955},  # 0.964 / 0.964
    "chinese_wced": {"combined": 0.95, "classifier": 0.95},  # 0.958 / 0.958
    "msv_big9_dev": {"combined": 0.97, "classifier": 0.97},  # 0.982 / 0.982
}


def _pages(folder: Path) -> list[tuple[Page | None, str, str]]:
    pages: list[tuple[Page | None, str, str]] = []
    for entry in read_manifest(folder):
        try:
            page: Page | None = parse_page(entry.read_html(), url=entry.url)
        except NotHTMLError:
            page = None
        pages.append((page, entry.read_gold(), entry.lang))
    return pages


@pytest.mark.parametrize("dataset", sorted(FLOORS))
def test_single_page_f1_floors(shared_data: Path, dataset: str) -> None:
    folder = shared_data / dataset
    if not (folder / "manifest.jsonl").exists():
        pytest.skip(f"development set {dataset} not present")
    pages = _pages(folder)
    for method, floor in FLOORS[dataset].items():
        extract = METHODS[method]
        summary = summarise(
            score_page(extract(page) if page is not None else "", gold, lang)
            for page, gold, lang in pages
        )
        assert summary.f1 >= floor, f"{dataset} {method}: F1 {summary.f1:.4f} < {floor}"

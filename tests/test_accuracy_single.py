"""Accuracy gate: single-page F1 on every development set must not fall below pinned floors.

Two kinds of floor. The shipped model's, on the sets it was trained on: they sit a little
below what it measures, and guard against regressions. And leave-one-set-out: each set read
by a model trained on all the other sets (``newsextract train --holdout``), the figure that
matched pages nobody here tuned for; that test trains eight models (about half an hour on
two cores) and is marked ``slow``. Every set is scored as its gold is written
(``newsextract.evaluation.conventions``): the headline before the body where the gold opens
with it, snippets pooled for snippet gold.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from devdata import require_set

from newsextract.cli.train import DATASETS_DEFAULT
from newsextract.evaluation.dataset import read_manifest
from newsextract.evaluation.metric import summarise_set
from newsextract.training.answers import AnswerJob, answer_scores
from newsextract.training.fit import FitConfig
from newsextract.training.heldout import HeldOutConfig, held_out_rows
from newsextract.training.samples import load_sets

pytestmark = pytest.mark.accuracy

# row -> F1 floor for the shipped model (measured, 2026-12-05: in brackets). The best reference
# extractor of BASELINES.md: wcxb_dev articles 0.934 and all pages 0.819, trafilatura_eval_dev
# 0.929 (trafilatura, no comments), dragnet 0.909, cleaneval 0.891, cleanportaleval 0.945,
# chinese_wced 0.908 (readability), msv_chaos 0.940 (trafilatura, no comments).
SHIPPED_FLOORS: dict[str, float] = {
    "wcxb_dev articles": 0.945,  # (0.955)
    "wcxb_dev": 0.855,  # (0.862)
    "trafilatura_eval_dev": 0.941,  # (0.952)
    "dragnet": 0.918,  # (0.927)
    "cleaneval": 0.912,  # (0.915)
    "cleanportaleval": 0.955,  # (0.964)
    "msv_big9_dev": 0.97,  # (0.976)
    "msv_chaos": 0.955,  # (0.960)
    "chinese_wced": 0.953,  # (0.962)
}
# row -> F1 floor with the set left out of training (``--holdout --cross-fit 1``, measured
# 2026-12-05: in brackets, then with the trees' other seeds, 11 and 12: a set's figure moves by
# about 0.002 with them, cleanportaleval's and chinese_wced's (70 pages each) by up to 0.007).
HELD_OUT_FLOORS: dict[str, float] = {
    "wcxb_dev articles": 0.933,  # (0.944, 0.944; by site within the set 0.949, 0.950)
    "wcxb_dev": 0.818,  # (0.831, 0.834; by site 0.848, 0.848)
    "trafilatura_eval_dev": 0.934,  # (0.943, 0.945; by site 0.945, 0.944)
    "dragnet": 0.908,  # (0.919, 0.919)
    "cleaneval": 0.899,  # (0.906, 0.906)
    "cleanportaleval": 0.945,  # (0.959, 0.959)
    "msv_big9_dev": 0.962,  # (0.972, 0.972)
    "msv_chaos": 0.944,  # (0.955, 0.953)
    "chinese_wced": 0.927,  # (0.937, 0.935)
}
SETS = DATASETS_DEFAULT


def _require(shared_data: Path, name: str) -> Path:
    return require_set(shared_data, name)


@pytest.mark.parametrize("dataset", SETS)
def test_shipped_model_f1_floors(shared_data: Path, dataset: str) -> None:
    entries = list(read_manifest(_require(shared_data, dataset)))
    scores = answer_scores(None, [AnswerJob(dataset, entry) for entry in entries])
    rows = {dataset: scores}
    if dataset == "wcxb_dev":
        articles = [e.fields.get("page_type") == "article" for e in entries]
        rows["wcxb_dev articles"] = [s for s, a in zip(scores, articles, strict=True) if a]
    for row, picked in rows.items():
        f1 = summarise_set(picked).f1
        assert f1 >= SHIPPED_FLOORS[row], f"{row}: F1 {f1:.4f} < {SHIPPED_FLOORS[row]}"


@pytest.mark.slow
def test_leave_one_set_out_f1_floors(shared_data: Path) -> None:
    for name in SETS:
        _require(shared_data, name)
    samples = load_sets(shared_data, SETS)
    config = HeldOutConfig(
        shared_data, SETS, within=(), fit=FitConfig(cross_fit=1), shipped=False, workers=2
    )
    rows = {row.name: row for row in held_out_rows(samples, config)}
    assert set(rows) == set(HELD_OUT_FLOORS)
    figures = {name: row.left_out.f1 if row.left_out else 0.0 for name, row in rows.items()}
    low = {name: round(f1, 4) for name, f1 in figures.items() if f1 < HELD_OUT_FLOORS[name]}
    assert not low, f"below the held-out floors {HELD_OUT_FLOORS}: {low}"

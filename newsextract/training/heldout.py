"""The generalisation measure: each development set read by a model that never saw it.

``newsextract train --holdout`` is the figure to steer by. For every set, a model is trained
on all the other sets and the product's answer is scored on the set left out ("left out").
Pages of a new site, language or era meet exactly that: folds by site within the sets the
model trains on promised 0.92 on dragnet where unseen sets agreed with the 0.886 of leaving
dragnet out. The sets of today's web (``wcxb_dev``) and of many languages
(``trafilatura_eval_dev``) are also read by site within them ("by site"): K folds of their
sites, each read by a model trained on all the other sets and the set's other folds, as
their held-out twins will be read by the shipped model. The shipped model's in-sample
figures and the best reference extractor stand beside them.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import PageScore, SnippetScore, Summary, summarise_set
from newsextract.extraction.evidence.classifier import ClassifierModel
from newsextract.training.answers import AnswerJob, answer_scores
from newsextract.training.fit import FitConfig, fit_model
from newsextract.training.folds import site_folds
from newsextract.training.references import REFERENCES
from newsextract.training.samples import PageSample

#: Sets also read by site within them, with this many folds.
WITHIN_SETS_DEFAULT = ("wcxb_dev", "trafilatura_eval_dev")
WITHIN_FOLDS_DEFAULT = 3
#: Parts of a set with a row of their own: set -> (row name, which pages).
PARTS: dict[str, tuple[str, Callable[[ManifestEntry], bool]]] = {
    "wcxb_dev": ("wcxb_dev articles", lambda entry: entry.fields.get("page_type") == "article"),
}

Score = PageScore | SnippetScore


@dataclass(frozen=True)
class HeldOutConfig:
    """What ``newsextract train --holdout`` measures, and how."""

    data: Path
    held: tuple[str, ...] = ()  # sets to leave out in turn; () is every set read
    within: tuple[str, ...] = WITHIN_SETS_DEFAULT
    folds: int = WITHIN_FOLDS_DEFAULT
    fit: FitConfig = field(default_factory=FitConfig)
    shipped: bool = True  # also score the shipped model on the same pages
    workers: int | None = None  # models fitted and pages read at once (None: one / the CPUs)


@dataclass(frozen=True)
class HeldOutRow:
    """One row of the table: a set (or a part of one) and its figures."""

    name: str
    left_out: Summary | None
    by_site: Summary | None
    shipped: Summary | None

    @property
    def pages(self) -> int:
        summary = self.left_out or self.by_site or self.shipped
        return summary.pages if summary else 0


def held_out_rows(samples: Sequence[PageSample], config: HeldOutConfig) -> list[HeldOutRow]:
    """Every held set's rows, printing each as it is measured."""
    names = config.held or tuple(dict.fromkeys(s.dataset for s in samples))
    folds = site_folds(samples, config.folds)
    tasks = [FitTask(name, None) for name in names]
    tasks += [
        FitTask(name, f) for name in names if name in config.within for f in range(config.folds)
    ]
    models = fit_models(samples, folds, tasks, config)
    rows: list[HeldOutRow] = []
    for name in names:
        entries = list(read_manifest(config.data / name))
        left_out = _scores(models[FitTask(name, None)], name, entries, config)
        by_site = None
        if name in config.within:
            by_site = _by_site(samples, folds, models, name, entries, config)
        shipped = _scores(None, name, entries, config) if config.shipped else None
        for row in _rows(name, entries, left_out, by_site, shipped):
            print(format_row(row), flush=True)
            rows.append(row)
    return rows


@dataclass(frozen=True)
class FitTask:
    """A model to fit: without the set ``held``, or (``fold`` given) without that fold of
    the set's sites only."""

    held: str
    fold: int | None


def fit_models(
    samples: Sequence[PageSample],
    folds: Sequence[int],
    tasks: Sequence[FitTask],
    config: HeldOutConfig,
) -> dict[FitTask, ClassifierModel]:
    """Every task's model, fitted ``config.workers`` at a time in forked processes (which
    share the pages read, without copying them)."""
    global _SAMPLES, _FOLDS, _FIT
    _SAMPLES, _FOLDS, _FIT = samples, folds, config.fit
    workers = min(config.workers or 1, len(tasks))
    if workers < 2:
        fitted = [_fit(task) for task in tasks]
    else:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            fitted = list(pool.map(_fit, tasks))
    return {task: ClassifierModel.from_json(data) for task, data in zip(tasks, fitted, strict=True)}


_SAMPLES: Sequence[PageSample] = ()
_FOLDS: Sequence[int] = ()
_FIT = FitConfig()


def _fit(task: FitTask) -> dict[str, Any]:
    train = [
        s
        for s, f in zip(_SAMPLES, _FOLDS, strict=True)
        if s.dataset != task.held or (task.fold is not None and f != task.fold)
    ]
    return fit_model(train, _FIT).to_json()


def _by_site(
    samples: Sequence[PageSample],
    folds: Sequence[int],
    models: dict[FitTask, ClassifierModel],
    name: str,
    entries: list[ManifestEntry],
    config: HeldOutConfig,
) -> list[Score]:
    """Each page's score from the model of its site's fold."""
    fold_of = {s.page_id: f for s, f in zip(samples, folds, strict=True) if s.dataset == name}
    scores: dict[str, Score] = {}
    for fold in range(config.folds):
        mine = [entry for entry in entries if fold_of.get(entry.id, 0) == fold]
        found = _scores(models[FitTask(name, fold)], name, mine, config)
        scores |= dict(zip((e.id for e in mine), found, strict=True))
    return [scores[entry.id] for entry in entries]


def _scores(
    model: ClassifierModel | None, name: str, entries: list[ManifestEntry], config: HeldOutConfig
) -> list[Score]:
    jobs = [AnswerJob(name, entry) for entry in entries]
    return answer_scores(model, jobs, config.workers)


def _rows(
    name: str,
    entries: list[ManifestEntry],
    *columns: list[Score] | None,
) -> list[HeldOutRow]:
    """The set's row, and a row for each of its parts (:data:`PARTS`)."""
    wanted: list[tuple[str, Callable[[ManifestEntry], bool]]] = [(name, lambda _: True)]
    if name in PARTS:
        wanted.insert(0, PARTS[name])
    rows = []
    for row_name, keep in wanted:
        picked = [keep(entry) for entry in entries]
        summaries = [
            summarise_set(s for s, k in zip(column, picked, strict=True) if k)
            if column is not None
            else None
            for column in columns
        ]
        rows.append(HeldOutRow(row_name, *summaries))
    return rows


HEADER = (
    f"{'set':<22}{'pages':>6}{'left out':>10}{'by site':>9}{'shipped':>9}"
    f"  {'best reference':<32}{'target':>7}"
)


def format_row(row: HeldOutRow) -> str:
    """One line of the table: F1 of each column, the reference and the target."""

    def cell(summary: Summary | None, width: int) -> str:
        return f"{summary.f1:>{width}.3f}" if summary else f"{'-':>{width}}"

    reference = REFERENCES.get(row.name)
    named = f"{reference.extractor} {reference.f1:.3f}" if reference else "-"
    target = f"{reference.target:.3f}" if reference else "-"
    return (
        f"{row.name:<22}{row.pages:>6}{cell(row.left_out, 10)}{cell(row.by_site, 9)}"
        f"{cell(row.shipped, 9)}  {named:<32}{target:>7}"
    )


def format_table(rows: Sequence[HeldOutRow]) -> str:
    return "\n".join([HEADER, *map(format_row, rows)])

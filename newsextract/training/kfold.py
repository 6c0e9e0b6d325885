"""Held-out F1 on unseen sites of the development sets' own kinds (K folds grouped by site).

Leaving a whole set out of training (``newsextract train --holdout``) asks more than new
pages will: a held-out page is usually of a kind some set teaches (news, CleanEval's mixed
pages, Chinese), only from a site never seen. Here every set is cut into K folds by site
(a domain, or msv_big9_dev's ``site``, is in one fold of every set, so no site is in both
train and test); each fold's model learns from all the other folds of all sets, and the
product's answer (:func:`extract_article` with that model) is scored on the fold's pages.

    newsextract train --folds 3                  # K-fold F1 per set beside in-sample F1
    newsextract train --folds 3 --cross-fit 1    # twice as fast, for quick comparisons
    newsextract train --folds 3 --site-mode      # site mode too, with each fold's model
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from newsextract.evaluation.conventions import HEADLINE_SETS, with_headline
from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import PageScore, SnippetScore, summarise_set
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.decision.combiner import CombinerConfig
from newsextract.extraction.evidence.classifier import ClassifierModel, default_model
from newsextract.extraction.pagemodel.page import parse_page
from newsextract.extraction.record.article import Article, extract_article
from newsextract.training.fit import FitConfig, fit_model, predict_sample
from newsextract.training.folds import site_folds
from newsextract.training.samples import PageSample
from newsextract.training.sitemode import PageKey, fold_site_mode, site_mode_entries

Score = PageScore | SnippetScore

#: Three folds: each model still learns from two thirds of every set's sites, close to the
#: shipped model's data, and a run takes three trainings.
FOLDS_DEFAULT = 3


@dataclass(frozen=True)
class KFoldConfig:
    """What ``newsextract train --folds K`` measures, and how."""

    data: Path  # the development sets' folder: pages are re-read for the combined answer
    folds: int = FOLDS_DEFAULT
    fit: FitConfig = field(default_factory=FitConfig)
    site_mode: bool = False  # also site mode (templates/heldout.py) on the fold's pages


@dataclass(frozen=True)
class _PageScores:
    """One page's scores: method E of the fold's model, its combined answer, the shipped one."""

    alone: Score
    combined: Score
    shipped: Score


def kfold_scores(
    samples: Sequence[PageSample], config: KFoldConfig
) -> dict[str, dict[str, float | int]]:
    """Per set: ``<set>+kfold`` (combined answer), ``<set>+kfold-E`` (method E alone) and
    ``<set>+in-sample`` (the shipped model's combined answer on the same pages); with
    ``site_mode``, ``<set>+kfold-site`` and ``<set>+kfold-single`` for the site-mode sets."""
    folds = site_folds(samples, config.folds)
    entries = _entries(config.data, samples)
    shipped = CombinerConfig(model=default_model())
    per_page: list[_PageScores | None] = [None] * len(samples)
    fold_of = {(s.dataset, s.page_id): f for s, f in zip(samples, folds, strict=True)}
    measured = site_mode_entries(entries) if config.site_mode else {}
    site_bodies: dict[PageKey, str] = {}
    for fold in range(config.folds):
        train = [s for s, f in zip(samples, folds, strict=True) if f != fold]
        model = fit_model(train, config.fit)
        model = ClassifierModel.from_json(model.to_json())  # exactly what would ship
        for i, sample in enumerate(samples):
            if folds[i] == fold:
                entry = entries[(sample.dataset, sample.page_id)]
                per_page[i] = _score_page(model, shipped, sample, entry, config.fit.threshold)
        if measured:
            mine = {
                name: [e for e in members if fold_of.get((name, e.id)) == fold]
                for name, members in measured.items()
            }
            site_bodies |= fold_site_mode(model, mine)
        print(f"fold {fold + 1}/{config.folds} scored", flush=True)
    results = _summaries(samples, [p for p in per_page if p is not None])
    if config.site_mode:
        results |= _site_mode_summaries(samples, per_page, site_bodies)
    return results


def _site_mode_summaries(
    samples: Sequence[PageSample],
    per_page: Sequence[_PageScores | None],
    site_bodies: dict[PageKey, str],
) -> dict[str, dict[str, float | int]]:
    """Per site-mode set: ``<set>+kfold-site`` and, on the same pages, ``<set>+kfold-single``."""
    site: dict[str, list[Score]] = {}
    single: dict[str, list[Score]] = {}
    for sample, scores in zip(samples, per_page, strict=True):
        body = site_bodies.get((sample.dataset, sample.page_id))
        if body is None or scores is None:
            continue
        site.setdefault(sample.dataset, []).append(sample.gold.score(body))
        single.setdefault(sample.dataset, []).append(scores.combined)
    results: dict[str, dict[str, float | int]] = {}
    for name in site:
        mine, alone = summarise_set(site[name]), summarise_set(single[name])
        results[f"{name}+kfold-site"] = mine.as_dict()
        results[f"{name}+kfold-single"] = alone.as_dict()
        print(
            f"{name}: site mode on unseen sites, pages {mine.pages} F1 {mine.f1:.4f} "
            f"({mine.share_f1_90:.2f} at F1 >= 0.9); single mode on them {alone.f1:.4f}",
            flush=True,
        )
    return results


def _entries(data: Path, samples: Sequence[PageSample]) -> dict[tuple[str, str], ManifestEntry]:
    return {
        (name, entry.id): entry
        for name in dict.fromkeys(s.dataset for s in samples)
        for entry in read_manifest(data / name)
    }


def _score_page(
    model: ClassifierModel,
    shipped: CombinerConfig,
    sample: PageSample,
    entry: ManifestEntry,
    threshold: float,
) -> _PageScores:
    keep = predict_sample(model, sample) >= threshold
    alone = "\n".join(t for t, k in zip(sample.texts, keep, strict=True) if k)
    try:
        page = parse_page(entry.read_html(), url=entry.url)
        combined = _body(extract_article(page, CombinerConfig(model=model)), sample.dataset)
        in_sample = _body(extract_article(page, shipped), sample.dataset)
    except NewsExtractError:
        combined = in_sample = ""
    return _PageScores(
        sample.gold.score(alone),
        sample.gold.score(combined),
        sample.gold.score(in_sample),
    )


def _body(article: Article, dataset: str) -> str:
    """The body as the set's gold reads (the headline first, where it opens the gold)."""
    if dataset in HEADLINE_SETS:
        return with_headline(article.body, article.headline)
    return article.body


def _summaries(
    samples: Sequence[PageSample], scores: Sequence[_PageScores]
) -> dict[str, dict[str, float | int]]:
    columns: dict[str, Callable[[_PageScores], Score]] = {
        "kfold": lambda s: s.combined,
        "kfold-E": lambda s: s.alone,
        "in-sample": lambda s: s.shipped,
    }
    results: dict[str, dict[str, float | int]] = {}
    for name in dict.fromkeys(s.dataset for s in samples):
        mine = [p for s, p in zip(samples, scores, strict=True) if s.dataset == name]
        for column, pick in columns.items():
            results[f"{name}+{column}"] = summarise_set(pick(p) for p in mine).as_dict()
        print(_line(name, results), flush=True)
    return results


def _line(name: str, results: dict[str, dict[str, float | int]]) -> str:
    kfold, alone, inside = (results[f"{name}+{c}"] for c in ("kfold", "kfold-E", "in-sample"))
    return (
        f"{name}: pages {kfold['pages']} k-fold F1 {kfold['f1']:.4f} "
        f"(P {kfold['precision']:.4f} R {kfold['recall']:.4f}; method E alone "
        f"{alone['f1']:.4f}) in-sample F1 {inside['f1']:.4f}"
    )

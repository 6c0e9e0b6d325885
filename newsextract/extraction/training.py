"""Train method E's block classifier on development sets with gold text, reproducibly.

Each block is labelled by the share of its 4-token shingles found in the page's gold text
(CJK: character shingles, as the metric counts them). Trees are fitted with fixed seeds, the
second stage on cross-fitted first-stage posteriors, and the model is written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import score_page, shingles, summarise, tokens
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.boosting import BoostingConfig, TreeEnsemble, fit_trees, sigmoid
from newsextract.extraction.classifier import (
    MAX_TOKEN_LOG_ODDS_DEFAULT,
    MODEL_FILE,
    ClassifierModel,
    LanguageModel,
    combine_posteriors,
    title_blocks,
)
from newsextract.extraction.features import (
    BlockTable,
    context_feature_names,
    context_features,
    feature_names,
    layout_features,
    read_blocks,
)
from newsextract.extraction.page import parse_page

#: The development sets trained on by default (msv_big9_dev included: more news layouts).
DATASETS_DEFAULT = (
    "dragnet", "cleaneval", "cleanportaleval", "msv_big9_dev", "msv_chaos", "chinese_wced",
)
#: A word must occur in this many training pages to enter the language model: keeps topical
#: words of single pages out, so the model generalises to other sites.
MIN_PAGES_PER_TOKEN_DEFAULT = 8
#: Size cap of the language model's vocabulary (keeps the JSON model well under 2 MB).
MAX_VOCABULARY_DEFAULT = 12_000
#: Additive smoothing of the unigram counts.
SMOOTHING_DEFAULT = 1.0
#: Share of a block's shingles in the gold text above which it counts as content.
CONTENT_LABEL_DEFAULT = 0.5
LAYOUT_TREES = BoostingConfig(trees=250, depth=4, learning_rate=0.08, seed=1)
CONTEXT_TREES = BoostingConfig(trees=150, depth=3, learning_rate=0.1, seed=2)
CROSS_FIT_FOLDS = 2
SEED = 20260101


@dataclass(frozen=True)
class PageSample:
    """One training page: its blocks' features and labels."""

    dataset: str
    page_id: str
    lang: str
    table: BlockTable
    x: np.ndarray
    title: np.ndarray
    label: np.ndarray  # share of each block's shingles found in the gold text
    weight: np.ndarray  # each page weighs 1 in all, spread over its blocks by tokens
    texts: tuple[str, ...]
    gold: str


def label_blocks(texts: Sequence[str], gold: str, lang: str) -> np.ndarray:
    """Share of each block's shingles in the gold text; short blocks must occur in it whole."""
    gold_tokens = tokens(gold, lang)
    gold_shingles = shingles(gold_tokens)
    joined = " " + " ".join(gold_tokens) + " "
    labels = np.zeros(len(texts))
    for i, text in enumerate(texts):
        block_tokens = tokens(text, lang)
        if not block_tokens:
            continue
        if len(block_tokens) < 4:
            labels[i] = float(" " + " ".join(block_tokens) + " " in joined)
            continue
        own = shingles(block_tokens)
        labels[i] = sum(min(c, gold_shingles[s]) for s, c in own.items()) / sum(own.values())
    return labels


def load_page(entry: ManifestEntry, dataset: str) -> PageSample | None:
    try:
        page = parse_page(entry.read_html(), url=entry.url)
    except NewsExtractError:
        return None
    texts = tuple(block.text for block in page.blocks)
    gold = entry.read_gold()
    table = read_blocks(page)
    sizes = np.array([max(len(tokens(t, entry.lang)), 1) for t in texts], dtype=float)
    weight = sizes / max(sizes.sum(), 1.0) * len(texts) if texts else sizes
    return PageSample(
        dataset, entry.id, entry.lang, table, layout_features(table), title_blocks(page),
        label_blocks(texts, gold, entry.lang), weight, texts, gold,
    )


def _load_one(job: tuple[ManifestEntry, str]) -> PageSample | None:
    return load_page(*job)


def load_sets(data: Path, names: Iterable[str], workers: int = 2) -> list[PageSample]:
    jobs = [(entry, name) for name in names for entry in read_manifest(data / name)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        loaded = list(pool.map(_load_one, jobs, chunksize=16))
    return [sample for sample in loaded if sample is not None]


def fit_language_model(samples: Sequence[PageSample]) -> LanguageModel:
    content, noise, pages = Counter[str](), Counter[str](), Counter[str]()
    for sample in samples:
        pages.update({t for block in sample.table.tokens for t in block})
        for block_tokens, label in zip(sample.table.tokens, sample.label, strict=True):
            (content if label >= CONTENT_LABEL_DEFAULT else noise).update(block_tokens)
    vocabulary = [t for t, n in pages.items() if n >= MIN_PAGES_PER_TOKEN_DEFAULT]
    vocabulary.sort(key=lambda t: (-(content[t] + noise[t]), t))
    vocabulary = vocabulary[:MAX_VOCABULARY_DEFAULT]
    size, a = len(vocabulary), SMOOTHING_DEFAULT
    total_c = sum(content[t] for t in vocabulary) + a * size
    total_n = sum(noise[t] for t in vocabulary) + a * size
    log_odds = {
        t: float(np.clip(
            np.log((content[t] + a) / total_c) - np.log((noise[t] + a) / total_n),
            -MAX_TOKEN_LOG_ODDS_DEFAULT, MAX_TOKEN_LOG_ODDS_DEFAULT,
        ))
        for t in vocabulary
    }
    draft = LanguageModel(log_odds, (0.0, 0.0, 0.0, 0.0))
    x = np.vstack([draft.features(s.table.tokens) for s in samples])
    y, w = _stack(samples, "label"), _stack(samples, "weight")
    return LanguageModel(log_odds, tuple(_logistic_fit(x, y, w).tolist()))


def _logistic_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, steps: int = 50) -> np.ndarray:
    """Newton's method for weighted logistic regression with soft labels."""
    beta = np.zeros(x.shape[1])
    for _ in range(steps):
        p = sigmoid(x @ beta)
        grad = x.T @ ((p - y) * w)
        hess = (x * (p * (1 - p) * w)[:, None]).T @ x + 1e-3 * np.eye(x.shape[1])
        beta -= np.linalg.solve(hess, grad)
    return beta


def _stack(samples: Sequence[PageSample], name: str) -> np.ndarray:
    return np.concatenate([getattr(s, name) for s in samples])


def _folds(samples: Sequence[PageSample], k: int) -> list[int]:
    rng = np.random.default_rng(SEED)
    return [int(v) for v in rng.integers(0, k, len(samples))]


def cross_fit_first_stage(
    samples: Sequence[PageSample], mode: str, layout_weight: float
) -> list[np.ndarray]:
    """First-stage posteriors for every page from models that did not see it."""
    folds = _folds(samples, CROSS_FIT_FOLDS)
    out: list[np.ndarray] = [np.zeros(0)] * len(samples)
    for fold in range(CROSS_FIT_FOLDS):
        train = [s for s, f in zip(samples, folds, strict=True) if f != fold]
        layout, language = _fit_first_stage(train)
        for i, sample in enumerate(samples):
            if folds[i] == fold:
                out[i] = _first_stage(layout, language, sample, mode, layout_weight)
    return out


def _first_stage(
    layout: TreeEnsemble, language: LanguageModel, sample: PageSample, mode: str, weight: float
) -> np.ndarray:
    return combine_posteriors(
        layout.predict(sample.x), language.posterior(sample.table.tokens), mode, weight
    )


def _fit_first_stage(samples: Sequence[PageSample]) -> tuple[TreeEnsemble, LanguageModel]:
    x = np.vstack([s.x for s in samples])
    layout = fit_trees(x, _stack(samples, "label"), _stack(samples, "weight"), LAYOUT_TREES)
    return layout, fit_language_model(samples)


def fit_model(
    samples: Sequence[PageSample], mode: str = "weighted", layout_weight: float = 0.7,
    threshold: float = 0.5,
) -> ClassifierModel:
    layout, language = _fit_first_stage(samples)
    if CROSS_FIT_FOLDS < 2:  # in-sample: faster, a slightly over-confident first stage
        first = [_first_stage(layout, language, s, mode, layout_weight) for s in samples]
    else:
        first = cross_fit_first_stage(samples, mode, layout_weight)
    context_x = np.vstack(
        [context_features(s.table, p, s.title) for s, p in zip(samples, first, strict=True)]
    )
    context = fit_trees(
        context_x, _stack(samples, "label"), _stack(samples, "weight"), CONTEXT_TREES
    )
    return ClassifierModel(
        feature_names(), context_feature_names(), layout, language, mode, layout_weight,
        context, threshold,
    )


def predict_sample(model: ClassifierModel, sample: PageSample) -> np.ndarray:
    layout = model.layout.predict(sample.x)
    language = model.language.posterior(sample.table.tokens)
    first = combine_posteriors(layout, language, model.combination, model.layout_weight)
    return model.context.predict(context_features(sample.table, first, sample.title))


def score_samples(samples: Sequence[PageSample], posteriors: Sequence[np.ndarray],
                  threshold: float) -> dict[str, float | int]:
    scores = []
    for sample, p in zip(samples, posteriors, strict=True):
        body = "\n".join(t for t, keep in zip(sample.texts, p >= threshold, strict=True) if keep)
        scores.append(score_page(body, sample.gold, sample.lang))
    return summarise(scores).as_dict()


def default_data_dir() -> Path:
    env = os.environ.get("NEWSEXTRACT_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=None,
                        help="folder of development sets (default: ../shared/data or "
                             "$NEWSEXTRACT_SHARED_DATA)")
    parser.add_argument("--sets", default=",".join(DATASETS_DEFAULT),
                        help="comma-separated set names to train on")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "models" / MODEL_FILE,
                        help="where to write the model JSON")
    parser.add_argument("--combination", choices=("weighted", "max"), default="weighted")
    parser.add_argument("--layout-weight", type=float, default=0.7)
    parser.add_argument("--threshold", type=float, default=0.5)


def run(args: argparse.Namespace) -> int:
    data = args.data or default_data_dir()
    samples = load_sets(data, [s for s in args.sets.split(",") if s])
    print(f"training on {len(samples)} pages, {sum(len(s.texts) for s in samples)} blocks")
    model = fit_model(samples, args.combination, args.layout_weight, args.threshold)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model.to_json(), separators=(",", ":"), ensure_ascii=False))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    return 0

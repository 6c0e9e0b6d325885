"""Small gradient-boosted trees in numpy: inspectable JSON weights, vectorised prediction.

The trees are *oblivious* (as in CatBoost): every node of one level tests the same feature
against the same threshold, so a tree is ``depth`` (feature, threshold) pairs and a leaf
table. Prediction is then one column gather and one comparison for all trees at once,
which keeps scoring a page's blocks far below a millisecond.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

#: Number of quantile bins a feature is cut into while training (histogram boosting).
BINS_DEFAULT = 32
#: A split that leaves a node with less weight than this on one side gains nothing there.
MIN_LEAF_WEIGHT_DEFAULT = 20.0
#: L2 penalty on leaf values (as in XGBoost's lambda).
L2_DEFAULT = 1.0
#: Rows scored at once; (rows x trees x depth) work arrays stay a few MB.
PREDICT_CHUNK_ROWS = 2048


@dataclass(frozen=True)
class _PredictPlan:
    """The trees laid out for prediction (built once per ensemble)."""

    features: np.ndarray  # (tests,) the feature of each distinct (feature, threshold) test
    thresholds: np.ndarray  # (tests, 1), to broadcast over rows
    tests: np.ndarray  # (depth, trees) index into the distinct tests
    offsets: np.ndarray  # (trees,) where each tree's leaves start in ``leaves``
    leaves: np.ndarray  # (trees * 2**depth,) leaf values, flat


@dataclass(frozen=True)
class TreeEnsemble:
    """Boosted oblivious trees on the logit scale: ``base + sum(leaf values)``."""

    base: float
    depth: int
    features: np.ndarray  # (trees, depth) feature tested at each level
    thresholds: np.ndarray  # (trees, depth) go right when value > threshold (inf: never)
    leaves: np.ndarray  # (trees, 2**depth) leaf values, learning rate applied

    def logit(self, x: np.ndarray) -> np.ndarray:
        n, trees = len(x), len(self.leaves)
        if n == 0 or trees == 0:
            return np.full(n, self.base)
        if n > PREDICT_CHUNK_ROWS:
            step = PREDICT_CHUNK_ROWS
            return np.concatenate([self.logit(x[i : i + step]) for i in range(0, n, step)])
        plan = self._plan
        # Rows of the transposed matrix are contiguous: each distinct test (trees share many)
        # is one row compared at once; each tree level then picks its row of booleans and
        # adds its bit to the leaf code (no matmul).
        passed = np.ascontiguousarray(x.T)[plan.features] > plan.thresholds
        # One byte holds the leaf code of a tree of up to 8 levels.
        bits = passed.view(np.uint8) if self.depth <= 8 else passed.astype(np.intp)
        code = np.zeros((trees, n), dtype=bits.dtype)
        for level in range(self.depth):
            code += bits[plan.tests[level]] << level
        # (rows, trees), summed along trees in the order the values always were.
        values = plan.leaves.take(code.T + plan.offsets)
        result: np.ndarray = self.base + values.sum(axis=1)
        return result

    @cached_property
    def _plan(self) -> _PredictPlan:
        trees, leaves = self.leaves.shape
        features, thresholds = self.features.T.ravel().tolist(), self.thresholds.T.ravel().tolist()
        pairs = list(zip(features, thresholds, strict=True))
        distinct = list(dict.fromkeys(pairs))
        index = {pair: i for i, pair in enumerate(distinct)}
        return _PredictPlan(
            features=np.array([f for f, _ in distinct], dtype=np.intp),
            thresholds=np.array([t for _, t in distinct], dtype=float)[:, None],
            tests=np.array([index[pair] for pair in pairs], dtype=np.intp).reshape(-1, trees),
            offsets=np.arange(trees, dtype=np.intp) * leaves,
            leaves=np.ascontiguousarray(self.leaves).ravel(),
        )

    def predict(self, x: np.ndarray) -> np.ndarray:
        return sigmoid(self.logit(x))

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "depth": self.depth,
            "features": self.features.tolist(),
            "thresholds": [[_finite(v) for v in row] for row in self.thresholds.tolist()],
            "leaves": np.round(self.leaves, 6).tolist(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeEnsemble:
        depth = int(data["depth"])
        thresholds = [[np.inf if v is None else v for v in row] for row in data["thresholds"]]
        ensemble = cls(
            base=float(data["base"]),
            depth=depth,
            features=np.asarray(data["features"], dtype=np.int64),
            thresholds=np.asarray(thresholds, dtype=float),
            leaves=np.asarray(data["leaves"], dtype=float),
        )
        trees = len(ensemble.leaves)
        shapes = (ensemble.features.shape, ensemble.thresholds.shape, ensemble.leaves.shape)
        if trees and shapes != ((trees, depth), (trees, depth), (trees, 2**depth)):
            raise ValueError(f"tree arrays have shapes {shapes}, not those of depth {depth}")
        return ensemble


def _finite(value: float) -> float | None:
    # Thresholds keep every digit: many sit exactly on a feature value (1/3, say), and a
    # rounded one would send those rows the other way than in training.
    return None if not np.isfinite(value) else float(value)


def sigmoid(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    return out


@dataclass(frozen=True)
class BoostingConfig:
    trees: int = 200
    depth: int = 3
    learning_rate: float = 0.1
    bins: int = BINS_DEFAULT
    min_leaf_weight: float = MIN_LEAF_WEIGHT_DEFAULT
    l2: float = L2_DEFAULT
    subsample: float = 0.3
    seed: int = 0


def fit_trees(
    x: np.ndarray, y: np.ndarray, weight: np.ndarray, config: BoostingConfig = BoostingConfig()
) -> TreeEnsemble:
    """Logistic-loss boosting on soft labels ``y`` in [0, 1] with sample weights."""
    edges = _bin_edges(x, config.bins)
    binned = _apply_bins(x, edges)
    rng = np.random.default_rng(config.seed)
    mean = float(np.clip(np.average(y, weights=weight), 1e-4, 1 - 1e-4))
    base = float(np.log(mean / (1 - mean)))
    score = np.full(len(y), base)
    features = np.zeros((config.trees, config.depth), dtype=np.int64)
    thresholds = np.full((config.trees, config.depth), np.inf)
    leaves = np.zeros((config.trees, 2**config.depth))
    for t in range(config.trees):
        p = sigmoid(score)
        grad, hess = (p - y) * weight, np.maximum(p * (1 - p), 1e-6) * weight
        sample = np.flatnonzero(rng.random(len(y)) < config.subsample)
        features[t], cuts = _grow(binned[sample], grad[sample], hess[sample], config)
        pairs = zip(features[t], cuts, strict=True)
        thresholds[t] = [edges[f][c] if c >= 0 else np.inf for f, c in pairs]
        leaf = _leaf_index(binned, features[t], cuts)
        g = np.bincount(leaf[sample], grad[sample], minlength=2**config.depth)
        h = np.bincount(leaf[sample], hess[sample], minlength=2**config.depth)
        leaves[t] = -g / (h + config.l2) * config.learning_rate
        score += leaves[t][leaf]
    return TreeEnsemble(base, config.depth, features, thresholds, leaves)


def _bin_edges(x: np.ndarray, bins: int) -> list[np.ndarray]:
    quantiles = np.linspace(0, 1, bins + 1)[1:-1]
    return [np.unique(np.quantile(x[:, j], quantiles)) for j in range(x.shape[1])]


def _apply_bins(x: np.ndarray, edges: list[np.ndarray]) -> np.ndarray:
    binned = np.empty(x.shape, dtype=np.int32)
    for j, cut in enumerate(edges):
        binned[:, j] = np.searchsorted(cut, x[:, j], side="left")
    return binned


def _leaf_index(binned: np.ndarray, features: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    leaf = np.zeros(len(binned), dtype=np.int64)
    for level, (feature, cut) in enumerate(zip(features.tolist(), cuts.tolist(), strict=True)):
        if cut >= 0:
            leaf += (binned[:, feature] > cut).astype(np.int64) << level
    return leaf


def _grow(
    binned: np.ndarray, grad: np.ndarray, hess: np.ndarray, config: BoostingConfig
) -> tuple[np.ndarray, np.ndarray]:
    """One (feature, bin) per level, chosen by the gain summed over that level's nodes."""
    n, n_features = binned.shape
    width = config.bins + 1
    codes = binned + (np.arange(n_features, dtype=np.int32) * width)
    g_flat, h_flat = np.repeat(grad, n_features), np.repeat(hess, n_features)
    node = np.zeros(n, dtype=np.int64)
    features = np.zeros(config.depth, dtype=np.int64)
    cuts = np.full(config.depth, -1, dtype=np.int64)
    for level in range(config.depth):
        nodes = 1 << level
        flat = (codes + (node * (n_features * width))[:, None]).ravel()
        size = nodes * n_features * width
        g = np.bincount(flat, g_flat, minlength=size).reshape(nodes, n_features, width)
        h = np.bincount(flat, h_flat, minlength=size).reshape(nodes, n_features, width)
        gain = _split_gain(g, h, config).sum(axis=0)
        best = int(np.argmax(gain))
        if gain.flat[best] <= 1e-9:
            continue  # no useful split: every sample goes left at this level
        features[level], cuts[level] = divmod(best, width)
        node += (binned[:, features[level]] > cuts[level]).astype(np.int64) << level
    return features, cuts


def _split_gain(g: np.ndarray, h: np.ndarray, config: BoostingConfig) -> np.ndarray:
    g_left, h_left = np.cumsum(g, axis=2), np.cumsum(h, axis=2)
    g_all, h_all = g_left[:, :, -1:], h_left[:, :, -1:]
    g_right, h_right = g_all - g_left, h_all - h_left
    gain = (
        g_left**2 / (h_left + config.l2)
        + g_right**2 / (h_right + config.l2)
        - g_all**2 / (h_all + config.l2)
    )
    ok = (h_left >= config.min_leaf_weight) & (h_right >= config.min_leaf_weight)
    result: np.ndarray = np.where(ok, gain, 0.0)
    return result

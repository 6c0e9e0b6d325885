"""Small gradient-boosted trees in numpy: inspectable JSON weights, vectorised prediction.

Trees are complete binary trees of a fixed depth; a node that does not split carries an
infinite threshold, so every sample goes left. Prediction walks all trees at once, one
numpy step per level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: Number of quantile bins a feature is cut into while training (histogram boosting).
BINS_DEFAULT = 32
#: Fewer samples (by weight) than this in a leaf and the split is refused.
MIN_LEAF_WEIGHT_DEFAULT = 20.0
#: L2 penalty on leaf values (as in XGBoost's lambda).
L2_DEFAULT = 1.0
#: Rows scored at once; (rows x trees) index arrays stay a few MB.
PREDICT_CHUNK_ROWS = 2048


@dataclass(frozen=True)
class TreeEnsemble:
    """Boosted trees on the logit scale: ``base + sum(leaf values)``."""

    base: float
    depth: int
    features: np.ndarray  # (trees, 2**depth - 1) feature index per internal node
    thresholds: np.ndarray  # (trees, 2**depth - 1) go right when value > threshold
    leaves: np.ndarray  # (trees, 2**depth) leaf values, learning rate applied

    def logit(self, x: np.ndarray) -> np.ndarray:
        n, trees = len(x), len(self.leaves)
        if n == 0 or trees == 0:
            return np.full(n, self.base)
        if n > PREDICT_CHUNK_ROWS:  # bounds the (rows, trees) work arrays on huge pages
            step = PREDICT_CHUNK_ROWS
            return np.concatenate([self.logit(x[i : i + step]) for i in range(0, n, step)])
        node = np.zeros((n, trees), dtype=np.int64)
        tree_ids = np.arange(trees)
        rows = np.arange(n)[:, None]
        for _ in range(self.depth):
            feature = self.features[tree_ids, node]
            right = x[rows, feature] > self.thresholds[tree_ids, node]
            node = 2 * node + 1 + right
        leaf = node - (2**self.depth - 1)
        result: np.ndarray = self.base + self.leaves[tree_ids, leaf].sum(axis=1)
        return result

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
        return cls(
            base=float(data["base"]),
            depth=depth,
            features=np.asarray(data["features"], dtype=np.int64).reshape(-1, 2**depth - 1),
            thresholds=np.asarray(thresholds, dtype=float).reshape(-1, 2**depth - 1),
            leaves=np.asarray(data["leaves"], dtype=float).reshape(-1, 2**depth),
        )


def _finite(value: float) -> float | None:
    return None if not np.isfinite(value) else round(value, 6)


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
    n_internal = 2**config.depth - 1
    features = np.zeros((config.trees, n_internal), dtype=np.int64)
    thresholds = np.full((config.trees, n_internal), np.inf)
    leaves = np.zeros((config.trees, 2**config.depth))
    for t in range(config.trees):
        p = sigmoid(score)
        grad, hess = (p - y) * weight, np.maximum(p * (1 - p), 1e-6) * weight
        sample = np.flatnonzero(rng.random(len(y)) < config.subsample)
        tree = _grow(binned[sample], edges, grad[sample], hess[sample], config)
        features[t], thresholds[t], leaves[t] = tree
        score += _tree_logit(x, tree, config.depth)
    return TreeEnsemble(base, config.depth, features, thresholds, leaves)


def _bin_edges(x: np.ndarray, bins: int) -> list[np.ndarray]:
    quantiles = np.linspace(0, 1, bins + 1)[1:-1]
    return [np.unique(np.quantile(x[:, j], quantiles)) for j in range(x.shape[1])]


def _apply_bins(x: np.ndarray, edges: list[np.ndarray]) -> np.ndarray:
    binned = np.empty(x.shape, dtype=np.int32)
    for j, cut in enumerate(edges):
        binned[:, j] = np.searchsorted(cut, x[:, j], side="left")
    return binned


def _grow(
    binned: np.ndarray,
    edges: list[np.ndarray],
    grad: np.ndarray,
    hess: np.ndarray,
    config: BoostingConfig,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_internal = 2**config.depth - 1
    features = np.zeros(n_internal, dtype=np.int64)
    thresholds = np.full(n_internal, np.inf)
    node = np.zeros(len(grad), dtype=np.int64)
    n_features = binned.shape[1]
    offsets = (np.arange(n_features) * (config.bins + 1)).astype(np.int32)
    for index in range(n_internal):
        members = np.flatnonzero(node == index)
        split = _best_split(binned[members], grad[members], hess[members], offsets, config)
        if split is not None:
            feature, cut_bin = split
            features[index] = feature
            thresholds[index] = edges[feature][cut_bin]
            go_right = binned[members, feature] > cut_bin
        else:
            go_right = np.zeros(len(members), dtype=bool)
        node[members] = 2 * index + 1 + go_right
    leaf = node - n_internal
    g = np.bincount(leaf, grad, minlength=2**config.depth)
    h = np.bincount(leaf, hess, minlength=2**config.depth)
    leaves = -g / (h + config.l2) * config.learning_rate
    return features, thresholds, leaves


def _best_split(
    binned: np.ndarray,
    grad: np.ndarray,
    hess: np.ndarray,
    offsets: np.ndarray,
    config: BoostingConfig,
) -> tuple[int, int] | None:
    if len(grad) == 0 or hess.sum() < 2 * config.min_leaf_weight:
        return None
    width = config.bins + 1
    codes = (binned + offsets).ravel()
    size = width * binned.shape[1]
    g = np.bincount(codes, np.repeat(grad, binned.shape[1]), minlength=size).reshape(-1, width)
    h = np.bincount(codes, np.repeat(hess, binned.shape[1]), minlength=size).reshape(-1, width)
    g_left, h_left = np.cumsum(g, axis=1), np.cumsum(h, axis=1)
    g_all, h_all = g_left[:, -1:], h_left[:, -1:]
    g_right, h_right = g_all - g_left, h_all - h_left
    gain = (
        g_left**2 / (h_left + config.l2)
        + g_right**2 / (h_right + config.l2)
        - g_all**2 / (h_all + config.l2)
    )
    ok = (h_left >= config.min_leaf_weight) & (h_right >= config.min_leaf_weight)
    gain = np.where(ok, gain, -np.inf)
    best = int(np.argmax(gain))
    feature, cut_bin = divmod(best, width)
    if not np.isfinite(gain.flat[best]) or gain.flat[best] <= 1e-9:
        return None
    return feature, cut_bin


def _tree_logit(
    x: np.ndarray, tree: tuple[np.ndarray, np.ndarray, np.ndarray], depth: int
) -> np.ndarray:
    features, thresholds, leaves = tree
    node = np.zeros(len(x), dtype=np.int64)
    rows = np.arange(len(x))
    for _ in range(depth):
        node = 2 * node + 1 + (x[rows, features[node]] > thresholds[node])
    result: np.ndarray = leaves[node - (2**depth - 1)]
    return result

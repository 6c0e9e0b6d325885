"""Fitting the small gradient-boosted trees of ``evidence.boosting`` in numpy: logistic loss
on soft labels, histogram splits on quantile bins, each tree on a weighted sample of rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from newsextract.extraction.evidence.boosting import TreeEnsemble, sigmoid

#: Number of quantile bins a feature is cut into while training (histogram boosting).
BINS_DEFAULT = 32
#: A split that leaves a node with less weight than this on one side gains nothing there.
MIN_LEAF_WEIGHT_DEFAULT = 20.0
#: L2 penalty on leaf values (as in XGBoost's lambda).
L2_DEFAULT = 1.0


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
    """Logistic-loss boosting on soft labels ``y`` in [0, 1] with sample weights.

    Each tree learns from a sample of the rows drawn by weight (:func:`row_chances`): rows
    that weigh little (the many one-word blocks of a page) are drawn seldom and count more
    when drawn, so each tree sees most of the weight in a fraction of the rows.
    """
    edges = _bin_edges(x, config.bins)
    binned = _apply_bins(x, edges)
    rng = np.random.default_rng(config.seed)
    mean = float(np.clip(np.average(y, weights=weight), 1e-4, 1 - 1e-4))
    base = float(np.log(mean / (1 - mean)))
    score = np.full(len(y), base)
    features = np.zeros((config.trees, config.depth), dtype=np.int64)
    thresholds = np.full((config.trees, config.depth), np.inf)
    leaves = np.zeros((config.trees, 2**config.depth))
    chances = row_chances(weight, config.subsample)
    scale = np.divide(1.0, chances, out=np.zeros_like(chances), where=chances > 0)
    for t in range(config.trees):
        sample = np.flatnonzero(rng.random(len(y)) < chances)
        p = sigmoid(score[sample])
        w = weight[sample] * scale[sample]
        grad, hess = (p - y[sample]) * w, np.maximum(p * (1 - p), 1e-6) * w
        rows = binned[sample]
        features[t], cuts = _grow(rows, grad, hess, config)
        pairs = zip(features[t], cuts, strict=True)
        thresholds[t] = [edges[f][c] if c >= 0 else np.inf for f, c in pairs]
        leaf = _leaf_index(rows, features[t], cuts)
        g = np.bincount(leaf, grad, minlength=2**config.depth)
        h = np.bincount(leaf, hess, minlength=2**config.depth)
        leaves[t] = -g / (h + config.l2) * config.learning_rate
        score += leaves[t][_leaf_index(binned, features[t], cuts)]
    return TreeEnsemble(base, config.depth, features, thresholds, leaves)


def row_chances(weight: np.ndarray, share: float) -> np.ndarray:
    """Each row's chance to be drawn: in proportion to its weight, capped at 1, so that
    ``share`` of the weighted rows are drawn on average (rows of weight 0 never are).

    >>> row_chances(np.array([4.0, 1.0, 1.0, 0.0]), 0.5).round(3).tolist()
    [1.0, 0.25, 0.25, 0.0]
    """
    positive = weight > 0
    wanted = share * int(positive.sum())
    if wanted <= 0:
        return np.zeros(len(weight))
    low, high = 0.0, float(weight.max())  # the weight at which a row's chance reaches 1
    for _ in range(50):
        middle = (low + high) / 2
        if np.minimum(weight / max(middle, 1e-300), 1.0).sum() > wanted:
            low = middle
        else:
            high = middle
    chances: np.ndarray = np.minimum(weight / max(high, 1e-300), 1.0)
    return chances


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
    """One (feature, bin) per level, chosen by the gain summed over that level's nodes.

    Histograms of gradient and hessian per node, feature and bin are counted once for the
    root; below it, only for the smaller side of each split, the other side being its
    parent's less that (LightGBM's subtraction).
    """
    n, n_features = binned.shape
    width = config.bins + 1
    codes = binned + (np.arange(n_features, dtype=np.int32) * width)
    node = np.zeros(n, dtype=np.int64)
    features = np.zeros(config.depth, dtype=np.int64)
    cuts = np.full(config.depth, -1, dtype=np.int64)
    g, h = _histograms(codes, grad, hess, node, 1, width)
    for level in range(config.depth):
        gain = _split_gain(g, h, config).sum(axis=0)
        best = int(np.argmax(gain))
        if gain.flat[best] <= 1e-9:  # no useful split: every sample goes left at this level
            g = np.concatenate([g, np.zeros_like(g)])
            h = np.concatenate([h, np.zeros_like(h)])
            continue
        features[level], cuts[level] = divmod(best, width)
        right = binned[:, features[level]] > cuts[level]
        if level + 1 < config.depth:
            g, h = _split_histograms(codes, grad, hess, node, right, (g, h), width)
        node += right.astype(np.int64) << level
    return features, cuts


def _histograms(
    codes: np.ndarray,
    grad: np.ndarray,
    hess: np.ndarray,
    node: np.ndarray,
    nodes: int,
    width: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Sums of gradient and hessian per (node, feature, bin) of the rows given."""
    n_features = codes.shape[1]
    flat = (codes + (node * (n_features * width))[:, None]).ravel()
    size = nodes * n_features * width
    shape = (nodes, n_features, width)
    g = np.bincount(flat, np.repeat(grad, n_features), minlength=size).reshape(shape)
    h = np.bincount(flat, np.repeat(hess, n_features), minlength=size).reshape(shape)
    return g, h


def _split_histograms(
    codes: np.ndarray,
    grad: np.ndarray,
    hess: np.ndarray,
    node: np.ndarray,
    right: np.ndarray,
    parent: tuple[np.ndarray, np.ndarray],
    width: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The children's histograms: left children first (the node ids keep their number),
    then right ones (their id gains the level's bit)."""
    nodes = len(parent[0])
    counted_right = int(right.sum()) <= len(right) // 2
    rows = right if counted_right else ~right
    g, h = _histograms(codes[rows], grad[rows], hess[rows], node[rows], nodes, width)
    other_g, other_h = parent[0] - g, np.maximum(parent[1] - h, 0.0)
    if counted_right:
        return np.concatenate([other_g, g]), np.concatenate([other_h, h])
    return np.concatenate([g, other_g]), np.concatenate([h, other_h])


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

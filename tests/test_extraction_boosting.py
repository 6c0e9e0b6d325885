"""Oblivious boosted trees: the compiled prediction against the trees read one by one
(depths 4 and 6, the shipped model's, have unrolled paths of their own)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from newsextract.extraction.evidence.boosting import TreeEnsemble


def naive_logit(ensemble: TreeEnsemble, x: np.ndarray) -> np.ndarray:
    """Each row down each tree, level by level, as the model file describes the trees."""
    out = np.empty(len(x))
    for row in range(len(x)):
        values = np.empty(len(ensemble.leaves))
        for tree in range(len(ensemble.leaves)):
            leaf = 0
            for level in range(ensemble.depth):
                feature = ensemble.features[tree, level]
                if x[row, feature] > ensemble.thresholds[tree, level]:
                    leaf += 1 << level
            values[tree] = ensemble.leaves[tree, leaf]
        out[row] = ensemble.base + values.sum()  # the same order of addition
    return out


def random_ensemble(rng: np.random.Generator, trees: int, depth: int, width: int) -> TreeEnsemble:
    thresholds = np.round(rng.normal(size=(trees, depth)), 1)
    thresholds[rng.random((trees, depth)) < 0.1] = np.inf  # levels without a split
    return TreeEnsemble(
        base=float(rng.normal()),
        depth=depth,
        features=rng.integers(0, width, size=(trees, depth)),
        thresholds=thresholds,
        leaves=rng.normal(size=(trees, 2**depth)),
    )


@pytest.mark.parametrize(
    ("trees", "depth"), [(2, 0), (1, 1), (7, 3), (40, 4), (40, 6), (3, 8), (3, 9)]
)
@pytest.mark.parametrize("rows", [0, 1, 5, 300])
def test_prediction_is_exactly_the_trees(trees: int, depth: int, rows: int) -> None:
    rng = np.random.default_rng(trees * 100 + depth * 10 + rows)
    ensemble = random_ensemble(rng, trees, depth, width=12)
    x = np.round(rng.normal(size=(rows, 12)), 1)  # ties with thresholds go left
    assert np.array_equal(ensemble.logit(x), naive_logit(ensemble, x))


def test_prediction_of_many_rows_and_after_a_json_round_trip() -> None:
    rng = np.random.default_rng(5)
    ensemble = random_ensemble(rng, 20, 4, width=6)
    x = rng.normal(size=(5000, 6))
    again = TreeEnsemble.from_json(json.loads(json.dumps(ensemble.to_json())))
    expected = naive_logit(ensemble, x)
    assert np.array_equal(ensemble.logit(x), expected)
    assert np.allclose(again.logit(x), expected, atol=1e-5)  # leaves are stored to 6 places
    assert np.array_equal(ensemble.predict(x), 1 / (1 + np.exp(-expected)))


def test_integer_and_float32_features_compare_as_before() -> None:
    rng = np.random.default_rng(9)
    ensemble = random_ensemble(rng, 10, 3, width=4)
    for x in (rng.integers(-2, 3, size=(50, 4)), rng.normal(size=(50, 4)).astype(np.float32)):
        assert np.array_equal(ensemble.logit(x), naive_logit(ensemble, x))


def test_an_empty_ensemble_predicts_its_base() -> None:
    empty = TreeEnsemble(0.25, 3, np.zeros((0, 3), int), np.zeros((0, 3)), np.zeros((0, 8)))
    assert np.array_equal(empty.logit(np.zeros((4, 2))), np.full(4, 0.25))


def test_trees_sharing_their_tests_predict_exactly_the_trees() -> None:
    # A trained model repeats (feature, threshold) pairs across trees and levels; each is
    # compared once and read by every tree that uses it.
    rng = np.random.default_rng(11)
    ensemble = random_ensemble(rng, 30, 6, width=5)
    shared = TreeEnsemble(
        ensemble.base,
        ensemble.depth,
        ensemble.features % 2,
        np.where(np.isinf(ensemble.thresholds), np.inf, np.round(ensemble.thresholds)),
        ensemble.leaves,
    )
    x = np.round(rng.normal(size=(200, 5)))  # many rows sit on a threshold
    assert np.array_equal(shared.logit(x), naive_logit(shared, x))


@pytest.mark.parametrize(("trees", "depth"), [(0, 3), (5, 4)])
def test_arrays_give_the_same_ensemble(trees: int, depth: int) -> None:
    ensemble = random_ensemble(np.random.default_rng(trees), trees, depth, width=6)
    again = TreeEnsemble.from_arrays(ensemble.to_arrays("trees"), "trees")
    assert (again.base, again.depth) == (ensemble.base, ensemble.depth)
    for name in ("features", "thresholds", "leaves"):
        mine, theirs = getattr(again, name), getattr(ensemble, name)
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)


def test_arrays_of_the_wrong_shape_are_refused() -> None:
    arrays = random_ensemble(np.random.default_rng(2), 4, 3, width=6).to_arrays("trees")
    arrays["trees.leaves"] = arrays["trees.leaves"][:, :4]
    with pytest.raises(ValueError, match="depth 3"):
        TreeEnsemble.from_arrays(arrays, "trees")

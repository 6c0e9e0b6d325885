"""Small gradient-boosted trees: inspectable JSON weights, compiled prediction.

The trees are *oblivious* (as in CatBoost): every node of one level tests the same feature
against the same threshold, so a tree is ``depth`` (feature, threshold) pairs and a leaf
table. Prediction is compiled (``_trees``): a row's leaf in a tree is ``depth`` comparisons.
Fitting them is training's (``newsextract.training.boosting``): extraction never imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from newsextract.extraction.evidence._trees import tree_logits


class _TreeArrays(NamedTuple):
    """The trees laid out for the compiled prediction."""

    features: np.ndarray  # (trees, depth) int64
    thresholds: np.ndarray  # (trees, depth) float64
    leaves: np.ndarray  # (trees, 2**depth) float64


@dataclass(frozen=True, eq=False)  # arrays inside: == by identity
class TreeEnsemble:
    """Boosted oblivious trees on the logit scale: ``base + sum(leaf values)``."""

    base: float
    depth: int
    features: np.ndarray  # (trees, depth) feature tested at each level
    thresholds: np.ndarray  # (trees, depth) go right when value > threshold (inf: never)
    leaves: np.ndarray  # (trees, 2**depth) leaf values, learning rate applied

    def logit(self, x: np.ndarray) -> np.ndarray:
        """``base`` plus the leaf values of every tree, for each row of ``x`` (compiled)."""
        out = np.empty(len(x))
        if len(x):
            tree_logits(
                np.ascontiguousarray(x, dtype=np.float64),
                self._arrays.features,
                self._arrays.thresholds,
                self._arrays.leaves,
                self.base,
                out,
            )
        return out

    @cached_property
    def _arrays(self) -> _TreeArrays:
        """The trees as the compiled prediction reads them (built once per ensemble)."""
        return _TreeArrays(
            features=np.ascontiguousarray(self.features, dtype=np.int64),
            thresholds=np.ascontiguousarray(self.thresholds, dtype=np.float64),
            leaves=np.ascontiguousarray(self.leaves, dtype=np.float64),
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
        ensemble._check_shapes()
        return ensemble

    def to_arrays(self, name: str) -> dict[str, np.ndarray]:
        """The ensemble as arrays named ``name.*`` (the model's arrays file, see ``classifier``)."""
        return {
            f"{name}.base": np.array(self.base),
            f"{name}.depth": np.array(self.depth),
            f"{name}.features": self.features,
            f"{name}.thresholds": self.thresholds,
            f"{name}.leaves": self.leaves,
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], name: str) -> TreeEnsemble:
        ensemble = cls(
            base=float(arrays[f"{name}.base"]),
            depth=int(arrays[f"{name}.depth"]),
            features=arrays[f"{name}.features"].astype(np.int64, copy=False),
            thresholds=arrays[f"{name}.thresholds"].astype(float, copy=False),
            leaves=arrays[f"{name}.leaves"].astype(float, copy=False),
        )
        ensemble._check_shapes()
        return ensemble

    def _check_shapes(self) -> None:
        trees, depth = len(self.leaves), self.depth
        shapes = (self.features.shape, self.thresholds.shape, self.leaves.shape)
        if trees and shapes != ((trees, depth), (trees, depth), (trees, 2**depth)):
            raise ValueError(f"tree arrays have shapes {shapes}, not those of depth {depth}")


def _finite(value: float) -> float | None:
    # Thresholds keep every digit: many sit exactly on a feature value (1/3, say), and a
    # rounded one would send those rows the other way than in training.
    return None if not np.isfinite(value) else float(value)


def sigmoid(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    return out

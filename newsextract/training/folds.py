"""Folds of the development pages: at random, or grouped by site."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from newsextract.training.samples import PageSample

SEED = 20260101


def random_folds(n: int, k: int) -> list[int]:
    """A fold for each of ``n`` pages, at random with the fixed seed."""
    rng = np.random.default_rng(SEED)
    return [int(v) for v in rng.integers(0, k, n)]


def site_folds(samples: Sequence[PageSample], k: int) -> list[int]:
    """A fold for every page: all pages of a site share one, and each set is split evenly.

    Sites are shuffled with the fixed seed, then placed largest first, each in the fold that
    holds fewest pages of the site's main set so far.
    """
    pages: dict[str, Counter[str]] = {}
    for sample in samples:
        pages.setdefault(sample.domain, Counter())[sample.dataset] += 1
    order = sorted(pages)
    np.random.default_rng(SEED).shuffle(order)
    order.sort(key=lambda site: -sum(pages[site].values()))
    filled: dict[str, list[int]] = {}
    fold_of: dict[str, int] = {}
    for site in order:
        main_set = pages[site].most_common(1)[0][0]
        fold = int(np.argmin(filled.setdefault(main_set, [0] * k)))
        fold_of[site] = fold
        for dataset, n in pages[site].items():
            filled.setdefault(dataset, [0] * k)[fold] += n
    return [fold_of[sample.domain] for sample in samples]

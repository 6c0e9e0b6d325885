"""Block signatures (method A): a block's features as a multiset, and the similarity join.

A block's features are the tag names of its inline content, its ``title``/``alt`` texts and the
words of its text. Two blocks are *the same* when the multiset Jaccard of their features is at
least ``SAME_BLOCK_JACCARD_DEFAULT``. The join finds every such pair across a page group: exact
hashes first, then a prefix-filtered fuzzy join for the rest.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from newsextract.extraction.pagemodel.blocks import Block

#: Seed 000's threshold for "the same block" (multiset Jaccard), kept as the paper gives it.
SAME_BLOCK_JACCARD_DEFAULT = 0.9

Feature = tuple[str, int]  # (feature, occurrence number): a multiset as a set


@dataclass(frozen=True)
class Signature:
    """One block's features; ``key`` hashes the whole multiset for the exact join."""

    page: int
    block: int
    features: frozenset[Feature]
    key: str

    @property
    def size(self) -> int:
        return len(self.features)


def block_features(block: Block) -> Counter[str]:
    """The multiset of a block's features.

    >>> from lxml import etree
    >>> b = Block(0, etree.Element("p"), "p", "a b a", 1, 0, ("a",), ("logo",))
    >>> sorted(block_features(b).items())
    [('<a', 1), ('@logo', 1), ('a', 2), ('b', 1)]
    """
    features: Counter[str] = Counter("<" + tag for tag in block.inline_tags)
    features.update("@" + text for text in block.attr_texts)
    features.update(block.text.split())
    return features


def signature(page: int, block: Block) -> Signature:
    counts = block_features(block)
    items = frozenset((name, n) for name, count in counts.items() for n in range(count))
    digest = hashlib.blake2b(repr(sorted(counts.items())).encode(), digest_size=12).hexdigest()
    return Signature(page, block.index, items, digest)


def jaccard(a: frozenset[Feature], b: frozenset[Feature]) -> float:
    """Multiset Jaccard of two feature sets (occurrences numbered, so set operations suffice)."""
    if not a and not b:
        return 1.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


@dataclass(frozen=True)
class JoinResult:
    """For every (page, block): the other pages holding a same block."""

    matches: dict[tuple[int, int], frozenset[int]]

    def pages_with(self, page: int, block: int) -> frozenset[int]:
        return self.matches.get((page, block), frozenset())


def similarity_join(
    pages: Sequence[Sequence[Block]], threshold: float = SAME_BLOCK_JACCARD_DEFAULT
) -> JoinResult:
    """Find, for each block, the other pages of the group that hold a same block."""
    sigs = [signature(p, block) for p, blocks in enumerate(pages) for block in blocks]
    found: dict[tuple[int, int], set[int]] = defaultdict(set)
    by_key: dict[str, list[Signature]] = defaultdict(list)
    for sig in sigs:
        by_key[sig.key].append(sig)
    representatives = []
    for group in by_key.values():
        group_pages = {sig.page for sig in group}
        for sig in group:
            found[(sig.page, sig.block)].update(group_pages - {sig.page})
        representatives.append(group)
    _fuzzy_join(representatives, threshold, found)
    return JoinResult({key: frozenset(value) for key, value in found.items()})


def _fuzzy_join(
    groups: list[list[Signature]], threshold: float, found: dict[tuple[int, int], set[int]]
) -> None:
    """Prefix-filtered join over one representative per exact group (rarest features first)."""
    frequency: Counter[Feature] = Counter()
    for group in groups:
        frequency.update(group[0].features)
    index: dict[Feature, list[int]] = defaultdict(list)
    for number, group in enumerate(groups):
        features = sorted(group[0].features, key=lambda f: (frequency[f], f))
        prefix = len(features) - math.ceil(threshold * len(features)) + 1
        candidates: set[int] = set()
        for feature in features[:prefix]:
            candidates.update(index[feature])
            index[feature].append(number)
        for other in candidates:
            _compare(groups[number], groups[other], threshold, found)


def _compare(
    a: list[Signature],
    b: list[Signature],
    threshold: float,
    found: dict[tuple[int, int], set[int]],
) -> None:
    sa, sb = a[0].features, b[0].features
    small, large = sorted((len(sa), len(sb)))
    if small < threshold * large or jaccard(sa, sb) < threshold:
        return
    pages_a, pages_b = {sig.page for sig in a}, {sig.page for sig in b}
    for sig in a:
        found[(sig.page, sig.block)].update(pages_b - {sig.page})
    for sig in b:
        found[(sig.page, sig.block)].update(pages_a - {sig.page})

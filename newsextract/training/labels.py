"""Block labels from gold text: what share of a block the gold holds, and how much it counts.

Whole-text gold (most sets) labels every block by the share of its 4-token shingles found in
the gold (CJK: character shingles, as the metric counts them). Snippet gold labels only the
blocks that hold a snippet: one that must be in the output makes its block content, one that
must not makes it noise; every other block is left out of training (weight 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from newsextract.evaluation.metric import SHINGLE_SIZE as SHINGLE
from newsextract.evaluation.metric import shingles, tokens

#: Share of a block's shingles in the gold text above which it counts as content.
CONTENT_LABEL_DEFAULT = 0.5
#: Snippets shorter than this (characters) are not looked for in blocks: "31. Mai" or
#: "Impressum" occur in running text too, and would label a paragraph noise.
MIN_SNIPPET_CHARS_DEFAULT = 12


@dataclass(frozen=True)
class BlockLabels:
    """Per block: the content share (0..1) and whether the gold says anything of it."""

    label: np.ndarray
    known: np.ndarray  # bool: False where snippet gold is silent


def label_blocks(texts: Sequence[str], gold: str, lang: str) -> np.ndarray:
    """Share of each block's shingles in the gold text.

    A block shorter than a shingle is judged with its neighbours' edge tokens, by the
    shingles that cross it: a lone "M" of a calendar is found in almost any gold text, but
    "M T W T" in a row is not.
    """
    gold_shingles = shingles(tokens(gold, lang))
    block_tokens = [tokens(text, lang) for text in texts]
    labels = np.zeros(len(texts))
    for i, own_tokens in enumerate(block_tokens):
        if not own_tokens:
            continue
        if len(own_tokens) < SHINGLE:
            before = block_tokens[i - 1][-(SHINGLE - 1) :] if i > 0 else []
            after = block_tokens[i + 1][: SHINGLE - 1] if i + 1 < len(texts) else []
            window = before + own_tokens + after
            crossing = [
                tuple(window[j : j + SHINGLE])
                for j in range(max(0, len(before) - SHINGLE + 1), len(before) + len(own_tokens))
                if j + SHINGLE <= len(window)
            ] or [tuple(own_tokens)]
            labels[i] = sum(s in gold_shingles for s in crossing) / len(crossing)
            continue
        own = shingles(own_tokens)
        labels[i] = sum(min(c, gold_shingles[s]) for s, c in own.items()) / sum(own.values())
    return labels


def label_snippets(
    texts: Sequence[str], wanted: Sequence[str], unwanted: Sequence[str]
) -> BlockLabels:
    """Content where a block holds a wanted snippet (or lies wholly inside one), noise where
    it holds an unwanted one; the other blocks are unknown.

    >>> labels = label_snippets(["Menu is here", "The long story told here.", "x"],
    ...                         ["long story told"], ["Menu is here"])
    >>> labels.label.tolist(), labels.known.tolist()
    ([0.0, 1.0, 0.0], [True, True, False])
    """
    label = np.zeros(len(texts))
    known = np.zeros(len(texts), dtype=bool)
    for kind, snippets in ((0.0, unwanted), (1.0, wanted)):  # wanted wins where both are
        for snippet in (" ".join(s.split()) for s in snippets):
            for i, text in enumerate(texts):
                if _holds(text, snippet):
                    label[i], known[i] = kind, True
    return BlockLabels(label, known)


def _holds(text: str, snippet: str) -> bool:
    """Whether a block is the snippet, holds it, or is itself a long enough part of it."""
    if text == snippet:
        return True
    if len(snippet) >= MIN_SNIPPET_CHARS_DEFAULT and snippet in text:
        return True
    return len(text) >= MIN_SNIPPET_CHARS_DEFAULT and text in snippet

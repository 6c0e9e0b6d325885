"""How each block is worded, in terms that hold in any language (method E's layout stage).

Stop-word density (the page's language found from a hundred stop lists), the density of the
page's own most widespread words (its stop words, whatever its language), and the same two
over a window of blocks, so that a run of paragraphs is seen as one; then the shape of the
words and sentences: mean word length and words per sentence.
"""

from __future__ import annotations

import re

import numpy as np

from newsextract.extraction.evidence._layout import fill_wording
from newsextract.extraction.evidence.stopwords import (
    MIN_RUNNING_TOKENS_DEFAULT,
    OWN_COMMON_MIN_BLOCKS_DEFAULT,
    OWN_COMMON_WORDS_DEFAULT,
    StopWords,
)
from newsextract.extraction.pagemodel.blocktable import BlockTable

#: Words in a run: long enough that two texts sharing runs share wording, not just words.
RUN_WORDS = 4
_WORD = re.compile(r"\w+")


def lower_words(text: str) -> list[str]:
    """The text's words, lower-cased, as copies of a text are compared."""
    return _WORD.findall(text.lower())


def word_runs(words: list[str]) -> list[tuple[str, ...]]:
    """Every run of :data:`RUN_WORDS` consecutive words, in order, repeats included."""
    return [tuple(words[j : j + RUN_WORDS]) for j in range(len(words) - RUN_WORDS + 1)]


WORDING_FEATURE_NAMES = (
    "stop_density",
    "stop_window",
    "page_stop_share",
    "own_density",
    "own_window",
    "log_token_chars",
    "log_words_per_sentence",
)


#: Columns written as ratios whose ``log1p`` is the feature (features.take_logs).
WORDING_LOG_FEATURES = frozenset({"log_token_chars", "log_words_per_sentence"})


def fill_wording_features(table: BlockTable, stops: StopWords, out: np.ndarray, first: int) -> None:
    """Write the wording features into ``out`` from column ``first`` (those of
    :data:`WORDING_LOG_FEATURES` before their logarithm); zeros on a page without words.
    The page's language and its own common words are found here, the columns in C."""
    n = len(table.chars)
    if n == 0 or not len(table.token_ids):
        out[:, first : first + len(WORDING_FEATURE_NAMES)] = 0.0
        return
    sizes = np.bincount(table.token_block, minlength=n)
    ids, vocabulary = table.word_ids
    running = sizes[table.token_block] >= MIN_RUNNING_TOKENS_DEFAULT
    stop_flags, share = _stop_flags(stops, vocabulary, ids, running)
    own_flags = _own_common_flags(ids, table.token_block, running, len(vocabulary), n)
    fill_wording(
        table.token_block,
        sizes,
        stop_flags.view(np.uint8),
        own_flags.view(np.uint8),
        share,
        table.token_chars,
        table.words,
        table.counts,
        out,
        first,
    )


def _stop_flags(
    stops: StopWords, vocabulary: tuple[str, ...], ids: np.ndarray, running: np.ndarray
) -> tuple[np.ndarray, float]:
    """Which tokens are stop words of the page's language, and that language's share of the
    running text (0 when no list fits)."""
    counts = np.bincount(ids[running], minlength=len(vocabulary))
    rows = stops.rows(vocabulary)
    seen = np.flatnonzero(counts)
    language = stops.language_of(rows[seen], counts[seen].astype(np.float64), int(counts.sum()))
    if language.index < 0:
        return np.zeros(len(ids), dtype=bool), 0.0
    flags: np.ndarray = stops.listed(rows, language)[ids]
    return flags, language.share


def _own_common_flags(
    ids: np.ndarray, token_block: np.ndarray, running: np.ndarray, words: int, blocks: int
) -> np.ndarray:
    """Which tokens are among the words found in the most running blocks."""
    spread = np.bincount(_distinct_in_blocks(ids[running], token_block[running]), minlength=words)
    order = np.argsort(-spread, kind="stable")[:OWN_COMMON_WORDS_DEFAULT]
    common = order[spread[order] >= OWN_COMMON_MIN_BLOCKS_DEFAULT]
    flags = np.zeros(words, dtype=bool)
    flags[common] = True
    result: np.ndarray = flags[ids]
    return result


def _distinct_in_blocks(ids: np.ndarray, token_block: np.ndarray) -> np.ndarray:
    """The word ids of the distinct (word, block) pairs, ordered by word.

    Tokens come in block order, so a stable sort by word keeps each word's blocks in order
    and a pair's repeats side by side. Word ids that fit 16 bits are sorted by radix in
    linear time: 8 times faster than ``np.unique`` of the pairs on a page of 25,000 blocks.
    """
    keys = ids.astype(np.uint16) if len(ids) and ids.max() < 2**16 else ids
    order = np.argsort(keys, kind="stable")
    ids, token_block = ids[order], token_block[order]
    first = np.ones(len(ids), dtype=bool)
    first[1:] = (ids[1:] != ids[:-1]) | (token_block[1:] != token_block[:-1])
    distinct: np.ndarray = ids[first]
    return distinct

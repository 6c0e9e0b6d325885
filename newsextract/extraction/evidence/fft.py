"""Method C: the best body interval by FFT (seed 001, Li Lei et al.).

The paper works on the raw HTML source: the article body is one contiguous span, dense in
letters and CJK characters, while the markup and scripts before and after it are dense in
``<>="/;``. Raw source is a poor signal today (scripts and styles fill half a page), so
this module works on the *cleaned* page, re-serialised block by block:

    each block contributes its start tag, one ``<t></t>`` pair for each inline element it
    holds (``<a href=""></a>`` for links), its text, and the end tags of the blocks that
    close after it.

This keeps the paper's contrast (a link list is mostly markup, a paragraph mostly
letters) without scripts, and every character of the sequence belongs to one block, so
the best interval maps back to blocks exactly.

Stages: text-intensity encoding of each character, windows of W characters, the FFT
magnitude spectrum of each window, the Euclidean distance matrix of the spectra, and the
score of every window interval i..j (distances between inside and outside windows minus
distances among inside windows) from prefix-sum tables, so each interval costs O(1).
The smoothed interval (score-weighted mean start and end of all positive intervals) is
the answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from newsextract.extraction.evidence.method import MethodResult
from newsextract.extraction.pagemodel.blocks import Block
from newsextract.extraction.pagemodel.page import Page

METHOD_NAME = "fft"
FloatArray = npt.NDArray[np.float64]
_BMP_SLOTS = 0x10000

#: Window length W in characters (lost in the paper's PDF). 32-128 were tried on dragnet
#: and cleaneval; 64 scored best on both, and a window of 64 holds a short menu entry with
#: its markup, or about a line of running text.
WINDOW_DEFAULT = 64
#: The distance matrix has windows**2 cells; longer sequences get longer windows instead of
#: more of them, so a 20 MB page costs what a 100 kB one does. 256 scored as 1024 did on
#: dragnet, cleaneval, msv_chaos and chinese_wced (150 pages each) at half the time.
MAX_WINDOWS_DEFAULT = 256
#: Longer serialised pages are subsampled (every k-th character) to this length, so that
#: the per-character arrays of a 20 MB page stay small: 500,000 characters are ten times a
#: typical article page and cost about 40 ms.
MAX_CHARS_DEFAULT = 500_000
#: The weight of a markup character below zero ("a normal density plus a negative offset"),
#: relative to the text characters' scale; 1.0 makes a markup character weigh about as
#: much as a frequent letter. Calibrated on dragnet (0.25-4 tried; flat above 0.5).
MARKUP_OFFSET_DEFAULT = 1.0
#: Frequencies of each window's spectrum that are compared, lowest first. The text/markup
#: contrast lives in the low frequencies; 16 scored as the full spectrum (up to 33 bins at
#: W = 64) on dragnet, cleaneval, msv_chaos and chinese_wced (150 pages each).
SPECTRUM_BINS_DEFAULT = 16
#: Blocks outside the smoothed interval get a score that fades to zero over this many
#: windows, for the combiner to read as soft evidence.
FADE_WINDOWS_DEFAULT = 4.0
#: A block is kept when at least this share of its characters lies inside the interval.
MIN_INSIDE_SHARE_DEFAULT = 0.5


@dataclass(frozen=True)
class FFTConfig:
    """Tunables of method C; see the ``*_DEFAULT`` constants for their calibration."""

    window: int = WINDOW_DEFAULT
    max_chars: int = MAX_CHARS_DEFAULT
    max_windows: int = MAX_WINDOWS_DEFAULT
    markup_offset: float = MARKUP_OFFSET_DEFAULT
    fade_windows: float = FADE_WINDOWS_DEFAULT
    min_inside_share: float = MIN_INSIDE_SHARE_DEFAULT


@dataclass(frozen=True)
class Interval:
    """A span of windows, inclusive at both ends, and its score."""

    start: float
    end: float
    score: float


def fft_interval(page: Page, config: FFTConfig = FFTConfig()) -> MethodResult:
    """Method C on one page: the blocks inside the smoothed best interval (hidden blocks,
    tabs and menus a script shows, are left out: the method cannot judge them)."""
    visible = [block for block in page.blocks if not block.hidden]
    sequence, spans = serialise_blocks(visible)
    stride = math.ceil(len(sequence) / config.max_chars) if sequence else 1
    if stride > 1:  # every stride-th character: the statistics survive, the cost is bounded
        sequence = sequence[::stride]
        spans = [(start // stride, end // stride) for start, end in spans]
    window = window_length(len(sequence), config)
    windows = len(sequence) // window
    if windows < 2:
        kept = tuple(block.index for block in visible)
        every = tuple(0.0 if block.hidden else 1.0 for block in page.blocks)
        return MethodResult(METHOD_NAME, kept, 0.0, every)
    values = text_intensity(sequence, config.markup_offset)[: windows * window]
    distances = spectrum_distances(values.reshape(windows, window))
    interval = smoothed_interval(interval_scores(distances))
    start, end = interval.start * window, (interval.end + 1) * window
    scores = [0.0] * len(page.blocks)
    for block, span in zip(visible, spans, strict=True):
        scores[block.index] = _block_score(span, start, end, window, config)
    kept = tuple(
        block.index
        for block, span in zip(visible, spans, strict=True)
        if _inside_share(span, start, end) >= config.min_inside_share
    )
    return MethodResult(METHOD_NAME, kept, interval.score, tuple(scores))


def window_length(length: int, config: FFTConfig = FFTConfig()) -> int:
    """W, lengthened for long sequences so that there are at most ``max_windows`` windows.

    >>> window_length(10_000), window_length(1_000_000)
    (64, 3907)
    """
    return max(config.window, math.ceil(length / config.max_windows))


def serialise_blocks(blocks: Sequence[Block]) -> tuple[str, list[tuple[int, int]]]:
    """The cleaned page as one string, and each block's [start, end) span in it."""
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0
    for number, block in enumerate(blocks):
        following = blocks[number + 1].depth if number + 1 < len(blocks) else 0
        piece = _block_markup(block, following)
        pieces.append(piece)
        spans.append((position, position + len(piece)))
        position += len(piece)
    return "".join(pieces), spans


def _block_markup(block: Block, following_depth: int) -> str:
    inline = "".join(
        '<a href=""></a>' if tag == "a" else f"<{tag}></{tag}>" for tag in block.inline_tags
    )
    closing = f"</{block.tag}>" * max(1, block.depth - following_depth + 1)
    return f"<{block.tag}>{inline}{block.text}{closing}"


def text_intensity(sequence: str, markup_offset: float = MARKUP_OFFSET_DEFAULT) -> FloatArray:
    """The paper's encoding: each character's weight at its position.

    A text character (letter, digit, CJK) is worth its relative frequency times the normal
    density of its own positions (mean and spread of where that character occurs), so
    frequent text characters weigh most where they cluster. Any other character is the
    same density minus ``markup_offset``, clipped at zero from above: never positive.
    """
    codes = np.frombuffer(sequence.encode("utf-32-le"), dtype=np.uint32)
    length = len(codes)
    positions = np.arange(length, dtype=np.float64) / max(length - 1, 1)
    # Per-character statistics by code point (a table look-up, not a sort); the few
    # characters beyond the Basic Multilingual Plane share one slot.
    ids = np.minimum(codes, _BMP_SLOTS - 1)
    counts = np.bincount(ids, minlength=_BMP_SLOTS)
    safe_counts = np.maximum(counts, 1)
    mean = np.bincount(ids, weights=positions, minlength=_BMP_SLOTS) / safe_counts
    spread = np.bincount(ids, weights=positions**2, minlength=_BMP_SLOTS) / safe_counts - mean**2
    present = np.nonzero(counts)[0]
    is_text = np.zeros(_BMP_SLOTS, dtype=bool)
    is_text[present] = [chr(code).isalnum() for code in present]
    sigma = (np.sqrt(np.maximum(spread, 0.0)) + 1.0 / max(length, 1))[ids]
    bell = np.exp(-0.5 * ((positions - mean[ids]) / sigma) ** 2)
    weighted = (counts / max(length, 1))[ids] * bell / (sigma * math.sqrt(2 * math.pi))
    text_mask = is_text[ids]
    scale = float(weighted[text_mask].mean()) if text_mask.any() else 1.0
    result: FloatArray = np.where(
        text_mask, weighted / (scale or 1.0), markup_offset * (bell - 1.0)
    )
    return result


def spectrum_distances(windows: FloatArray, bins: int = SPECTRUM_BINS_DEFAULT) -> FloatArray:
    """Euclidean distances between the FFT magnitude spectra of the windows (rows).

    Only the lowest ``bins`` frequencies are compared; the Gram matrix is built in row
    chunks small enough that BLAS stays on one thread (a threaded product of this size is
    ten times slower on a busy machine).
    """
    spectra = np.abs(np.fft.rfft(windows, axis=1))[:, :bins]
    transposed = np.ascontiguousarray(spectra.T)
    gram = np.empty((len(spectra), len(spectra)))
    for start in range(0, len(spectra), _GRAM_CHUNK_ROWS):
        gram[start : start + _GRAM_CHUNK_ROWS] = (
            spectra[start : start + _GRAM_CHUNK_ROWS] @ transposed
        )
    norms = np.diagonal(gram)
    squared = norms[:, None] + norms[None, :] - 2.0 * gram
    distances: FloatArray = np.sqrt(np.maximum(squared, 0.0))
    return distances


_GRAM_CHUNK_ROWS = 32


def interval_scores(distances: FloatArray) -> FloatArray:
    """Score of every interval i..j (upper triangle; -inf below): between minus within.

    With P the 2-D prefix sums of the distance matrix D and R the prefix sums of its row
    sums, the distances among windows i..j are ``inner = P[j+1,j+1] - P[i,j+1] - P[j+1,i]
    + P[i,i]`` (each pair counted twice) and those from inside to outside are
    ``R[j+1] - R[i] - inner``: two table look-ups an interval.
    """
    n = len(distances)
    table = np.zeros((n + 1, n + 1))
    table[1:, 1:] = distances.cumsum(axis=0).cumsum(axis=1)
    rows = np.concatenate(([0.0], distances.sum(axis=1).cumsum()))
    i, j = np.triu_indices(n)
    inner = table[j + 1, j + 1] - table[i, j + 1] - table[j + 1, i] + table[i, i]
    between = rows[j + 1] - rows[i] - inner
    scores = np.full((n, n), -np.inf)
    scores[i, j] = between - inner / 2.0
    return scores


def smoothed_interval(scores: FloatArray) -> Interval:
    """Score-weighted mean start and end of the intervals with a positive score."""
    starts, ends = np.nonzero(scores > 0)
    if len(starts) == 0:
        best = np.unravel_index(int(np.argmax(scores)), scores.shape)
        return Interval(float(best[0]), float(best[1]), 0.0)
    weights = scores[starts, ends]
    total = float(weights.sum())
    start = float((starts * weights).sum() / total)
    end = float((ends * weights).sum() / total)
    top = float(weights.max())
    confidence = top / (top + float(np.abs(scores[np.isfinite(scores)]).mean()))
    return Interval(start, max(start, end), confidence)


def _inside_share(span: tuple[int, int], start: float, end: float) -> float:
    low, high = span
    overlap = min(high, end) - max(low, start)
    return max(0.0, overlap) / (high - low) if high > low else 0.0


def _block_score(
    span: tuple[int, int], start: float, end: float, window: int, config: FFTConfig
) -> float:
    """1 inside the interval, fading linearly to 0 over ``fade_windows`` windows outside."""
    low, high = span
    gap = max(start - high, low - end, 0.0) / window
    return max(0.0, 1.0 - gap / config.fade_windows) if config.fade_windows > 0 else float(gap == 0)

"""Method E: block classification with layout and language features (seed 004).

Two independent classifiers judge every block: boosted trees on layout features taken from
the DOM (:mod:`newsextract.extraction.evidence.features`) and a unigram language model of content
versus noise text. Their posteriors are combined as in the paper (a weighted mean or the
maximum; the trained model says which, chosen on the development data). A second stage then
works top-down on the DOM: every enclosing element is judged by the content mass of its
subtree, and each block's posterior is revised with its element's and neighbours' verdicts.
The trained weights ship as JSON in ``models/``, written by ``newsextract train`` with the
same weights as arrays beside it, which extraction reads (:func:`read_model`).
"""

from __future__ import annotations

import json
import warnings
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import numpy as np

from newsextract.exceptions import ExtractionError
from newsextract.extraction.evidence._names import WordTable
from newsextract.extraction.evidence.arrayfile import (
    line_words,
    pack_arrays,
    text_array,
    text_words,
    unpack_arrays,
    word_lines,
)
from newsextract.extraction.evidence.boosting import TreeEnsemble, sigmoid
from newsextract.extraction.evidence.context import context_feature_names, context_features
from newsextract.extraction.evidence.features import (
    LOG_FEATURES,
    feature_names,
    fill_layout_features,
    log_columns,
    take_logs,
)
from newsextract.extraction.evidence.method import MethodResult
from newsextract.extraction.evidence.stopwords import NO_STOP_WORDS, StopWords
from newsextract.extraction.evidence.wording import (
    WORDING_FEATURE_NAMES,
    WORDING_LOG_FEATURES,
    fill_wording_features,
)
from newsextract.extraction.pagemodel.blocktable import OWN_TAGS, BlockTable, read_blocks
from newsextract.extraction.pagemodel.compiled import fold_text, headline_matches
from newsextract.extraction.pagemodel.page import Page

MODEL_FILE = "classifier.json"
#: The same model as arrays (:mod:`.arrayfile`), written beside the JSON by ``newsextract
#: train``. Read from them, the model and the tables its first page needs cost 68 M
#: instructions (callgrind), against 157 M from the JSON: a tenth of a one-page ``extract``.
MODEL_ARRAYS_FILE = "classifier.arrays"
MODEL_FORMAT = 3  # 2: oblivious trees; 3: with stop lists
#: A language-model log-odds is clipped to this, so no single word decides a block.
MAX_TOKEN_LOG_ODDS_DEFAULT = 4.0


@dataclass(frozen=True)
class LanguageModel:
    """Unigram log-odds of content versus noise, turned into a posterior by a small logistic fit."""

    log_odds: Mapping[str, float]
    weights: tuple[float, ...]  # bias, mean log-odds, log tokens known, mean x log tokens

    def posterior(self, table: BlockTable) -> np.ndarray:
        return self._posterior(table, self._token_values(table))

    def coverage(self, table: BlockTable) -> float:
        """Share of the page's words found in the model's vocabulary."""
        if not len(table.token_ids):
            return 0.0
        known = sum(map(self.log_odds.__contains__, table.tokens))
        return known / len(table.token_ids)

    def posterior_and_coverage(self, table: BlockTable) -> tuple[np.ndarray, float]:
        """:meth:`posterior` and :meth:`coverage`, looking each token up once."""
        values = self._token_values(table)
        if not len(table.token_ids) or self._has_nan:
            coverage = self.coverage(table)
        else:  # a token is known where its value is a number
            coverage = int(np.count_nonzero(~np.isnan(values))) / len(table.token_ids)
        return self._posterior(table, values), coverage

    def features(self, table: BlockTable) -> np.ndarray:
        """Per block: bias, mean log-odds of known words, log of their count, the product."""
        return self._features(table, self._token_values(table))

    def _posterior(self, table: BlockTable, values: np.ndarray) -> np.ndarray:
        return sigmoid(self._features(table, values) @ np.asarray(self.weights))

    def _token_values(self, table: BlockTable) -> np.ndarray:
        """Each token's log-odds, NaN for tokens the model does not know (each distinct word
        looked up once)."""
        ids, vocabulary = table.word_ids
        words, values = self._lookup
        numbers = np.empty(len(vocabulary), dtype=np.int64)
        words.lookup(vocabulary, len(words), numbers)
        by_token: np.ndarray = values[numbers][ids]
        return by_token

    @cached_property
    def _lookup(self) -> tuple[WordTable, np.ndarray]:
        """The words in a table for lookups in C, and their log-odds by number, then NaN
        (for the words the model does not know)."""
        values = np.fromiter(self.log_odds.values(), np.float64, len(self.log_odds))
        return WordTable(word_lines(self.log_odds)), np.append(values, np.nan)

    @classmethod
    def from_arrays(
        cls, lines: bytes, log_odds: np.ndarray, weights: tuple[float, ...]
    ) -> LanguageModel:
        """The model as the arrays file stores it (``lines``: the words in UTF-8, each ended
        by a line break). The words are looked up in a table made from those bytes; the dict
        of :attr:`log_odds` is made only when read (training, the JSON form). Whether a
        log-odds is NaN is read off the array at once, not value by value at the first page."""
        words = WordTable(lines)
        if len(words) != len(log_odds) or words.distinct != len(words):
            raise ValueError("a language model holds each word once, with one log-odds")
        values = np.asarray(log_odds, dtype=np.float64)
        model = cls(_WordValues(lines, values), weights)
        lookup = (words, np.append(values, np.nan))
        model.__dict__.update(_has_nan=bool(np.isnan(values).any()), _lookup=lookup)
        return model

    @cached_property
    def _has_nan(self) -> bool:
        return any(value != value for value in self.log_odds.values())

    def _features(self, table: BlockTable, values: np.ndarray) -> np.ndarray:
        n = len(table.chars)
        known = ~np.isnan(values) if len(values) else np.zeros(0, dtype=bool)
        blocks = table.token_block[known]
        total = np.bincount(blocks, values[known], minlength=n)
        count = np.bincount(blocks, minlength=n).astype(float)
        mean = total / np.maximum(count, 1.0)
        log_count = np.log1p(count)
        return np.column_stack([np.ones(n), mean, log_count, mean * log_count])


class _WordValues(Mapping[str, float]):
    """The language model's log-odds as its arrays store them, made into a dict at the first
    read: extraction looks words up in the word table instead (3 ms of every process's
    start)."""

    def __init__(self, lines: bytes, values: np.ndarray) -> None:
        self._lines, self._values = lines, values

    @cached_property
    def _made(self) -> dict[str, float]:
        words = line_words(self._lines)
        return dict(zip(words, self._values.tolist(), strict=True))

    def __getitem__(self, word: str) -> float:
        return self._made[word]

    def __iter__(self) -> Iterator[str]:
        return iter(self._made)

    def __len__(self) -> int:
        return len(self._made)


@dataclass(frozen=True, eq=False)  # arrays inside: == by identity
class ClassifierModel:
    """Everything method E learned; see ``newsextract train``."""

    feature_names: tuple[str, ...]
    context_names: tuple[str, ...]
    layout: TreeEnsemble
    language: LanguageModel
    names: dict[str, float]  # class/id word log-odds, a layout feature
    combination: str  # "weighted", "max" or "add" (see combine_posteriors)
    layout_weight: float  # used by "weighted": layout * w + language * (1 - w)
    context: TreeEnsemble
    threshold: float
    stop_words: StopWords = NO_STOP_WORDS

    def to_json(self) -> dict[str, Any]:
        return {
            "format": MODEL_FORMAT,
            "feature_names": list(self.feature_names),
            "context_names": list(self.context_names),
            "layout": self.layout.to_json(),
            "language": {
                "weights": list(self.language.weights),
                "log_odds": {k: round(v, 3) for k, v in sorted(self.language.log_odds.items())},
            },
            "names": {k: round(v, 3) for k, v in sorted(self.names.items())},
            "combination": self.combination,
            "layout_weight": self.layout_weight,
            "context": self.context.to_json(),
            "threshold": self.threshold,
            "stop_words": self.stop_words.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClassifierModel:
        if data.get("format") != MODEL_FORMAT:
            raise ExtractionError(f"classifier model format {data.get('format')!r} not supported")
        try:
            return cls._read(data)
        except (KeyError, TypeError, ValueError) as error:
            raise ExtractionError(f"classifier model is damaged: {error}") from error

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The model as named arrays, each list of words one array of UTF-8 text."""
        words, numbers, sizes = self.stop_words.numbering()
        return {
            "format": np.array(MODEL_FORMAT),
            "feature_names": text_array(self.feature_names),
            "context_names": text_array(self.context_names),
            **self.layout.to_arrays("layout"),
            "language.words": text_array(self.language.log_odds),
            "language.log_odds": np.array(list(self.language.log_odds.values()), dtype=float),
            "language.weights": np.array(self.language.weights, dtype=float),
            "names.words": text_array(self.names),
            "names.log_odds": np.array(list(self.names.values()), dtype=float),
            "combination": text_array([self.combination]),
            "layout_weight": np.array(self.layout_weight, dtype=float),
            **self.context.to_arrays("context"),
            "threshold": np.array(self.threshold, dtype=float),
            "stop_words.languages": text_array(self.stop_words.languages),
            "stop_words.words": text_array(words),
            "stop_words.numbers": np.array(numbers, dtype=np.int32),
            "stop_words.sizes": np.array(sizes, dtype=np.int64),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> ClassifierModel:
        """The model of :meth:`to_arrays`, the same to the last bit as the JSON it came from."""
        try:
            if int(arrays["format"]) != MODEL_FORMAT:
                raise ExtractionError(f"classifier model format {arrays['format']} not supported")
            return cls._checked(cls._read_arrays(arrays))
        except (KeyError, TypeError, ValueError) as error:
            raise ExtractionError(f"classifier model arrays are damaged: {error}") from error

    @classmethod
    def _read_arrays(cls, arrays: Mapping[str, np.ndarray]) -> ClassifierModel:
        stop_words = StopWords.numbered(
            text_words(arrays["stop_words.languages"]),
            arrays["stop_words.words"].tobytes(),
            arrays["stop_words.numbers"],
            arrays["stop_words.sizes"].tolist(),
        )
        return cls(
            feature_names=tuple(text_words(arrays["feature_names"])),
            context_names=tuple(text_words(arrays["context_names"])),
            layout=TreeEnsemble.from_arrays(arrays, "layout"),
            language=LanguageModel.from_arrays(
                arrays["language.words"].tobytes(),
                arrays["language.log_odds"],
                tuple(arrays["language.weights"].tolist()),
            ),
            names=_log_odds(arrays, "names"),
            combination=text_words(arrays["combination"])[0],
            layout_weight=float(arrays["layout_weight"]),
            context=TreeEnsemble.from_arrays(arrays, "context"),
            threshold=float(arrays["threshold"]),
            stop_words=stop_words,
        )

    @classmethod
    def _read(cls, data: dict[str, Any]) -> ClassifierModel:
        model = cls(
            feature_names=tuple(data["feature_names"]),
            context_names=tuple(data["context_names"]),
            layout=TreeEnsemble.from_json(data["layout"]),
            language=LanguageModel(
                {str(k): float(v) for k, v in data["language"]["log_odds"].items()},
                tuple(float(w) for w in data["language"]["weights"]),
            ),
            names={str(k): float(v) for k, v in data["names"].items()},
            combination=str(data["combination"]),
            layout_weight=float(data["layout_weight"]),
            context=TreeEnsemble.from_json(data["context"]),
            threshold=float(data["threshold"]),
            stop_words=StopWords(
                {str(k): tuple(map(str, v)) for k, v in data["stop_words"].items()}
            ),
        )
        return cls._checked(model)

    @staticmethod
    def _checked(model: ClassifierModel) -> ClassifierModel:
        if (
            model.feature_names != first_stage_feature_names()
            or model.context_names != context_feature_names()
        ):
            raise ExtractionError("classifier model features differ from the code: retrain")
        return model


@lru_cache(maxsize=1)
def default_model() -> ClassifierModel:
    """The model shipped in the package, read once."""
    return read_model(resources.files("newsextract.extraction.evidence").joinpath("models"))


def read_model(folder: Traversable) -> ClassifierModel:
    """The model in ``folder``: read from its arrays while they are its JSON's (they carry the
    JSON's CRC-32), else from the JSON, with a warning."""
    text = folder.joinpath(MODEL_FILE).read_bytes()
    arrays_file = folder.joinpath(MODEL_ARRAYS_FILE)
    if arrays_file.is_file():
        arrays = unpack_arrays(arrays_file.read_bytes())
        if int(arrays["source_crc32"]) == zlib.crc32(text):
            return ClassifierModel.from_arrays(arrays)
    warnings.warn(
        f"{MODEL_ARRAYS_FILE} is missing or not made from {MODEL_FILE}: the model is read from "
        "the JSON, which is slower (newsextract train writes both)",
        stacklevel=2,
    )
    return ClassifierModel.from_json(json.loads(text))


def model_arrays(text: str) -> bytes:
    """The arrays file of a model's JSON text: the model as that text reads, and the text's
    CRC-32. The same text gives the same bytes."""
    model = ClassifierModel.from_json(json.loads(text))
    crc = np.array(zlib.crc32(text.encode()), dtype=np.uint32)
    return pack_arrays({"source_crc32": crc, **model.to_arrays()})


def _log_odds(arrays: Mapping[str, np.ndarray], name: str) -> dict[str, float]:
    values = arrays[f"{name}.log_odds"].tolist()
    return dict(zip(text_words(arrays[f"{name}.words"]), values, strict=True))


@dataclass(frozen=True, eq=False)  # arrays inside: == by identity
class BlockEvidence:
    """Method E's per-block posteriors at each stage, for the combiner."""

    table: BlockTable
    layout: np.ndarray
    language: np.ndarray
    first: np.ndarray  # layout and language combined
    title: np.ndarray  # 1 where a block is the page's headline
    final: np.ndarray  # after the top-down context stage
    wording: np.ndarray  # the wording features (columns of WORDING_FEATURE_NAMES)

    @property
    def common_words(self) -> np.ndarray:
        """Each block's share of the page's common words: its stop words, or else the words
        its running blocks share."""
        stop = self.wording[:, WORDING_FEATURE_NAMES.index("stop_density")]
        own = self.wording[:, WORDING_FEATURE_NAMES.index("own_density")]
        common: np.ndarray = np.maximum(stop, own)
        return common


def combine_posteriors(
    layout: np.ndarray,
    language: np.ndarray,
    mode: str,
    layout_weight: float,
    coverage: float = 1.0,
) -> np.ndarray:
    """The paper's two ways to join the classifiers, scaled by the language model's coverage.

    ``coverage`` is the share of the page's words the language model knows: on a page in a
    language it never saw it would vote "noise" for everything, so its say shrinks to nothing
    and the layout classifier decides alone. (Held out of training, the Chinese set scored
    0.925 F1 with layout alone and 0.795 after an unscaled 0.7 / 0.3 combination.)
    """
    if mode == "max":
        highest: np.ndarray = np.where(coverage >= 0.5, np.maximum(layout, language), layout)
        return highest
    language_weight = (1.0 - layout_weight) * float(np.clip(coverage, 0.0, 1.0))
    if mode == "add":  # the word model may raise a block, never lower it
        raised: np.ndarray = layout + language_weight * np.maximum(language - layout, 0.0)
        return raised
    weighted: np.ndarray = (1.0 - language_weight) * layout + language_weight * language
    return weighted


@cache
def first_stage_feature_names() -> tuple[str, ...]:
    """Columns of :func:`first_stage_features`: layout, then wording."""
    return feature_names() + WORDING_FEATURE_NAMES


def first_stage_features(
    table: BlockTable, names: dict[str, float], stops: StopWords
) -> np.ndarray:
    """The layout classifier's input: the block's place in the page and how it is worded."""
    layout_width = len(feature_names())
    out = np.empty((len(table.chars), layout_width + len(WORDING_FEATURE_NAMES)))
    fill_layout_features(table, names, out)
    fill_wording_features(table, stops, out, layout_width)
    take_logs(out, _FIRST_STAGE_LOG_COLUMNS)
    return out


_FIRST_STAGE_LOG_COLUMNS = log_columns(
    first_stage_feature_names(), LOG_FEATURES | WORDING_LOG_FEATURES
)


def block_evidence(page: Page, model: ClassifierModel | None = None) -> BlockEvidence:
    model = model or default_model()
    table = read_blocks(page)
    x = first_stage_features(table, model.names, model.stop_words)
    layout = model.layout.predict(x)
    language, coverage = model.language.posterior_and_coverage(table)
    first = combine_posteriors(layout, language, model.combination, model.layout_weight, coverage)
    title = title_blocks(page, table)
    final = model.context.predict(context_features(table, first, title))
    wording = x[:, -len(WORDING_FEATURE_NAMES) :]
    return BlockEvidence(table, layout, language, first, title, final, wording)


def classify_blocks(page: Page, model: ClassifierModel | None = None) -> MethodResult:
    """Method E alone: the blocks whose final posterior passes the model's threshold."""
    model = model or default_model()
    evidence = block_evidence(page, model)
    kept = tuple(int(i) for i in np.flatnonzero(evidence.final >= model.threshold))
    confidence = float(evidence.final[list(kept)].mean()) if kept else 0.0
    return MethodResult("classifier", kept, confidence, tuple(evidence.final.tolist()))


def title_blocks(page: Page, table: BlockTable | None = None) -> np.ndarray:
    """1 for blocks whose text is the page's headline (og:title, <title> or an h1), folded:
    equal to a candidate, or inside one and long enough.

    Only h1 blocks and blocks no longer than the longest candidate (plus a margin) can
    match; ``table`` (the page's block table) finds them without a pass over every block.
    """
    candidates = frozenset(headline_texts(page))
    longest = max(map(len, candidates), default=0)
    if table is None:
        table = read_blocks(page)
    flags = np.zeros(len(table.chars))
    h1 = table.tags == _H1
    maybe = h1 | ((table.chars > 0) & (table.chars <= longest + 20))
    headline_matches(
        table.texts,
        np.flatnonzero(maybe),
        h1.view(np.uint8),
        candidates,
        MIN_INSIDE_HEADLINE_DEFAULT,
        MAX_HEADLINE_DEFAULT,
        flags,
    )
    return flags


#: A block's folded text inside the headline counts when longer than this ...
MIN_INSIDE_HEADLINE_DEFAULT = 15
#: ... and no folded text longer than this is a headline.
MAX_HEADLINE_DEFAULT = 300


def headline_texts(page: Page) -> set[str]:
    """The page's headline as its metadata and ``<title>`` give it, folded."""
    meta = page.structured.meta
    candidates = {
        fold_text(text)
        for text in (meta.get("og:title", ""), meta.get("twitter:title", ""), page.structured.title)
        if text
    }
    candidates.discard("")
    return candidates


_H1 = OWN_TAGS.index("h1")

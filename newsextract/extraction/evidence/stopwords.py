"""Stop-word evidence in any of a hundred languages, and in none.

Running text is full of the short words a language cannot do without (the, und, de, 的);
menus, teasers and bylines have few. The stop lists are the most frequent words of each
language (jusText's lists, from Wikipedia, plus Chinese and Japanese characters from
stopwords-iso), read from those packages when the model is trained and shipped inside it.
A page's language is the one whose list covers most of its running text; each block's
density of that list's words is then evidence that does not depend on having trained on
the language.

A page in a language no list knows still has words it repeats across its paragraphs:
the page's own most widespread words play the stop words' part (``wording``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, chain, pairwise

import numpy as np

from newsextract.extraction.evidence._names import WordTable
from newsextract.extraction.evidence.arrayfile import line_words, word_lines

#: Blocks with fewer tokens than this are left out when the page's language is chosen and
#: its own common words are counted (menus would otherwise vote).
MIN_RUNNING_TOKENS_DEFAULT = 8
#: A language is taken when its words are at least this share of the running tokens.
MIN_LANGUAGE_SHARE_DEFAULT = 0.05
#: The page's own common words: this many of the words found in the most running blocks ...
OWN_COMMON_WORDS_DEFAULT = 30
#: ... each found in at least this many of them.
OWN_COMMON_MIN_BLOCKS_DEFAULT = 3


@dataclass(frozen=True)
class PageLanguage:
    """The stop list that fits a page best, and how much of its running text it covers."""

    index: int  # into StopWords.languages; -1 when none fits
    share: float


_NO_LANGUAGE = PageLanguage(-1, 0.0)


@dataclass(frozen=True)
class StopWords:
    """Stop lists by language, as the model ships them (lower-cased, in frequency order)."""

    lists: Mapping[str, Sequence[str]]

    @classmethod
    def numbered(
        cls,
        languages: Sequence[str],
        lines: bytes,
        numbers: np.ndarray,
        sizes: Sequence[int],
    ) -> StopWords:
        """The lists as the model's arrays store them (:meth:`numbering`; ``lines``: the words
        in UTF-8, each ended by a line break). The word table and the membership table are
        made from the bytes and the numbers at once, with no string for each word."""
        table = WordTable(lines)
        if table.distinct != len(table) or list(languages) != sorted(languages):
            raise ValueError("stop words numbered twice, or lists out of order")
        if len(languages) != len(sizes) or sum(sizes) != len(numbers):
            raise ValueError("stop lists' sizes do not add up to their numbers")
        stops = cls(_NumberedLists(tuple(languages), lines, numbers, sizes))
        membership = _membership(len(table), numbers, sizes)
        stops.__dict__.update(_word_table=table, _membership=membership)  # cached properties
        return stops

    def numbering(self) -> tuple[list[str], list[int], list[int]]:
        """Every stop word once, then the lists one after the other (in the order of
        :attr:`languages`) as numbers of those words, and the lists' sizes."""
        index: dict[str, int] = {}
        lists = [self.lists[name] for name in self.languages]
        numbers = [index.setdefault(word, len(index)) for words in lists for word in words]
        return list(index), numbers, [len(words) for words in lists]

    @cached_property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted(self.lists))

    @cached_property
    def sets(self) -> tuple[frozenset[str], ...]:
        return tuple(frozenset(self.lists[name]) for name in self.languages)

    @cached_property
    def _word_index(self) -> dict[str, int]:
        """Every stop word of any list, numbered (the rows of :attr:`_membership`; any
        numbering gives the same sums)."""
        words = dict.fromkeys(chain.from_iterable(self.sets))
        return dict(zip(words, range(len(words)), strict=True))

    @cached_property
    def _word_table(self) -> WordTable:
        """:attr:`_word_index` for lookups in C (the same numbers)."""
        return WordTable(word_lines(self._word_index))

    @cached_property
    def _membership(self) -> np.ndarray:
        """(stop words, languages): 1 where a language's list has the word; a last row of 0
        for the words of no list. Built in one step: the first page of a process waits
        for it."""
        sizes = [len(listed) for listed in self.sets]
        words = chain.from_iterable(self.sets)
        numbers = np.fromiter(map(self._word_index.__getitem__, words), np.intp, sum(sizes))
        return _membership(len(self._word_index), numbers, sizes)

    def page_language(
        self, words: Sequence[str], counts: Sequence[int], total: int
    ) -> PageLanguage:
        """The language whose stop words are the largest share of a page's ``total`` tokens
        (``words``: the distinct ones, each found ``counts`` times).

        >>> stops = StopWords({"en": ["the", "of"], "de": ["der", "die"]})
        >>> stops.languages[stops.page_language(["the", "cat", "der"], [3, 4, 1], 8).index]
        'en'
        """
        return self.language_of(self.rows(words), np.asarray(counts, dtype=np.float64), total)

    def rows(self, words: Sequence[str]) -> np.ndarray:
        """Each word's row of the membership table (the last, empty one: no list has it)."""
        rows = np.empty(len(words), dtype=np.int64)
        self._word_table.lookup(tuple(words), len(self._word_table), rows)
        return rows

    def language_of(self, rows: np.ndarray, counts: np.ndarray, total: int) -> PageLanguage:
        """:meth:`page_language` of words given by their :meth:`rows`."""
        if not total or not self.lists:
            return _NO_LANGUAGE
        per_language = counts @ self._membership[rows]  # whole numbers: exact in any order
        best = int(np.argmax(per_language))
        share = float(per_language[best]) / total
        return PageLanguage(best, share) if share >= MIN_LANGUAGE_SHARE_DEFAULT else _NO_LANGUAGE

    def listed(self, rows: np.ndarray, language: PageLanguage) -> np.ndarray:
        """For the words given by their :meth:`rows`: whether ``language``'s list has them."""
        flags: np.ndarray = self._membership[rows, language.index] > 0
        return flags

    def to_json(self) -> dict[str, list[str]]:
        return {name: list(self.lists[name]) for name in self.languages}


class _NumberedLists(Mapping[str, Sequence[str]]):
    """Stop lists kept as the model's numbers, made into words at the first read: training
    and the JSON form read them, extraction only the word table and the membership table
    (1 ms of every process's start)."""

    def __init__(
        self, languages: tuple[str, ...], lines: bytes, numbers: np.ndarray, sizes: Sequence[int]
    ) -> None:
        self._languages, self._lines, self._numbers, self._sizes = languages, lines, numbers, sizes

    @cached_property
    def _lists(self) -> dict[str, tuple[str, ...]]:
        words = line_words(self._lines)
        flat = self._numbers.tolist()
        bounds = pairwise([0, *accumulate(self._sizes)])
        return {
            name: tuple(map(words.__getitem__, flat[start:end]))
            for name, (start, end) in zip(self._languages, bounds, strict=True)
        }

    def __getitem__(self, language: str) -> Sequence[str]:
        return self._lists[language]

    def __iter__(self) -> Iterator[str]:
        return iter(self._languages)

    def __len__(self) -> int:
        return len(self._languages)


def _membership(words: int, numbers: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """(words + 1, languages): 1 where a list has the word. ``numbers``: the lists one after
    the other, ``sizes[j]`` numbers of words for language j."""
    table = np.zeros((words + 1, len(sizes)), dtype=np.uint8)
    table[numbers, np.repeat(np.arange(len(sizes)), sizes)] = 1
    return table


NO_STOP_WORDS = StopWords({})

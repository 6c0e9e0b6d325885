"""The stop lists the model ships, read from maintained packages when it is trained.

jusText's lists (about a hundred languages, each the most frequent words of that language's
Wikipedia, in frequency order) give the first STOP_WORDS_PER_LANGUAGE_DEFAULT words of each
language; stopwords-iso adds Chinese and Japanese, whose text the model reads one character
at a time, as their one-character stop words.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from newsextract.extraction.evidence.stopwords import StopWords

#: The most frequent words kept of each language's list: function words and the commonest
#: verbs and nouns (the lists run to thousands of words, mostly rarer nouns).
STOP_WORDS_PER_LANGUAGE_DEFAULT = 300
#: Languages read one character a time, from stopwords-iso's codes.
CHARACTER_LANGUAGES = {"zh": "Chinese", "ja": "Japanese"}
#: A stop word must be one token as the block tables cut them: a run of letters.
_WORD = re.compile(r"[^\W\d_]+")


class StopListsUnavailableError(RuntimeError):
    """jusText or stopwords-iso is not installed (``pip install -e '.[dev]'``)."""


@lru_cache(maxsize=4)
def shipped_stop_words(per_language: int = STOP_WORDS_PER_LANGUAGE_DEFAULT) -> StopWords:
    """The stop lists of every language the two packages know."""
    lists = _justext_lists(per_language)
    lists |= _character_lists()
    return StopWords(lists)


def _justext_lists(per_language: int) -> dict[str, tuple[str, ...]]:
    try:
        folder = resources.files("justext").joinpath("stoplists")
    except ModuleNotFoundError as error:
        raise StopListsUnavailableError(f"training needs jusText's stop lists: {error}") from error
    lists: dict[str, tuple[str, ...]] = {}
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if not entry.name.endswith(".txt"):
            continue
        words = (line.strip().lower() for line in entry.read_text(encoding="utf-8").splitlines())
        kept = dict.fromkeys(w for w in words if _WORD.fullmatch(w))
        lists[entry.name.removesuffix(".txt")] = tuple(kept)[:per_language]
    return lists


def _character_lists() -> dict[str, tuple[str, ...]]:
    try:
        import stopwordsiso
    except ModuleNotFoundError as error:
        raise StopListsUnavailableError(f"training needs stopwords-iso: {error}") from error
    return {
        name: tuple(sorted(w for w in stopwordsiso.stopwords(code) if len(w) == 1 and w.isalpha()))
        for code, name in CHARACTER_LANGUAGES.items()
    }

"""The compiled text passes of the page model read text as Python's own ``re`` and ``str`` do."""

from __future__ import annotations

import hashlib
import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from reference_blocks import normalise_text as reference_normalise

from newsextract.extraction.pagemodel.compiled import (
    fold_text,
    normalise_text,
    single_spaced,
    token_table,
    upper_case_table,
)
from newsextract.state import content_hash

_WORDS = re.compile(r"\w+")


def folded_by_re(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


def test_fold_text_reads_every_character_as_re_reads_word_characters() -> None:
    for code in range(0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        text = f"a{chr(code)}b {chr(code)}"
        assert fold_text(text) == folded_by_re(text), hex(code)


@given(st.text(max_size=40))
def test_fold_text_is_the_words_lower_cased_and_joined(text: str) -> None:
    assert fold_text(text) == folded_by_re(text)


def test_fold_text_of_nothing_and_of_no_words() -> None:
    assert fold_text("") == ""
    assert fold_text(" -- !! ") == ""
    assert fold_text("İstanbul_2017 ÉTÉ") == folded_by_re("İstanbul_2017 ÉTÉ")


_CJK_RANGES = (
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
)


def tokens_by_str(text: str) -> list[str]:
    """The block table's words as ``str`` reads them: runs of letters (alphanumeric, not
    decimal digits), and each character of the CJK ranges a word of its own."""
    out: list[str] = []
    run = ""
    for char in text:
        cjk = any(low <= ord(char) <= high for low, high in _CJK_RANGES)
        if not cjk and char.isalnum() and not char.isdecimal():
            run += char
            continue
        out += [run] if run else []
        out += [char] if cjk else []
        run = ""
    return out + [run] if run else out


def test_token_table_reads_every_character_as_str_does() -> None:
    for code in range(1, 0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        text = f"a{chr(code)}b {chr(code)}"
        sizes, token_chars = np.zeros(1, dtype=np.int64), np.zeros(1)
        vocabulary, ids = token_table(text, sizes, token_chars)
        tokens = [vocabulary[i] for i in np.frombuffer(ids, dtype=np.int64)]
        assert tokens == tokens_by_str(text), hex(code)
        assert sizes[0] == len(tokens_by_str(text))


def test_upper_case_table_is_str_isupper() -> None:
    table = upper_case_table()
    assert len(table) == 0x10000
    assert all(table[code] == chr(code).isupper() for code in range(0x10000))


def test_normalise_text_folds_space_and_keeps_single_line_breaks() -> None:
    assert normalise_text("  a \u2028\u2028  b\u00a0 c\n d ") == "a\nb c d"
    assert normalise_text("Cafe\u0301") == "Caf\u00e9"
    assert normalise_text("\ufdd0 \ufdd0") == ""
    assert normalise_text("a\x00b\u200bc") == "ab c"


def test_normalise_text_reads_every_character_as_str_split_does() -> None:
    for code in range(0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        text = f" a{chr(code)} b {chr(code)}\ufdd0 c"
        assert normalise_text(text) == reference_normalise(text), hex(code)


_PIECES = ["a", "\u00e9", "e\u0301", " ", "\t\n", "\u00a0", "\u2028", "\u200b", "\x00"]
_PIECES += ["\ufdd0", "\u3000", "\x1c", "\x85", "\u09dc", "\u0301", "\U0001f600"]


@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_normalise_text_is_the_python_normalisation(text: str) -> None:
    assert normalise_text(text) == reference_normalise(text)


def test_words_are_numbered_as_they_first_occur_on_a_large_page() -> None:
    words = [
        f"w{chr(0x61 + i % 26)}{chr(0x61 + i // 26 % 26)}{chr(0x3B1 + i // 676)}"
        for i in range(6000)
    ]
    text = " ".join(words[i * 7919 % 6000] for i in range(30000)) + "\x00" + " ".join(words)
    sizes, token_chars = np.zeros(2, dtype=np.int64), np.zeros(2)
    vocabulary, ids = token_table(text, sizes, token_chars)
    tokens = text.replace("\x00", " ").split()
    assert vocabulary == tuple(dict.fromkeys(tokens))
    assert [vocabulary[i] for i in np.frombuffer(ids, dtype=np.int64)] == tokens
    assert list(sizes) == [30000, 6000]


_SPACES = "".join(char for char in map(chr, range(0x3001)) if char.isspace())


@given(st.text(alphabet=_SPACES + "ab\u00e9\u4e2d\U0001f600"))
def test_single_spacing_is_split_and_join(text: str) -> None:
    assert single_spaced(text) == " ".join(text.split())


def test_an_articles_content_hash_is_as_it_was() -> None:
    text = " The  story\u3000of\n\nthe day \u00e9 "
    expected = hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()
    assert content_hash(text) == expected

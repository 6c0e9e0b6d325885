"""The compiled text pass of the page model reads text as Python's own ``re`` and ``str`` do."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from newsextract.extraction.pagemodel.compiled import fold_text, upper_case_table

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


def test_upper_case_table_is_str_isupper() -> None:
    table = upper_case_table()
    assert len(table) == 0x10000
    assert all(table[code] == chr(code).isupper() for code in range(0x10000))

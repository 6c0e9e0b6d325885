"""UTF-8 decoded once too often is read back: Latin-1 and cp1252 garbage, in a page's body;
text written as meant, a lone run and a run that is no UTF-8 stay as they are."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.pagemodel import mojibake
from newsextract.extraction.pagemodel.compiled import mojibake_runs
from newsextract.extraction.pagemodel.mojibake import repair_mojibake


def _garbled(text: str, codec: str) -> str:
    """``text`` as a tool that read its UTF-8 bytes as ``codec`` writes it (a byte the codec
    leaves undefined becomes the C1 control of that number, as WHATWG's windows-1252 has it)."""
    return "".join(_char(byte, codec) for byte in text.encode("utf-8"))


def _char(byte: int, codec: str) -> str:
    try:
        return bytes([byte]).decode(codec)
    except UnicodeDecodeError:
        return chr(byte)


MEANT = "itertools — Functions für the café: don’t “quote” me… 10 €, 4 ≥ 3"


@pytest.mark.parametrize("codec", ["latin-1", "cp1252"])
def test_doubly_decoded_text_is_read_back(codec: str) -> None:
    garbled = _garbled(MEANT, codec)
    assert garbled != MEANT
    assert repair_mojibake(garbled) == MEANT


@pytest.mark.parametrize(
    "text",
    [
        MEANT,
        "SÃO PAULO e GUARULHOS: Â sua saúde, às três",  # Portuguese and French capitals
        "A single run quoted: donâ€™t, and nothing else.",  # one run may be a quotation
    ],
)
def test_text_written_as_meant_is_untouched(text: str) -> None:
    assert repair_mojibake(text) == text


def test_a_run_that_is_no_utf8_stays() -> None:
    text = "caf\u00c3\u00a9 and caf\u00c3\u00a9 and \u00e2\u20ac\u00ff"
    assert repair_mojibake(text) == "café and café and \u00e2\u20ac\u00ff"


_CONTINUATION = "[\u0080-\u00bf" + re.escape(mojibake._CP1252_HIGH) + "]"
#: A run as a regex: the compiled scan must find and decode what this finds.
_RUN = re.compile(
    f"[\u00c2-\u00df]{_CONTINUATION}|[\u00e0-\u00ef]{_CONTINUATION}{{2}}"
    f"|[\u00f0-\u00f4]{_CONTINUATION}{{3}}"
)


def _decoded(match: re.Match[str]) -> str:
    try:
        return bytes(mojibake._BYTE_OF[char] for char in match.group()).decode("utf-8")
    except UnicodeDecodeError:
        return match.group()


@given(
    st.text(
        alphabet="a\u00c2\u00c3\u00e2\u00f0\u00f4\u00df\u00e0\u0080\u00bf\u00c0\u20ac\u2019\u0178 "
    )
)
def test_runs_are_found_and_decoded_as_the_regex_finds_them(text: str) -> None:
    assert mojibake_runs(text, mojibake._BYTE_OF) == _RUN.subn(_decoded, text)


def test_a_garbled_page_gives_a_clean_body() -> None:
    paragraphs = "".join(
        f"<p>{_garbled(text, 'cp1252')}</p>"
        for text in (
            "The council’s plan — approved on Tuesday — moves the café market to the square "
            "by the station, where the stalls will stand from March until the end of October.",
            "Shop owners said they “welcome the change” but asked for deliveries to be allowed "
            "in the mornings, and the final plan keeps two loading bays on each side.",
            "Work on the square begins next month and should take about eleven weeks, the "
            "council’s engineers said, at a cost of 1.2 million €.",
        )
    )
    html = f"<html><head><meta charset='utf-8'></head><body><article>{paragraphs}</article>"
    body = extract_article(parse_page(html.encode(), "https://news.example.com/a")).body
    assert "council’s plan — approved" in body
    assert "“welcome the change”" in body
    assert "â€" not in body

"""UTF-8 decoded once too often is read back: Latin-1 and cp1252 garbage, in a page's body;
text written as meant, a lone run and a run that is no UTF-8 stay as they are."""

from __future__ import annotations

import pytest

from newsextract.extraction import extract_article, parse_page
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

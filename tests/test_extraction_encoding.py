"""Decoding page bytes: BOMs, HTTP header vs meta charset, lying declarations, detection."""

from __future__ import annotations

import codecs
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from newsextract.extraction.pagemodel.encoding import (
    META_SCAN_BYTES_DEFAULT,
    _cjk_score,
    decode_html,
    detect_encoding,
    high_runs,
    normalise_encoding,
)

JAPANESE = "<p>東京都の天気は晴れ。今日は日本語のニュース記事を読みます。</p>" * 3
CHINESE = "<p>北京今天天气晴朗，我们正在阅读一篇中文新闻报道的正文内容。</p>" * 3
KOREAN = "<p>서울 날씨는 맑음. 오늘 한국어 뉴스 기사를 읽습니다.</p>" * 3
FRENCH = "<p>Le café crème coûte très cher à Besançon, dit l'élève.</p>" * 3


@pytest.mark.parametrize(
    ("text", "encoding", "expected"),
    [
        (JAPANESE, "shift_jis", "cp932"),
        (JAPANESE, "euc_jp", "euc_jp"),
        (CHINESE, "gb18030", "gb18030"),
        (CHINESE, "gbk", "gb18030"),
        (KOREAN, "euc_kr", "cp949"),
        (FRENCH, "cp1252", "cp1252"),
        (JAPANESE, "utf-8", "utf-8"),
    ],
)
def test_undeclared_bytes_are_detected(text: str, encoding: str, expected: str) -> None:
    decoded = decode_html(text.encode(encoding))
    assert decoded.source == "detected"
    assert decoded.encoding == expected
    assert decoded.text == text


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
    ],
)
def test_a_bom_wins_over_every_declaration(bom: bytes, codec: str) -> None:
    html = '<meta charset="shift_jis"><p>Grüße, 世界</p>'
    decoded = decode_html(bom + html.encode(codec), "text/html; charset=iso-8859-1")
    assert (decoded.encoding, decoded.source, decoded.text) == (codec, "bom", html)


def test_header_charset_wins_over_meta() -> None:
    body = b'<meta charset="euc-jp">' + JAPANESE.encode("shift_jis")
    decoded = decode_html(body, "text/html; charset=Shift_JIS")
    assert (decoded.encoding, decoded.source) == ("cp932", "header")
    assert JAPANESE in decoded.text


def test_meta_charset_is_used_without_a_header() -> None:
    body = b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=EUC-JP">'
    decoded = decode_html(body + JAPANESE.encode("euc_jp"), "text/html")
    assert (decoded.encoding, decoded.source) == ("euc_jp", "meta")


def test_a_lying_header_falls_back_to_the_truthful_meta() -> None:
    body = b'<meta charset="gb2312">' + CHINESE.encode("gb18030")
    decoded = decode_html(body, "text/html; charset=utf-8")
    assert (decoded.encoding, decoded.source) == ("gb18030", "meta")
    assert CHINESE in decoded.text


def test_utf8_declared_as_latin1_is_read_as_utf8() -> None:
    decoded = decode_html(FRENCH.encode("utf-8"), "text/html; charset=ISO-8859-1")
    assert decoded.text == FRENCH
    assert decoded.encoding == "cp1252"  # the declaration, read as its superset, was overruled


def test_latin1_label_means_cp1252_as_browsers_do() -> None:
    body = "<p>\u201cquoted\u201d \u20ac5</p>".encode("cp1252")
    decoded = decode_html(body, "text/html; charset=iso-8859-1")
    assert decoded.text == "<p>\u201cquoted\u201d \u20ac5</p>"


def test_a_declaration_that_cannot_decode_is_distrusted() -> None:
    decoded = decode_html(JAPANESE.encode("euc_jp"), "text/html; charset=utf-8")
    assert (decoded.encoding, decoded.source) == ("euc_jp", "detected")


def test_unknown_labels_are_skipped() -> None:
    decoded = decode_html(b'<meta charset="x-no-such"><p>plain</p>', "text/html; charset=bogus")
    assert (decoded.encoding, decoded.source) == ("utf-8", "detected")


def test_meta_beyond_the_scan_window_is_not_read() -> None:
    padding = b" " * META_SCAN_BYTES_DEFAULT
    body = padding + b'<meta charset="euc-jp">' + JAPANESE.encode("euc_jp")
    assert decode_html(body).source == "detected"


def test_mixed_encodings_never_raise() -> None:
    body = JAPANESE.encode("shift_jis") + FRENCH.encode("cp1252") + b"\xff\xfe\x00\x80"
    decoded = decode_html(body, "text/html; charset=utf-8")
    assert isinstance(decoded.text, str)


def test_invalid_utf8_declared_is_decoded_with_replacement_or_redetected() -> None:
    body = b"<p>ok \xc3\x28 broken \xa0\xa1</p>" * 10
    decoded = decode_html(body, "text/html; charset=utf-8")
    assert "ok" in decoded.text


def test_empty_body() -> None:
    assert decode_html(b"").text == ""


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Shift_JIS", "cp932"),
        ("x-sjis", "cp932"),
        ("GB2312", "gb18030"),
        ("ISO-8859-1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("'utf8'", "utf-8"),
        ("EUC-KR", "cp949"),
        ("big5", "big5hkscs"),
        ("nonsense", None),
    ],
)
def test_labels_map_to_browser_codecs(label: str, expected: str | None) -> None:
    assert normalise_encoding(label) == expected


def test_detection_samples_a_bounded_prefix() -> None:
    body = JAPANESE.encode("euc_jp") * 20_000  # about 2.6 MB
    assert detect_encoding(body) == "euc_jp"


@pytest.mark.parametrize(
    "label",
    [
        "base64",
        "zlib",
        "hex",
        "rot13",
        "uu",
        "bz2",
        "quopri",
        "idna",
        "punycode",
        "undefined",
        "unicode_escape",
        "raw_unicode_escape",
        "utf-7",
    ],
)
def test_python_codecs_that_are_no_page_charset_are_ignored(label: str) -> None:
    body = f'<meta charset="{label}"><p>café</p>'.encode()
    assert normalise_encoding(label) is None
    for decoded in (decode_html(body), decode_html(body, f"text/html; charset={label}")):
        assert (decoded.encoding, decoded.source) == ("utf-8", "detected")
        assert decoded.text == body.decode()


@pytest.mark.parametrize("label", ["utf-16", "UTF-16LE", "utf-16be", "utf-32"])
def test_a_meta_declaring_utf16_is_read_as_utf8(label: str) -> None:
    body = f'<meta charset="{label}"><p>café</p>'.encode()
    decoded = decode_html(body)
    assert (decoded.encoding, decoded.source, decoded.text) == ("utf-8", "meta", body.decode())


def test_a_header_declaring_utf16_is_still_obeyed() -> None:
    body = "<p>café</p>".encode("utf-16-le")
    decoded = decode_html(body, "text/html; charset=utf-16le")
    assert (decoded.encoding, decoded.source, decoded.text) == (
        "utf-16-le",
        "header",
        "<p>café</p>",
    )


@pytest.mark.parametrize(
    ("codec", "text"),
    [
        ("utf-8", "<p>\ufffd kept: café, 東京 \ufffd</p>"),  # U+FFFD in the page itself
        ("gb18030", "<p>\ufffd kept: café, 东京</p>"),
        ("utf-16-le", "<p>\ufffd kept: café, 東京</p>"),
        ("cp1252", "<p>café</p>"),
        ("cp932", "<p>東京の天気</p>"),
    ],
)
def test_clean_declared_bytes_decode_exactly(codec: str, text: str) -> None:
    decoded = decode_html(text.encode(codec), f"text/html; charset={codec}")
    assert (decoded.encoding, decoded.source, decoded.text) == (codec, "header", text)


def test_many_replacement_characters_a_codec_decodes_still_distrust_it() -> None:
    # Clean UTF-16 holding U+FFFD itself: the count of U+FFFD is what the check reads.
    body = ("<p>" + "\ufffd" * 10 + "x" * 20 + "</p>").encode("utf-16-le")
    assert decode_html(body, "text/html; charset=utf-16le").source != "header"


@given(
    st.binary(max_size=400) | st.lists(st.sampled_from([b"a", b"\xe9", b"\xe6\x97"])).map(b"".join)
)
def test_high_runs_are_the_maximal_runs_of_non_ascii_bytes(sample: bytes) -> None:
    runs = re.findall(rb"[\x80-\xff]+", sample)
    found = high_runs(sample)
    assert found.high == sum(map(len, runs))
    assert found.runs == len(runs)
    assert found.isolated == sum(len(run) == 1 for run in runs)


@pytest.mark.parametrize("codec", ["cp932", "euc_jp", "gb18030", "cp949", "big5hkscs"])
def test_cjk_script_counts_are_the_character_ranges(codec: str) -> None:
    text = "かなカナ漢字한국어\ue000\u3400 latin" * 5
    body = text.encode(codec, "replace")
    decoded = body.decode(codec, "replace")
    ranges = {"kana": "\u3040-\u30ff", "han": "\u4e00-\u9fff", "hangul": "\uac00-\ud7a3"}
    counts = {name: len(re.findall(f"[{chars}]", decoded)) for name, chars in ranges.items()}
    rare = len(re.findall("[\ue000-\uf8ff\u3400-\u4dbf]", decoded))
    errors = decoded.count("\ufffd")
    if codec in {"cp932", "euc_jp"}:
        useful = counts["han"] + 3 * counts["kana"]
    elif codec == "cp949":
        useful = 2 * counts["hangul"] + counts["han"] // 2
    else:
        kana, han = counts["kana"], counts["han"]
        useful = han + (kana if kana < han // 20 else -kana)
    assert _cjk_score(body, codec) == useful - 20 * errors - 5 * rare

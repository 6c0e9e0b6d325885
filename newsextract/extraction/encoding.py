"""Decode page bytes as a crawler would: BOM, HTTP header, meta charset, then detection."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

#: How many leading bytes are searched for a ``<meta charset>`` declaration.
META_SCAN_BYTES_DEFAULT = 8192
#: Detection looks at this many leading bytes: enough text for the statistics, and a 20 MB
#: page costs what a 200 kB one does.
DETECT_SAMPLE_BYTES_DEFAULT = 200_000
#: Share of undecodable characters above which a declared charset is distrusted.
MAX_ERROR_SHARE_DEFAULT = 0.002

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.I)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.I)

# WHATWG: labels browsers treat as a wider superset.
_SUPERSETS = {
    "iso-8859-1": "cp1252",
    "latin-1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "iso-8859-9": "cp1254",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "big5": "big5hkscs",
    "utf8": "utf-8",
    "unicode": "utf-8",
}
_CJK_CANDIDATES = ("cp932", "euc_jp", "gb18030", "cp949", "big5hkscs")


@dataclass(frozen=True)
class DecodedText:
    """Page text with the encoding used and where that choice came from."""

    text: str
    encoding: str
    source: str  # "bom", "header", "meta", "detected"


def normalise_encoding(label: str) -> str | None:
    """Map a charset label to the codec a browser would use, or None if unknown.

    >>> normalise_encoding("Shift_JIS")
    'cp932'
    >>> normalise_encoding("no-such-charset") is None
    True
    """
    label = label.strip().strip("\"'").lower()
    label = _SUPERSETS.get(label, label)
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return _SUPERSETS.get(name, name)


def decode_html(body: bytes, content_type: str | None = None) -> DecodedText:
    """Decode ``body``; never raises, falls back to replacement characters."""
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return DecodedText(body[len(bom) :].decode(encoding, "replace"), encoding, "bom")
    for source, label in _declared_labels(body, content_type):
        declared = normalise_encoding(label)
        if declared is None:
            continue
        text = _decode_if_clean(body, declared)
        if text is not None:
            return DecodedText(text, declared, source)
    detected = detect_encoding(body)
    return DecodedText(body.decode(detected, "replace"), detected, "detected")


def _declared_labels(body: bytes, content_type: str | None) -> list[tuple[str, str]]:
    labels: list[tuple[str, str]] = []
    header = _HEADER_CHARSET.search(content_type) if content_type else None
    if header:
        labels.append(("header", header.group(1)))
    meta = _META_CHARSET.search(body[:META_SCAN_BYTES_DEFAULT])
    if meta:
        labels.append(("meta", meta.group(1).decode("ascii", "replace")))
    return labels


def _decode_if_clean(body: bytes, encoding: str) -> str | None:
    """Decode with ``encoding`` unless the bytes plainly are in another one."""
    if encoding in {"cp1252", "latin-1", "iso8859-1"} and _is_utf8(body) and not body.isascii():
        return body.decode("utf-8")  # a common lie: UTF-8 pages declared as Latin-1
    text = body.decode(encoding, "replace")
    errors = text.count("\ufffd") - body.count(b"\xef\xbf\xbd")
    if errors > max(2, MAX_ERROR_SHARE_DEFAULT * len(text)):
        return None
    return text


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def detect_encoding(body: bytes) -> str:
    """Guess the encoding of undeclared bytes (from a bounded sample of them).

    >>> detect_encoding("日本語のテキストです".encode("euc_jp"))
    'euc_jp'
    >>> detect_encoding("café crème".encode("cp1252"))
    'cp1252'
    """
    if body.isascii() or _is_utf8(body):
        return "utf-8"
    sample = body[:DETECT_SAMPLE_BYTES_DEFAULT]
    runs = _HIGH_RUN.findall(sample)
    if _isolated_share(runs) > 0.3:
        return "cp1252"
    candidates = _CJK_CANDIDATES if _mean_length(runs) < 16 else _NOT_KOREAN
    scored = [(_cjk_score(sample, encoding), encoding) for encoding in candidates]
    best_score, best = max(scored)
    return best if best_score > 0 else "cp1252"


_NOT_KOREAN = tuple(encoding for encoding in _CJK_CANDIDATES if encoding != "cp949")
_HIGH_RUN = re.compile(rb"[\x80-\xff]+")
_KANA = re.compile("[\u3040-\u30ff]")
_HAN = re.compile("[\u4e00-\u9fff]")
_HANGUL = re.compile("[\uac00-\ud7a3]")
_RARE = re.compile("[\ue000-\uf8ff\u3400-\u4dbf]")


def _isolated_share(runs: list[bytes]) -> float:
    """Share of non-ASCII bytes standing alone between ASCII bytes (Latin text)."""
    high = sum(map(len, runs))
    return sum(len(run) == 1 for run in runs) / high if high else 0.0


def _mean_length(runs: list[bytes]) -> float:
    """Mean length of runs of non-ASCII bytes: Korean words are short, Chinese sentences long."""
    return sum(map(len, runs)) / len(runs) if runs else 0.0


def _cjk_score(body: bytes, encoding: str) -> float:
    text = body.decode(encoding, "replace")
    errors = text.count("\ufffd")
    kana, han = len(_KANA.findall(text)), len(_HAN.findall(text))
    hangul, rare = len(_HANGUL.findall(text)), len(_RARE.findall(text))
    if encoding in {"cp932", "euc_jp"}:
        useful = han + 3 * kana
    elif encoding == "cp949":
        useful = 2 * hangul + han // 2
    else:
        useful = han + (kana if kana < han // 20 else -kana)
    return useful - 20 * errors - 5 * rare

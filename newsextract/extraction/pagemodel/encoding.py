"""Decode page bytes as a crawler would: BOM, HTTP header, meta charset, then detection."""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

import numpy as np

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
#: Text codecs of Python's that are no page's charset (and some cannot decode with "replace").
_NOT_PAGE_ENCODINGS = frozenset(
    {"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape", "utf-7"}
)
_CJK_CANDIDATES = ("cp932", "euc_jp", "gb18030", "cp949", "big5hkscs")


class DecodedText(NamedTuple):
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
        info = codecs.lookup(label)
    except LookupError:
        return None
    # Python's codec registry also holds base64, zlib, rot13, punycode...: no page is in them.
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_PAGE_ENCODINGS:
        return None
    return _SUPERSETS.get(info.name, info.name)


def decode_html(body: bytes, content_type: str | None = None) -> DecodedText:
    """Decode ``body``; never raises, falls back to replacement characters."""
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return DecodedText(body[len(bom) :].decode(encoding, "replace"), encoding, "bom")
    for source, label in _declared_labels(body, content_type):
        declared = normalise_encoding(label)
        if declared is None:
            continue
        if source == "meta" and declared.startswith(("utf-16", "utf-32")):
            declared = "utf-8"  # WHATWG: a <meta> readable as ASCII is in no UTF-16 or -32
        text = _decode_if_clean(body, declared)
        if text is not None:
            return DecodedText(text, declared, source)
    text = _utf8_text(body)
    if text is not None:  # decoded once: the check is the decoding
        return DecodedText(text, "utf-8", "detected")
    detected = _detect_legacy(body)
    return DecodedText(body.decode(detected, "replace"), detected, "detected")


def utf8_source(body: bytes, decoded: DecodedText) -> bytes | None:
    """``body`` (without its BOM) when it is exactly ``decoded.text`` in UTF-8, else None: a
    parser can then read the page's own bytes, not the text encoded once more.

    >>> utf8_source("caf\u00e9".encode(), decode_html("caf\u00e9".encode()))
    b'caf\\xc3\\xa9'
    >>> utf8_source(b"caf\\xe9", decode_html(b"caf\\xe9")) is None  # read as cp1252
    True
    """
    if decoded.encoding != "utf-8" or "\ufffd" in decoded.text:
        return None  # another codec, or bytes replaced when decoding
    return body[len(codecs.BOM_UTF8) :] if decoded.source == "bom" else body


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
    if encoding in {"cp1252", "latin-1", "iso8859-1"} and not body.isascii():
        utf8 = _utf8_text(body)
        if utf8 is not None:
            return utf8  # a common lie: UTF-8 pages declared as Latin-1
    try:
        text = body.decode(encoding)
    except UnicodeError:
        try:
            text = body.decode(encoding, "replace")
        except UnicodeError:  # a codec that cannot replace what it cannot decode
            return None
    else:
        if "\ufffd" not in text:
            return text  # the usual case: clean, in one pass
    errors = text.count("\ufffd") - body.count(b"\xef\xbf\xbd")
    if errors > max(2, MAX_ERROR_SHARE_DEFAULT * len(text)):
        return None
    return text


def _utf8_text(body: bytes) -> str | None:
    """The text, when ``body`` is valid UTF-8."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def detect_encoding(body: bytes) -> str:
    """Guess the encoding of undeclared bytes (from a bounded sample of them).

    >>> detect_encoding("日本語のテキストです".encode("euc_jp"))
    'euc_jp'
    >>> detect_encoding("café crème".encode("cp1252"))
    'cp1252'
    """
    if body.isascii() or _utf8_text(body) is not None:
        return "utf-8"
    return _detect_legacy(body)


def _detect_legacy(body: bytes) -> str:
    """The guess for bytes that are not UTF-8."""
    sample = body[:DETECT_SAMPLE_BYTES_DEFAULT]
    runs = high_runs(sample)
    if runs.isolated_share > 0.3:
        return "cp1252"
    candidates = _CJK_CANDIDATES if runs.mean_length < 16 else _NOT_KOREAN
    scored = [(_cjk_score(sample, encoding), encoding) for encoding in candidates]
    best_score, best = max(scored)
    return best if best_score > 0 else "cp1252"


_NOT_KOREAN = tuple(encoding for encoding in _CJK_CANDIDATES if encoding != "cp949")


class HighRuns(NamedTuple):
    """The runs of non-ASCII bytes of a sample (maximal runs of bytes 0x80-0xff)."""

    high: int  # non-ASCII bytes
    runs: int
    isolated: int  # runs of one byte

    @property
    def isolated_share(self) -> float:
        """Share of non-ASCII bytes standing alone between ASCII bytes (Latin text)."""
        return self.isolated / self.high if self.high else 0.0

    @property
    def mean_length(self) -> float:
        """Mean length of the runs: Korean words are short, Chinese sentences long."""
        return self.high / self.runs if self.runs else 0.0


def high_runs(sample: bytes) -> HighRuns:
    """Count the runs with numpy (a regex would build a list of them).

    >>> high_runs("café crème ".encode("cp1252") + "日".encode())  # é, è alone; 日 three
    HighRuns(high=5, runs=3, isolated=2)
    """
    high = np.frombuffer(sample, dtype=np.uint8) >= 0x80
    padded = np.concatenate(([False], high, [False]))
    starts = high & ~padded[:-2]
    ends = high & ~padded[2:]
    return HighRuns(
        int(np.count_nonzero(high)),
        int(np.count_nonzero(starts)),
        int(np.count_nonzero(starts & ends)),
    )


# Code point ranges the CJK score counts, as boundaries: a character's slot is the number of
# boundaries at or below it, so one searchsorted and one bincount count every range at once.
_SCRIPT_BOUNDS = np.array(
    [0x3040, 0x3100, 0x3400, 0x4DC0, 0x4E00, 0xA000, 0xAC00, 0xD7A4, 0xE000, 0xF900]
)
_KANA_SLOT, _HAN_SLOT, _HANGUL_SLOT, _RARE_SLOTS = 1, 5, 7, (3, 9)  # U+3040-30FF, ...


def _cjk_score(body: bytes, encoding: str) -> float:
    text = body.decode(encoding, "replace")
    errors = text.count("\ufffd")
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    slots = np.bincount(np.searchsorted(_SCRIPT_BOUNDS, codes, side="right"), minlength=11)
    kana, han, hangul = int(slots[_KANA_SLOT]), int(slots[_HAN_SLOT]), int(slots[_HANGUL_SLOT])
    rare = int(slots[_RARE_SLOTS[0]] + slots[_RARE_SLOTS[1]])
    if encoding in {"cp932", "euc_jp"}:
        useful = han + 3 * kana
    elif encoding == "cp949":
        useful = 2 * hangul + han // 2
    else:
        useful = han + (kana if kana < han // 20 else -kana)
    return useful - 20 * errors - 5 * rare

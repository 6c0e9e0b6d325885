"""A made-up language: every letter of a page mapped to another fixed alphabet, markup kept.

Latin letters become Armenian ones (case kept), other letters Armenian ones by their code
point; Han characters become other Han characters, kana other kana and Hangul other Hangul
(a fixed permutation each). No stop list and no word the model learned survives, while
tags, classes, punctuation, digits and the shape of words and sentences stay: what the
extractor should decide by when it meets a language it never saw.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from lxml import etree

from newsextract.extraction.pagemodel.page import parse_html

_ARMENIAN_CAPITAL, _ARMENIAN_SMALL = 0x0531, 0x0561  # 38 letters each
_HAN = (0x4E00, 0x9FFF)
_KANA = (0x3041, 0x30FF)
_HANGUL = (0xAC00, 0xD7A3)
#: Meta tags whose content is text of the page (others hold codes, URLs, sizes).
_TEXT_META = ("og:title", "twitter:title", "description", "og:description", "title")


@cache
def _letter(char: str) -> str:
    code = ord(char)
    for low, high, step in ((*_HAN, 7919), (*_HANGUL, 3571), (*_KANA, 37)):
        if low <= code <= high:
            return chr(low + (code - low) * step % (high - low + 1))
    if not char.isalpha():
        return char
    base = _ARMENIAN_CAPITAL if char.isupper() else _ARMENIAN_SMALL
    if "a" <= char.lower() <= "z":
        return chr(base + ord(char.lower()) - ord("a"))
    return chr(base + 26 + code % 12)


def made_up(text: str) -> str:
    """The text in the made-up language.

    >>> made_up("The cat, 2 dogs.")
    'Մըե գամ, 2 դկէճ.'
    """
    return "".join(map(_letter, text))


def made_up_page(html: bytes) -> bytes:
    """The page with its visible text, titles, alt texts, text meta tags and JSON-LD strings
    in the made-up language."""
    root = parse_html(html).root
    for element in root.iter():
        if element.tail:
            element.tail = made_up(element.tail)
        if not isinstance(element.tag, str):
            continue
        if element.tag == "script":
            _json_ld(element)
        elif element.tag != "style" and element.text:
            element.text = made_up(element.text)
        for name in ("alt", "title"):
            value = element.get(name)
            if value:
                element.set(name, made_up(value))
        key = (element.get("property") or element.get("name") or "").lower()
        if element.tag == "meta" and key in _TEXT_META and element.get("content"):
            element.set("content", made_up(element.get("content") or ""))
    serialised: bytes = etree.tostring(root, encoding="utf-8", method="html")
    return serialised


def _json_ld(script: etree._Element) -> None:
    if "ld+json" not in (script.get("type") or "") or not script.text:
        return
    try:
        data = json.loads(script.text)
    except ValueError:
        return
    script.text = json.dumps(_strings(data), ensure_ascii=False)


def _strings(value: Any) -> Any:
    """Every string of a JSON-LD value in the made-up language, but keys, types and URLs."""
    if isinstance(value, str):
        return value if value.startswith(("http", "/")) else made_up(value)
    if isinstance(value, list):
        return [_strings(item) for item in value]
    if isinstance(value, dict):
        return {
            k: v if k.startswith("@") or "url" in k.lower() else _strings(v)
            for k, v in value.items()
        }
    return value

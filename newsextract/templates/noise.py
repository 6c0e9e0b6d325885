"""Noise named by the page itself: boxes whose id or class says what they are (comments,
related stories, share bars, newsletter sign-ups). Their text changes on every page, so method A
cannot see it; their names do not change, so a rule learned from them generalises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lxml import etree

from newsextract.extraction.pagemodel.compiled import named_candidates
from newsextract.extraction.pagemodel.page import Page

#: id/class words of boxes that are not the article (the names readability and boilerpipe
#: penalise, trimmed to those seen on msv_big9_dev, cleanportaleval and dragnet's sites).
NOISE_NAMES_DEFAULT = (
    "comment",
    "respond",
    "reply",
    "replies",
    "discuss",
    "disqus",
    "trackback",
    "pingback",
    "related",
    "recommend",
    "more-stories",
    "morestories",
    "popular",
    "trending",
    "share",
    "sharing",
    "social",
    "newsletter",
    "subscribe",
    "signup",
    "promo",
    "sponsor",
    "outbrain",
    "taboola",
    "sidebar",
    "widget",
    "breadcrumb",
    "pagination",
    "tags",
    "gallery",
    "slideshow",
)
#: Elements that are never the article's running text, whatever their name: captions, asides,
#: navigation, forms (the gold texts of msv_big9_dev and cleanportaleval leave captions out).
NOISE_TAGS_DEFAULT = frozenset({"figure", "figcaption", "aside", "nav", "footer", "form"})
#: A named box holding more than this share of the page's content is the article after all
#: (``<div class="entry has-comments">``).
MAX_NAMED_SHARE_DEFAULT = 0.5


def noise_pattern(names: Sequence[str] = NOISE_NAMES_DEFAULT) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(name) for name in names), re.I)


NOISE_PATTERN = noise_pattern()


#: Verdicts on distinct id/class strings under the default pattern (a site repeats its own on
#: every page); emptied when full, so memory stays bounded in a long crawl.
NAME_CACHE_SIZE_DEFAULT = 20_000
_NAME_VERDICTS: dict[str, bool] = {}


def is_named_noise(element: etree._Element, pattern: re.Pattern[str] = NOISE_PATTERN) -> bool:
    """Whether the element's tag, id or class says it is not the article."""
    if element.tag in NOISE_TAGS_DEFAULT:
        return True
    ident, classes = element.get("id"), element.get("class")
    if not ident and not classes:
        return False
    name = f"{ident or ''} {classes or ''}"
    if pattern is not NOISE_PATTERN:
        return pattern.search(name) is not None
    verdict = _NAME_VERDICTS.get(name)
    return _name_verdict(name) if verdict is None else verdict


def _name_verdict(name: str) -> bool:
    """The default pattern's verdict on an "id class" name, kept in the bounded cache."""
    if len(_NAME_VERDICTS) >= NAME_CACHE_SIZE_DEFAULT:
        _NAME_VERDICTS.clear()
    verdict = _NAME_VERDICTS[name] = NOISE_PATTERN.search(name) is not None
    return verdict


def named_elements(region: etree._Element) -> list[etree._Element]:
    """The elements below ``region`` that :func:`is_named_noise` names as noise, in document
    order, found in one compiled walk (only their "id class" names reach Python)."""
    return named_candidates(region, NOISE_TAGS_DEFAULT, _NAME_VERDICTS, _name_verdict)


def named_noise(
    page: Page,
    content: Sequence[bool],
    pattern: re.Pattern[str] = NOISE_PATTERN,
    max_share: float = MAX_NAMED_SHARE_DEFAULT,
) -> frozenset[int]:
    """Blocks inside a box named as noise, unless that box holds most of the page's content."""
    total = sum(len(b.text) for b, ok in zip(page.blocks, content, strict=True) if ok) or 1
    noisy: set[int] = set()
    cache: dict[etree._Element, bool] = {}
    chars: dict[etree._Element, int] = {}
    for block, ok in zip(page.blocks, content, strict=True):
        if ok:
            for element in _ancestors(block.element):
                chars[element] = chars.get(element, 0) + len(block.text)
    for block in page.blocks:
        for element in _ancestors(block.element):
            if element not in cache:
                cache[element] = (
                    is_named_noise(element, pattern) and chars.get(element, 0) <= max_share * total
                )
            if cache[element]:
                noisy.add(block.index)
                break
    return frozenset(noisy)


def _ancestors(element: etree._Element) -> list[etree._Element]:
    found = []
    current: etree._Element | None = element
    while current is not None and current.tag not in ("body", "html"):
        found.append(current)
        current = current.getparent()
    return found

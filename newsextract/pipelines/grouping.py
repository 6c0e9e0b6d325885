"""Page groups for template learning: URL patterns, content fingerprints, bounded samples.

A site's pages of one *kind* share a URL pattern (seed 002: "pages with similar structure
have similar URLs") and a template. The template stage keeps a few sample pages per
(site, kind) group to learn from; this module decides which group a page belongs to and
whether a page is only another copy of a sample already kept (seed 000 lost most of its
recall on the same article published under two URLs: every block repeats, so every block
looks like template).

No Scrapy import: the stage in ``templates.py`` is the Scrapy glue.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlsplit

from newsextract.extraction.pagemodel.page import Page

#: Query parameters that only track where a click came from; they never change the page.
TRACKING_PARAMS = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "msclkid",
        "mc_cid",
        "mc_eid",
        "ref",
        "ref_src",
        "cmpid",
        "ito",
        "ocid",
        "smid",
        "share",
        "from",
        "source",
        "_ga",
        "igshid",
        "yclid",
    }
)
TRACKING_PREFIXES = ("utm_", "ns_", "at_", "pk_", "mtm_")

#: A path segment longer than this is an article's slug or id, not a section name.
#: (Section names seen in the development URLs are at most 20 characters.)
MAX_LITERAL_SEGMENT_DEFAULT = 24
#: A segment mixing letters and digits at least this long is an id (asahi's ASS5X3JQ,
#: washingtonpost's gIQAcZlQXK); shorter ones (mainichi's k00) keep their letters.
MIN_ID_CHARS_DEFAULT = 6
#: A segment of this many words joined by - or _ is a slug ("latest-amelia-earhart").
MIN_SLUG_WORDS_DEFAULT = 3

_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[^\W\d_]+")
_EXTENSION = re.compile(r"^(?P<stem>.*?)(?P<ext>\.[A-Za-z]{1,5})$")
_SPACE = re.compile(r"\s+")
ANY = "*"
NUMBER = "D"


def url_pattern(url: str) -> str:
    """The page kind of ``url``: host and path shape, with ids, numbers and slugs generalised.

    >>> url_pattern("https://www.asahi.com/articles/ASS5X3JQ.html")
    'asahi.com/articles/*.html'
    >>> url_pattern("https://edition.cnn.com/2024/01/01/us/some-long-slug/index.html")
    'edition.cnn.com/D/D/D/*/index.html'
    >>> url_pattern("http://127.0.0.1:8080/news/123.html?utm_source=x&id=7")
    '127.0.0.1/news/D.html?id'
    """
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower().removeprefix("www.")
    except ValueError:  # e.g. an unclosed IPv6 bracket: a kind of its own
        return "/"
    segments = [unquote(part) for part in parts.path.split("/")[1:]] if parts.path else []
    shape = _path_shape(segments)
    query = _query_shape(parts.query)
    return f"{host}/{shape}{'?' + query if query else ''}"


def _path_shape(segments: list[str]) -> str:
    """Shape each segment; in a path naming one item (it has an id, a number or a slug),
    sections below the first are one kind: they vary per article (cnn's /2024/01/01/us/,
    latimes' /news/nationworld/world/) while the template does not."""
    if not segments:
        return ""
    *folders, name = segments
    shaped = [_segment_shape(folder) for folder in folders] + [_file_shape(name)]
    if not any(NUMBER in part or ANY in part for part in shaped):
        return "/".join(shaped)  # a section or listing page: its path is its kind
    merged = shaped[:1]
    for part in shaped[1:-1]:
        part = part if part == NUMBER else ANY
        if not (part == ANY and merged[-1] == ANY):
            merged.append(part)
    return "/".join(merged + shaped[-1:] if len(shaped) > 1 else merged)


def _file_shape(segment: str) -> str:
    match = _EXTENSION.match(segment)
    if match is None or not match.group("stem"):
        return _segment_shape(segment)
    return _segment_shape(match.group("stem")) + match.group("ext").lower()


def _segment_shape(segment: str) -> str:
    if not segment:
        return ""
    if segment.isdigit():
        return NUMBER
    words = _WORD.findall(segment)
    has_digit = any(char.isdigit() for char in segment)
    if len(words) >= MIN_SLUG_WORDS_DEFAULT or len(segment) > MAX_LITERAL_SEGMENT_DEFAULT:
        return ANY
    if has_digit and words and len(segment) >= MIN_ID_CHARS_DEFAULT:
        return ANY
    return _DIGITS.sub(NUMBER, segment)


def _query_shape(query: str) -> str:
    keys = {
        key.lower()
        for key, _ in parse_qsl(query, keep_blank_values=True)
        if not _is_tracking(key.lower())
    }
    return "&".join(sorted(keys))


def _is_tracking(key: str) -> bool:
    return key in TRACKING_PARAMS or key.startswith(TRACKING_PREFIXES)


# --- near-duplicate pages -------------------------------------------------------------

#: Blocks shorter than this (characters) are left out of a fingerprint: dates, bylines and
#: menu entries recur by chance between different articles.
LONG_BLOCK_CHARS_DEFAULT = 40
#: Blocks whose text is mostly link text are navigation, left out like short blocks.
MAX_LINK_DENSITY_DEFAULT = 0.5
#: Two pages with one title whose long-block text overlaps at least this much (share of
#: characters) are copies of one article. Calibrated on every same-site page pair of
#: dragnet, cleanportaleval and msv_big9_dev: different articles overlap at most 0.46 (two
#: posts of one washingtonpost blog); the same article saved twice in dragnet, its
#: related-links box and comments changed, overlaps 0.93 and 1.0.
DUPLICATE_SIMILARITY_DEFAULT = 0.8


@dataclass(frozen=True)
class Fingerprint:
    """A page's content as hashes of its long blocks, each weighted by its length."""

    weights: dict[int, int]  # block text hash -> characters
    digest: int  # hash of all the page's text, for pages without long blocks
    title: int = 0  # hash of the page's title; 0 when it has none

    @property
    def size(self) -> int:
        return sum(self.weights.values())


def fingerprint(page: Page, min_chars: int = LONG_BLOCK_CHARS_DEFAULT) -> Fingerprint:
    """The fingerprint of a parsed page (cheap: one hash a block)."""
    weights: dict[int, int] = {}
    whole = hashlib.blake2b(digest_size=8)
    for block in page.blocks:
        text = _SPACE.sub(" ", block.text).strip()
        whole.update(text.encode("utf-8", "replace"))
        if len(text) < min_chars or block.link_density > MAX_LINK_DENSITY_DEFAULT:
            continue
        weights[_hash(text)] = weights.get(_hash(text), 0) + len(text)
    title = _SPACE.sub(" ", page.structured.title).strip()
    return Fingerprint(weights, int.from_bytes(whole.digest(), "big"), _hash(title) if title else 0)


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).digest())


def similarity(first: Fingerprint, second: Fingerprint) -> float:
    """Weighted Jaccard of two fingerprints: shared characters / characters of either.

    Pages without long blocks are similar (1.0) only when all their text is identical.
    """
    if not first.weights or not second.weights:
        return 1.0 if first.digest == second.digest else 0.0
    keys = first.weights.keys() | second.weights.keys()
    shared = sum(min(first.weights.get(k, 0), second.weights.get(k, 0)) for k in keys)
    either = sum(max(first.weights.get(k, 0), second.weights.get(k, 0)) for k in keys)
    return shared / either


def is_near_duplicate(
    first: Fingerprint, second: Fingerprint, threshold: float = DUPLICATE_SIMILARITY_DEFAULT
) -> bool:
    """One article twice: identical text, or the same title and mostly the same long blocks.

    The title guard keeps apart the posts of a photo blog, whose few words of their own
    are all in short blocks, so that their long blocks (the sidebar) are all shared.
    """
    if first.digest == second.digest:
        return True
    if first.title and second.title and first.title != second.title:
        return False
    return similarity(first, second) >= threshold


# --- bounded groups of samples ------------------------------------------------------------

#: Sample pages kept per group (NEWSEXTRACT_TEMPLATE_SAMPLES): enough for method A to see
#: which blocks repeat, few enough that a page group's memory stays bounded.
SAMPLES_DEFAULT = 6
#: Groups kept at once (NEWSEXTRACT_TEMPLATE_GROUPS); the least recently seen is forgotten.
MAX_GROUPS_DEFAULT = 64
#: Sample pages kept over all groups. A parsed page holds its tree (about ten times its
#: HTML), so 96 pages of 100-300 KB stay within a few hundred MB at worst.
MAX_SAMPLES_TOTAL_DEFAULT = 96

GroupKey = tuple[str, str]  # (site, kind)


@dataclass
class PageGroup:
    """Sample pages of one (site, kind) group, without near-duplicates, at most ``limit``."""

    key: GroupKey
    limit: int = SAMPLES_DEFAULT
    samples: list[Page] = field(default_factory=list)
    prints: list[Fingerprint] = field(default_factory=list)
    duplicates: int = 0

    def add(self, page: Page, print_: Fingerprint | None = None) -> bool:
        """Keep ``page`` as a sample unless it repeats one; the oldest sample makes room.

        Returns whether the page was new. The newest pages are kept because after a
        redesign they are the ones that show the new layout.
        """
        print_ = print_ if print_ is not None else fingerprint(page)
        if any(is_near_duplicate(print_, kept) for kept in self.prints):
            self.duplicates += 1
            return False
        self.samples.append(page)
        self.prints.append(print_)
        if len(self.samples) > self.limit:
            del self.samples[0], self.prints[0]
        return True

    def clear(self) -> None:
        self.samples.clear()
        self.prints.clear()

    def __len__(self) -> int:
        return len(self.samples)


@dataclass
class GroupTable:
    """The groups of a crawl, least recently used first, at most ``max_groups``."""

    samples: int = SAMPLES_DEFAULT
    max_groups: int = MAX_GROUPS_DEFAULT
    max_samples: int = MAX_SAMPLES_TOTAL_DEFAULT
    _groups: OrderedDict[GroupKey, PageGroup] = field(default_factory=OrderedDict)

    def get(self, key: GroupKey) -> PageGroup:
        """The group for ``key``, created if new; :meth:`evicted` says who made room."""
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = PageGroup(key, self.samples)
        self._groups.move_to_end(key)
        return group

    def evict(self) -> Iterator[GroupKey]:
        """Forget the least recently used groups beyond the bounds (never the most recent
        one); yield their keys."""
        while len(self._groups) > 1 and (
            len(self._groups) > self.max_groups
            or sum(len(group) for group in self._groups.values()) > self.max_samples
        ):
            key, _ = self._groups.popitem(last=False)
            yield key

    def __len__(self) -> int:
        return len(self._groups)

    def __contains__(self, key: object) -> bool:
        return key in self._groups

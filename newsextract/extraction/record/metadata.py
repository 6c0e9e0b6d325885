"""Article metadata: headline, publication date, authors, language and canonical URL.

Sources in order of trust: JSON-LD objects of an article type, ``og:``/``article:`` and other
meta tags, then the visible page (``<time>``, ``itemprop``, ``rel=author``, bylines, the URL).
Every value is sanitised: white space folded, markup-free, bounded in length.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from itertools import chain, islice
from typing import Any
from urllib.parse import urljoin, urlsplit

from lxml import etree

from newsextract.extraction.pagemodel.compiled import fold_text, with_attributes
from newsextract.extraction.pagemodel.page import Page

#: Longest headline kept; longer values are page text, not a headline.
MAX_HEADLINE_CHARS_DEFAULT = 400
#: Longest author name kept (bylines hold names, not sentences).
MAX_AUTHOR_CHARS_DEFAULT = 80
MAX_AUTHORS_DEFAULT = 10

ARTICLE_TYPES = frozenset(
    {
        "article",
        "newsarticle",
        "blogposting",
        "reportagenewsarticle",
        "analysisnewsarticle",
        "opinionnewsarticle",
        "reviewnewsarticle",
        "backgroundnewsarticle",
        "techarticle",
        "scholarlyarticle",
        "liveblogposting",
        "report",
        "socialmediaposting",
        "webpage",
    }
)
_DATE_META = (
    "article:published_time",
    "og:published_time",
    "datepublished",
    "publishdate",
    "pubdate",
    "publish-date",
    "published-date",
    "dc.date.issued",
    "dc.date",
    "dcterms.created",
    "date",
    "sailthru.date",
    "parsely-pub-date",
    "article.published",
    "originalpublicationdate",
    "og:updated_time",
    "article:modified_time",
)
_AUTHOR_META = (
    "author",
    "article:author",
    "parsely-author",
    "sailthru.author",
    "dc.creator",
    "byl",
    "twitter:creator",
)
_LANGUAGE_META = ("content-language", "dc.language", "language", "og:locale", "inlanguage")
_SPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]{0,200}>")
_BY = re.compile(r"^\s*(?:by|von|par|por|di|door|written by|posted by)\s*:?\s+", re.I)
_AUTHOR_SPLIT = re.compile(r"\s*(?:,|;|\band\b|&|\bund\b|\bet\b|\u3001)\s*")
_URL_DATE = re.compile(r"/((?:19|20)\d\d)[/-](0?[1-9]|1[0-2])[/-](0?[1-9]|[12]\d|3[01])(?:/|\b)")
_ISO = re.compile(
    r"((?:19|20)\d\d)-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d))?(?:\.\d+)?"
    r"\s*(Z|[+-]\d\d:?\d\d)?)?"
)
_RFC2822 = re.compile(r"^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d\d:\d\d")
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    )
}


@cache
def _loose_date_forms() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Dates in other forms than ISO 8601's, each with the order of its parts, tried in turn.
    Compiled at the first such date: 3 ms that a page with none never spends."""
    return (
        (re.compile(r"((?:19|20)\d\d)\s*[/.\u5e74-]\s*(\d{1,2})\s*[/.\u6708-]\s*(\d{1,2})"), "ymd"),
        (
            re.compile(
                r"\b([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)", re.I
            ),
            "mdy",
        ),
        (
            re.compile(
                r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]{3})[a-z]*\.?,?\s+((?:19|20)\d\d)", re.I
            ),
            "dmy",
        ),
        (re.compile(r"\b(\d{1,2})[./](\d{1,2})[./]((?:19|20)\d\d)\b"), "dmy"),
    )


@cache
def _cjk_scripts() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Kana, Hangul and Han. Compiled at the first page with no declared language: a wide
    character range costs ``re`` a Python loop over its code points (2 ms for the three)."""
    return (
        re.compile(r"[\u3040-\u30ff]"),
        re.compile(r"[\uac00-\ud7af]"),
        re.compile(r"[\u4e00-\u9fff]"),
    )


_LANG_CODE = re.compile(r"^[a-zA-Z]{2,3}(?:[-_][a-zA-Z0-9]{2,8})*$")
# Attribute values, not elements: selecting them is faster than ``iterfind`` or an XPath
# predicate (see page.py); the elements are the values' parents.
_LINK_RELS = etree.XPath("descendant::a/@rel")


class _ItemProps:
    """A tree's elements with an ``itemprop`` (its root's descendants), found when first
    asked for in one compiled walk (under half the time of ``descendant::*/@itemprop``), then
    kept."""

    def __init__(self, root: etree._Element) -> None:
        self._root = root
        self._elements: list[etree._Element] | None = None

    def having(self, wanted: str) -> Iterator[etree._Element]:
        """The elements whose ``itemprop`` is ``wanted``, in document order."""
        if self._elements is None:
            found = with_attributes(self._root, (b"itemprop",))
            self._elements = [element for element in found if element is not self._root]
        return (element for element in self._elements if element.get("itemprop") == wanted)


def _having(values: Any, wanted: str) -> Iterator[etree._Element]:
    """The elements whose attribute (selected by an XPath above) is ``wanted``."""
    for value in values:
        if value == wanted:
            yield value.getparent()


@dataclass(frozen=True)
class Metadata:
    headline: str = ""
    date_published: str = ""  # ISO 8601, a date or a date and time
    date_published_raw: str = ""
    authors: tuple[str, ...] = ()
    language: str = ""
    canonical_url: str = ""


def read_metadata(page: Page, body: str = "") -> Metadata:
    """All metadata of a page; ``body`` helps guess the language when the page does not say."""
    articles = list(_article_objects(page.structured.json_ld))
    itemprops = _ItemProps(page.root)  # dates and authors both read them, on most pages
    raw_date = _raw_date(page, articles, itemprops)
    return Metadata(
        headline=find_headline(page, articles),
        date_published=parse_date(raw_date),
        date_published_raw=raw_date,
        authors=find_authors(page, articles, itemprops),
        language=find_language(page, articles, body),
        canonical_url=find_canonical(page, articles),
    )


def _article_objects(objects: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    ranked = sorted(objects, key=lambda o: "webpage" in _types(o))
    for item in ranked:
        if _types(item) & ARTICLE_TYPES:
            yield item


def _types(item: dict[str, Any]) -> set[str]:
    kind = item.get("@type", "")
    kinds = kind if isinstance(kind, list) else [kind]
    return {str(k).lower() for k in kinds}


def clean_text(value: Any, limit: int = MAX_HEADLINE_CHARS_DEFAULT) -> str:
    """A plain, single-line string from a metadata value.

    >>> clean_text("  Big &amp; <b>bold</b>\\n news ")
    'Big & bold news'
    """
    if not isinstance(value, str):
        return ""
    text = _SPACE.sub(" ", _TAG.sub(" ", html.unescape(value))).strip()
    if not text.isprintable():
        text = "".join(ch for ch in text if ch.isprintable())
    text = unicodedata.normalize("NFC", text)
    return text if len(text) <= limit else ""


def find_headline(page: Page, articles: list[dict[str, Any]]) -> str:
    """The declared headline (JSON-LD, ``og:title`` ...) unless it is only the site's name;
    else the heading the ``<title>`` names, the first ``<h1>``, or the ``<title>`` itself."""
    meta = page.structured.meta
    declared = [a.get("headline") for a in articles] + [
        meta.get("og:title"),
        meta.get("twitter:title"),
        meta.get("headline"),
    ]
    site = fold_text(clean_text(meta.get("og:site_name")))
    for candidate in declared:
        text = clean_text(candidate)
        if text and fold_text(text) != site:
            return _shown_part(page, text)
    # The tree is searched only when the page declares no headline.
    title = clean_text(page.structured.title)
    for candidate in chain(_title_heading(page, title), _first_h1(page), [_main_part(title)]):
        text = clean_text(candidate)
        if text:
            return text
    return ""


#: A heading is the one the ``<title>`` names when its words, this many characters at least,
#: stand in the title: pages that give the site's name the ``<h1>`` and the article's
#: headline an ``<h2>`` title themselves "Headline | Site".
MIN_TITLE_HEADING_CHARS_DEFAULT = 10
#: Headings read for that, in document order.
MAX_TITLE_HEADINGS_DEFAULT = 40
#: What parts a ``<title>`` into the headline and the site's name: a mark with spaces on
#: both sides ("Storm hits | Daily News", "Daily News - Storm hits"; not "Reform: a year on").
_TITLE_SEPARATOR = re.compile(r"\s+(?:[|\-\u2013\u2014\u00ab\u00bb\u00b7\u2022/]|::)\s+")


def _title_heading(page: Page, title: str) -> Iterator[str]:
    """The longest heading whose words stand in the title."""
    folded = fold_text(title)
    if not folded:
        return
    best, best_text = "", ""
    for element in islice(page.root.iter("h1", "h2", "h3"), MAX_TITLE_HEADINGS_DEFAULT):
        text = " ".join(element.itertext())
        heading = fold_text(text)
        if len(heading) >= max(MIN_TITLE_HEADING_CHARS_DEFAULT, len(best) + 1) and (
            heading in folded
        ):
            best, best_text = heading, text
    if best:
        yield best_text


def _shown_part(page: Page, headline: str) -> str:
    """The part of a declared "Headline | Site" that the page shows as a heading, or the
    whole of it."""
    parts = {fold_text(part): part for part in _TITLE_SEPARATOR.split(headline)}
    if len(parts) < 2:
        return headline
    for element in islice(page.root.iter("h1", "h2"), MAX_TITLE_HEADINGS_DEFAULT):
        heading = fold_text(" ".join(element.itertext()))
        if len(heading) >= MIN_TITLE_HEADING_CHARS_DEFAULT and heading in parts:
            return parts[heading].strip()
    return headline


def _main_part(title: str) -> str:
    """The longest part of a ``<title>`` made of parts ("Headline | Section | Site")."""
    return max(_TITLE_SEPARATOR.split(title), key=len)


def _first_h1(page: Page) -> Iterator[str]:
    for element in page.root.iter("h1"):
        text = " ".join(element.itertext())
        if text.strip():
            yield text
            return


def _raw_date(page: Page, articles: list[dict[str, Any]], itemprops: _ItemProps) -> str:
    meta = page.structured.meta
    declared: list[Any] = [a.get("datePublished") for a in articles]
    declared += [meta.get(key) for key in _DATE_META]
    for candidate in chain(declared, _visible_dates(page.root, itemprops)):  # tree if needed
        text = clean_text(candidate, 100)
        if text and parse_date(text):
            return text
    match = _URL_DATE.search(page.url or "")
    return match.group(0).strip("/") if match else ""


def _visible_dates(root: etree._Element, itemprops: _ItemProps) -> Iterator[str]:
    for element in root.iter("time"):
        yield element.get("datetime") or " ".join(element.itertext())
    for element in itemprops.having("datePublished"):
        yield element.get("content") or element.get("datetime") or " ".join(element.itertext())


def parse_date(raw: str) -> str:
    """ISO 8601 form of a date written in any common way; empty when it is not a date.

    >>> parse_date("2012-07-24T00:11:00-04:00")
    '2012-07-24T00:11:00-04:00'
    >>> parse_date("July 24, 2012 12:11 AM")
    '2012-07-24'
    >>> parse_date("2012\u5e747\u670824\u65e5")
    '2012-07-24'
    """
    raw = raw.strip()
    if not raw:
        return ""
    iso = _ISO.search(raw)
    if iso:
        return _iso_form(iso)
    if _RFC2822.match(raw):
        from email.utils import parsedate_to_datetime  # 6 ms of imports: only for these dates

        try:
            return parsedate_to_datetime(raw).isoformat()
        except (TypeError, ValueError, IndexError):
            pass
    return _loose_date(raw)


def _iso_form(match: re.Match[str]) -> str:
    year, month, day, hour, minute, second, zone = match.groups()
    if not _valid(int(year), int(month), int(day)):
        return ""
    text = f"{year}-{month}-{day}"
    if hour is not None:
        text += f"T{hour}:{minute}:{second or '00'}"
        if zone:
            text += "+00:00" if zone == "Z" else f"{zone[:3]}:{zone[-2:]}"
    return text


def _loose_date(raw: str) -> str:
    for pattern, order in _loose_date_forms():
        match = pattern.search(raw)
        if not match:
            continue
        parts = dict(zip(order, match.groups(), strict=True))
        month_text = parts["m"].lower()[:3]
        month = _MONTHS.get(month_text) if month_text.isalpha() else int(month_text)
        if month and _valid(int(parts["y"]), month, int(parts["d"])):
            return f"{int(parts['y']):04d}-{month:02d}-{int(parts['d']):02d}"
    return ""


def _valid(year: int, month: int, day: int) -> bool:
    try:
        datetime(year, month, day)
    except ValueError:
        return False
    return 1990 <= year <= 2100


def find_authors(
    page: Page, articles: list[dict[str, Any]], itemprops: _ItemProps
) -> tuple[str, ...]:
    for article in articles:
        names = _json_ld_names(article.get("author"))
        if names:
            return names
    meta = page.structured.meta
    for key in _AUTHOR_META:
        names = split_authors(meta.get(key, ""))
        if names:
            return names
    for text in _visible_authors(page.root, itemprops):
        names = split_authors(text)
        if names:
            return names
    return ()


def _json_ld_names(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    names: list[str] = []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else item
        names += split_authors(name) if isinstance(name, str) else []
    return _unique(names)


def _visible_authors(root: etree._Element, itemprops: _ItemProps) -> Iterator[str]:
    for element in itemprops.having("author"):
        yield element.get("content") or " ".join(element.itertext())
    for element in _having(_LINK_RELS(root), "author"):
        yield " ".join(element.itertext())


def split_authors(text: str) -> tuple[str, ...]:
    """Names from a byline, without "By", URLs, handles or sentence-long strings.

    >>> split_authors("By Jane Roe and John Doe, Reuters")
    ('Jane Roe', 'John Doe', 'Reuters')
    """
    text = clean_text(text, 300)
    if not text or "://" in text or text.startswith(("@", "www.")):
        return ()
    text = _BY.sub("", text)
    names = [n.strip(" .:|-") for n in _AUTHOR_SPLIT.split(text)]
    kept = [n for n in names if n and len(n) <= MAX_AUTHOR_CHARS_DEFAULT and not n.isdigit()]
    return _unique(kept)[:MAX_AUTHORS_DEFAULT]


def _unique(names: list[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.lower(), name)
    return tuple(seen.values())


def find_language(page: Page, articles: list[dict[str, Any]], body: str = "") -> str:
    meta = page.structured.meta
    declared = [page.structured.lang] + [meta.get(k, "") for k in _LANGUAGE_META]
    declared += [str(a["inLanguage"]) for a in articles if isinstance(a.get("inLanguage"), str)]
    for value in declared:
        code = normalise_language(value)
        if code:
            return code
    return guess_language(body)


def normalise_language(value: str) -> str:
    """A BCP 47 tag with the usual casing: ``en_us`` -> ``en-US``; empty when not a tag.

    >>> normalise_language("en_us")
    'en-US'
    """
    value = value.strip().split(",")[0].strip()
    if not _LANG_CODE.match(value):
        return ""
    parts = value.replace("_", "-").split("-")
    primary = parts[0].lower()
    rest = [p.upper() if len(p) == 2 else p.title() if len(p) == 4 else p for p in parts[1:]]
    return "-".join([primary, *rest])


def guess_language(text: str) -> str:
    """The three CJK languages by script; other text stays unknown."""
    sample = text[:2000]
    kana, hangul, han = _cjk_scripts()
    if kana.search(sample):
        return "ja"
    if hangul.search(sample):
        return "ko"
    if len(han.findall(sample)) > 20:
        return "zh"
    return ""


def find_canonical(page: Page, articles: list[dict[str, Any]]) -> str:
    meta = page.structured.meta
    candidates: list[Any] = [page.structured.canonical, meta.get("og:url")]
    for article in articles:
        entity = article.get("mainEntityOfPage")
        entity_id = entity.get("@id") if isinstance(entity, dict) else entity
        candidates += [entity_id, article.get("url")]
    for candidate in candidates:
        url = _absolute_url(candidate, page.url)
        if url:
            return url
    return ""


def _absolute_url(value: Any, base: str | None) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 2000:
        return ""
    try:  # urlsplit refuses a bracketed host that is no IP address ("http://[x]/")
        url = urljoin(base or "", value.strip())
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in url):
        return ""
    return url

"""The Python API for one page: :func:`extract` gives its :class:`Article`, or None.

The article's :meth:`Article.to_dict` is the record ``newsextract extract --json`` prints and
``newsextract batch`` writes, field for field (schema.org names, a missing field ``None``).
A page that gives no article says why in an :class:`Outcome` (:func:`extract_outcome`), with
the stage of the failure record a crawl would write; nothing a page holds makes these
functions raise.

This is the one module of the API that reads the extraction package: the site-level API
(:mod:`newsextract.learnedsite`) builds on it. No Scrapy import: ``import newsextract`` and a
first :func:`extract` stay cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from newsextract.exceptions import ExtractionError, NotHTMLError, PageTooComplexError
from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.pagemodel.page import (
    Page as Page,
)  # the page model, for the site API too
from newsextract.extraction.record.article import Article as Answer
from newsextract.items import ArticleItem, PageItem, article_item, record_fields

Html = bytes | str

#: Why a page gave no article, as the failure records of a crawl name the stage.
NO_MAIN_TEXT = "no main text found"
EMPTY_PAGE = "empty page"


@dataclass(frozen=True)
class Article:
    """One page's article: the fields of a record, with Python names. Picklable."""

    url: str | None
    headline: str
    body: str = field(repr=False)  # one paragraph a line
    date_published: str = ""  # ISO 8601 where the page's date could be read
    date_published_raw: str = ""  # the date as the page wrote it
    authors: tuple[str, ...] = ()
    language: str = ""
    canonical_url: str = ""
    site: str = ""
    fetched_at: str = ""
    method: str = ""  # how the body was found: "single", "rules", ...
    rule_version: str = ""  # the site's rule version that read it, if any
    confidence: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The article record: ``url``, ``headline``, ``articleBody``, ``datePublished``...
        as ``newsextract extract --json`` prints it (an empty field is ``None``)."""
        return record_fields(self.item())

    def item(self) -> ArticleItem:
        """The record as the Scrapy item a crawl exports."""
        return ArticleItem(
            url=self.url or "",
            canonicalUrl=self.canonical_url,
            headline=self.headline,
            articleBody=self.body,
            datePublished=self.date_published,
            datePublishedRaw=self.date_published_raw,
            authors=list(self.authors),
            inLanguage=self.language,
            site=self.site,
            fetchedAt=self.fetched_at,
            extraction={
                "method": self.method,
                "ruleVersion": self.rule_version,
                "confidence": self.confidence,
            },
        )

    @classmethod
    def from_item(cls, item: ArticleItem) -> Article:
        extraction = item.extraction
        return cls(
            url=item.url or None,
            headline=item.headline,
            body=item.articleBody,
            date_published=item.datePublished,
            date_published_raw=item.datePublishedRaw,
            authors=tuple(item.authors),
            language=item.inLanguage,
            canonical_url=item.canonicalUrl,
            site=item.site,
            fetched_at=item.fetchedAt,
            method=str(extraction.get("method", "")),
            rule_version=str(extraction.get("ruleVersion", "")),
            confidence=float(extraction.get("confidence", 0.0)),
        )


@dataclass(frozen=True)
class Outcome:
    """One page's result: its article, or the reason (and the failure stage) it has none."""

    article: Article | None
    reason: str = ""  # empty when there is an article
    stage: str = ""  # "decode", "too-complex" or "extraction", as in failure records


class NoArticleError(Exception):
    """Inside this module only: why a page gives no article, and at which stage."""

    def __init__(self, reason: str, stage: str) -> None:
        super().__init__(reason)
        self.stage = stage


def extract(html: Html, url: str | None = None, *, language: str | None = None) -> Article | None:
    """The article of one page, or None when it has no main text (see :func:`extract_outcome`
    for why). ``html``: the page as fetched (bytes: decoded as a browser would) or as text;
    ``url`` fills the record and helps the metadata; ``language``: a hint, used when the page
    does not say its own. Thread-safe.

    >>> extract(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(200)) is None
    True
    """
    return extract_outcome(html, url, language=language).article


def extract_outcome(html: Html, url: str | None = None, *, language: str | None = None) -> Outcome:
    """:func:`extract`'s answer with the reason when there is no article. Thread-safe.

    >>> extract_outcome("   ")
    Outcome(article=None, reason='empty page', stage='decode')
    """
    try:
        page = read_page(html, url)
    except NoArticleError as error:
        return Outcome(None, str(error), error.stage)
    return page_outcome(page, url, language=language)


def page_outcome(
    page: Page, url: str | None, site: str | None = None, language: str | None = None
) -> Outcome:
    """The single-page answer of a parsed page (see :func:`article_of` for the record)."""
    try:
        answer = extract_article(page)
    except ExtractionError as error:
        return Outcome(None, f"no article: {error}", "extraction")
    return answer_outcome(answer, url, site, language)


def answer_outcome(
    answer: Answer | None, url: str | None, site: str | None = None, language: str | None = None
) -> Outcome:
    """An answer's article, or the outcome of a page without main text."""
    if answer is None or not answer.body.strip():
        return Outcome(None, NO_MAIN_TEXT, "extraction")
    return Outcome(article_of(answer, url, site, language))


def read_page(html: Html, url: str | None) -> Page:
    """The parsed page, or :class:`NoArticleError` saying why there is none."""
    if not html.strip():
        raise NoArticleError(EMPTY_PAGE, "decode")
    try:
        return parse_page(html, url)
    except NotHTMLError as error:
        raise NoArticleError(f"not a document: {error}", "decode") from error
    except PageTooComplexError as error:
        raise NoArticleError(str(error), "too-complex") from error
    except (UnicodeError, LookupError) as error:
        reason = f"cannot decode: {type(error).__name__}: {error}"
        raise NoArticleError(reason, "decode") from error


def article_of(
    answer: Answer, url: str | None, site: str | None = None, language: str | None = None
) -> Article:
    """The record of an extraction answer, built as a crawl builds it. ``site``: the host
    name of ``url`` unless given."""
    if site is None:
        site = (urlsplit(url).hostname or "") if url else ""
    page = PageItem(
        url=url or "",
        body=b"",  # the record builder reads the answer, never the page's bytes
        content_type="",
        status=0,
        site=site,
        fetched_at="",
        language=language or "",
    )
    return Article.from_item(article_item(page, answer))

"""newsextract: news sites into clean text corpora.

From Python::

    import newsextract
    article = newsextract.extract(html, url)      # an Article, or None
    outcome = newsextract.extract_outcome(html)   # .article, or .reason and .stage
    site = newsextract.Site("example.org", "rules/")  # learn a site's rules, read its pages

In a Scrapy project of your own: ``ADDONS = {"newsextract.NewsExtract": 300}``.

The names are imported on first use (PEP 562), so that ``import newsextract`` (which every
``newsextract`` command runs first) costs nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from newsextract.addon import NewsExtract
    from newsextract.article import Article, Outcome, extract, extract_outcome
    from newsextract.items import PageItem
    from newsextract.learnedsite import Site

__all__ = [
    "Article",
    "NewsExtract",
    "Outcome",
    "PageItem",
    "Site",
    "extract",
    "extract_outcome",
]

#: Where each public name lives.
_HOMES = {
    "Article": "newsextract.article",
    "Outcome": "newsextract.article",
    "extract": "newsextract.article",
    "extract_outcome": "newsextract.article",
    "Site": "newsextract.learnedsite",
    "NewsExtract": "newsextract.addon",
    "PageItem": "newsextract.items",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'newsextract' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # once imported, found without this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

"""``site``: crawl any news site from its front page, sitemaps or feeds.

    scrapy crawl site -a start_url=https://www.example.com/ -a allow='/news/\\d+\\.html' \\
        [-a deny=REGEX] [-a follow=REGEX] [-a max_pages=N] [-a sitemap=URL|robots] \\
        [-a feed=URL] [-a since=YYYY-MM-DD] [-a language=en] -O articles.jsonl

``allow`` says which URLs are articles. It is required with start URLs alone: without it
no page reached by links is an article, and the crawl would read the whole site for
nothing. With a sitemap or a feed it may be left out (with a warning): their entries are
then all taken as articles. ``follow`` says which other pages to read for links (default:
any page of the site). The crawl stays on the registrable domain of its start URLs (and of
its sitemaps and feeds). Patterns run on RE2 (:mod:`newsextract.sites.patterns`).
"""

from __future__ import annotations

from typing import Any

from newsextract.spiders.arguments import SpiderArgumentError, http_urls, url_pattern
from newsextract.spiders.base import NewsSpider
from newsextract.spiders.urls import looks_like_page, site_of

#: What ``allow`` is, in the messages that ask for it.
ALLOW_EXAMPLE = "a regex of the article URLs, e.g. -a allow='/news/\\d+\\.html'"


class SiteSpider(NewsSpider):
    name = "site"

    def __init__(
        self,
        *args: Any,
        start_url: str | None = None,
        allow: str | None = None,
        follow: str | None = None,
        language: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.start_urls = http_urls("start_url", start_url)
        self.allow = url_pattern("allow", allow)
        self.follow = url_pattern("follow", follow)
        sources = [*self.start_urls, *self.sitemap_urls, *self.feed_urls]
        sites = list(dict.fromkeys(site_of(url) for url in sources if "/" in url))
        if not sites:
            raise SpiderArgumentError(
                "start_url", "the site spider needs -a start_url=URL, -a sitemap=URL or -a feed=URL"
            )
        if self.allow is None and not self.sitemap_urls and not self.feed_urls:
            raise SpiderArgumentError(
                "allow", f"required with start_url alone: give {ALLOW_EXAMPLE}"
            )
        self.allowed_domains = sites
        self.site_name = sites[0]
        self.language = language or ""

    def argument_warnings(self) -> list[str]:
        if self.allow is not None:
            return []
        return [
            f"no -a allow: every sitemap and feed entry of the site is taken as an article, "
            f"and pages reached by links are read for links only; give {ALLOW_EXAMPLE}"
        ]

    def is_article(self, url: str) -> bool:
        return self.allow is not None and self.allow.search(url)

    def accepts_listed(self, url: str) -> bool:
        return self.allow is None or self.is_article(url)

    def is_followable(self, url: str) -> bool:
        if self.follow is not None:
            return self.follow.search(url)
        return looks_like_page(url)

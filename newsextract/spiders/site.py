"""``site``: crawl any news site from its front page, sitemaps or feeds.

    scrapy crawl site -a start_url=https://www.example.com/ -a allow='/news/\\d+\\.html' \\
        [-a deny=REGEX] [-a follow=REGEX] [-a max_pages=N] [-a sitemap=URL|robots] \\
        [-a feed=URL] [-a since=YYYY-MM-DD] [-a language=en] -O articles.jsonl

``allow`` says which URLs are articles. Without it, only sitemap and feed entries are
taken as articles, and pages reached by links are read for links only. ``follow`` says
which other pages to read for links (default: any page of the site). The crawl stays on
the registrable domain of its start URLs (and of its sitemaps and feeds).
"""

from __future__ import annotations

import re
from typing import Any

from newsextract.spiders.base import NewsSpider, split_arg
from newsextract.spiders.urls import looks_like_page, site_of


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
        self.start_urls = split_arg(start_url)
        self.allow = re.compile(allow) if allow else None
        self.follow = re.compile(follow) if follow else None
        sources = [*self.start_urls, *self.sitemap_urls, *self.feed_urls]
        sites = list(dict.fromkeys(site_of(url) for url in sources if "/" in url))
        if not sites:
            raise ValueError("site: give -a start_url=URL, -a sitemap=URL or -a feed=URL")
        self.allowed_domains = sites
        self.site_name = sites[0]
        self.language = language or ""
        if self.allow is None:
            self.logger.warning(
                "no -a allow=REGEX: only sitemap and feed entries are taken as articles"
            )

    def is_article(self, url: str) -> bool:
        return self.allow is not None and self.allow.search(url) is not None

    def accepts_listed(self, url: str) -> bool:
        return self.allow is None or self.is_article(url)

    def is_followable(self, url: str) -> bool:
        if self.follow is not None:
            return self.follow.search(url) is not None
        return looks_like_page(url)

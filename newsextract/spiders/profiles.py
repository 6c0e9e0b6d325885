"""One spider per site profile, made at import time so that ``scrapy list`` shows them.

    scrapy crawl asahi [-a since=2026-11-01] [-a max_pages=500] -O asahi.jsonl

A profile spider starts from the profile's front and section pages, sitemaps and feeds
(more can be added with ``-a sitemap=`` and ``-a feed=``), takes the URLs its article
patterns match as articles and follows only the pages its listing patterns match.
Profiles come from :mod:`newsextract.sites`: the bundled ones, plus the ``*.toml`` files
of the directory named by the environment variable ``NEWSEXTRACT_PROFILES_DIR`` (read
when Scrapy imports the spiders, before any setting is known).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from newsextract.sites import SiteProfile, load_profiles
from newsextract.spiders.base import NewsSpider

logger = logging.getLogger(__name__)

#: Spider names the crawl modes own; a profile may not take them.
RESERVED_NAMES = frozenset({"site", "idrange"})


class ProfileSpider(NewsSpider):
    """A spider driven by a :class:`~newsextract.sites.SiteProfile` (set by subclasses)."""

    profile: SiteProfile

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        profile = self.profile
        self.site_name = profile.site
        self.language = profile.language
        self.allowed_domains = list(profile.crawl_domains())
        self.start_urls = list(profile.start_urls)
        self.sitemap_urls = [*profile.sitemaps, *self.sitemap_urls]
        self.feed_urls = [*profile.feeds, *self.feed_urls]

    def is_article(self, url: str) -> bool:
        return self.profile.is_article(url)

    def is_followable(self, url: str) -> bool:
        return self.profile.is_listing(url)

    def is_denied(self, url: str) -> bool:
        return self.profile.is_denied(url) or super().is_denied(url)


def spider_class(profile: SiteProfile) -> type[ProfileSpider]:
    """A ProfileSpider subclass named after the profile, e.g. ``AsahiSpider``."""
    class_name = "".join(part.capitalize() for part in profile.name.split("_")) + "Spider"
    attributes = {
        "name": profile.name,
        "profile": profile,
        "__module__": __name__,
        "__doc__": f"Crawl {profile.title or profile.site} ({profile.language}).",
    }
    return type(class_name, (ProfileSpider,), attributes)


def _register() -> None:
    for name, profile in load_profiles(os.environ.get("NEWSEXTRACT_PROFILES_DIR")).items():
        if name in RESERVED_NAMES:
            logger.error("site profile %r ignored: the name belongs to a crawl mode", name)
            continue
        cls = spider_class(profile)
        globals()[cls.__name__] = cls


_register()

"""One spider per site profile, made at import time so that ``scrapy list`` shows them.

    scrapy crawl asahi [-a since=2026-11-01] [-a max_pages=500] -O asahi.jsonl

A profile spider starts from the profile's front and section pages, sitemaps and feeds
(more can be added with ``-a sitemap=`` and ``-a feed=``), takes the URLs its article
patterns match as articles and follows only the pages its listing patterns match.
Profiles come from :mod:`newsextract.sites`: the bundled ones, plus the ``*.toml`` files
of the directory named by the environment variable ``NEWSEXTRACT_PROFILES_DIR``. It is an
environment variable, not a setting, because the spiders are made when Scrapy imports this
module, before any spider sees a setting. A user file that cannot be loaded is logged with
its path and skipped (with the bundled profile it was meant to replace); every other spider,
and ``scrapy list``, still work.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from scrapy.exceptions import UsageError
from scrapy.settings import BaseSettings

from newsextract.exceptions import SiteProfileError
from newsextract.sites import SiteProfile, load_profiles
from newsextract.sites.registry import PROFILE_SUFFIX
from newsextract.spiders.base import NewsSpider

logger = logging.getLogger(__name__)

#: Spider names the crawl modes own; a profile may not take them.
RESERVED_NAMES = frozenset({"site", "idrange"})
#: The environment variable naming a folder of the user's own profiles.
PROFILES_DIR_ENV = "NEWSEXTRACT_PROFILES_DIR"


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


def profile_spiders(folder: str | None) -> dict[str, type[ProfileSpider]]:
    """A spider class for every profile, bundled and in ``folder``, by class name. A user
    file that cannot be loaded is logged and skipped: one broken profile must not take every
    spider down, ``scrapy list`` included."""
    classes: dict[str, type[ProfileSpider]] = {}
    for name, profile in load_profiles(folder, on_error=_skip_profile).items():
        if name in RESERVED_NAMES:
            logger.error("site profile %r ignored: the name belongs to a crawl mode", name)
            continue
        cls = spider_class(profile)
        classes[cls.__name__] = cls
    return classes


def _skip_profile(path: Path, error: SiteProfileError) -> None:
    if path.suffix == PROFILE_SUFFIX:
        logger.error("site profile %s skipped, no spider made from it: %s", path, error)
    else:
        logger.error("%s ignored: %s", PROFILES_DIR_ENV, error)


def check_profiles_setting(settings: BaseSettings) -> None:
    """Refuse ``NEWSEXTRACT_PROFILES_DIR`` as a setting (``-s`` or settings.py): the profile
    spiders exist before any setting is read, so it would silently do nothing. The project's
    ``crawl`` command calls this before the crawl starts."""
    value = settings.get(PROFILES_DIR_ENV)
    if value and value != os.environ.get(PROFILES_DIR_ENV):
        raise UsageError(
            f"{PROFILES_DIR_ENV} is an environment variable, not a setting (the profile "
            f"spiders are made before settings are read): run "
            f"{PROFILES_DIR_ENV}={value} scrapy crawl ...",
            print_help=False,
        )


def _register() -> None:
    taken = set(globals())
    for class_name, cls in profile_spiders(os.environ.get(PROFILES_DIR_ENV)).items():
        # A profile called "profile" must not shadow this module's ProfileSpider.
        key = class_name if class_name not in taken else f"{class_name}_{cls.name}"
        globals()[key] = cls


_register()

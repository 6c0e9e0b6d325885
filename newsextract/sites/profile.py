"""Site profiles: what newsextract knows of one news site, read from one TOML file.

A profile is data, not code: start URLs, the sitemaps and feeds the site publishes, regexes
that tell its article URLs from its listing pages, and real example URLs that the regexes
must classify right. Every file is validated on load; a bad file raises
:class:`SiteProfileError` naming the file and the field. The regexes run on RE2
(:mod:`newsextract.sites.patterns`), so no pattern can stall a crawl.
"""

from __future__ import annotations

import codecs
import re
import tomllib
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from newsextract.exceptions import SiteProfileError
from newsextract.sites.patterns import PatternError, UrlPattern, compile_pattern

REQUIRED_KEYS = frozenset(
    {"name", "site", "language", "allowed_domains", "start_urls", "patterns", "examples"}
)
OPTIONAL_KEYS = frozenset({"title", "sitemaps", "feeds", "encoding"})
PATTERN_KEYS = ("article", "listing", "deny")
EXAMPLE_KEYS = ("articles", "non_articles")

_DOMAIN = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$")
_LANGUAGE = re.compile(r"^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")  # BCP 47, the common subset


@dataclass(frozen=True)
class SiteExamples:
    """Real URLs of the site: pages that are articles, and pages that are not."""

    articles: tuple[str, ...]
    non_articles: tuple[str, ...]


@dataclass(frozen=True)
class SiteProfile:
    """One news site. Patterns are searched (as ``re.search``, on RE2) in the full URL."""

    name: str  # the spider name, also the file name: asahi.toml -> "asahi"
    site: str  # registrable domain, "asahi.com"
    language: str  # BCP 47, "ja"
    allowed_domains: tuple[str, ...]  # a domain allows its subdomains, as in Scrapy
    start_urls: tuple[str, ...]  # front page and section pages
    sitemaps: tuple[str, ...]
    feeds: tuple[str, ...]
    article_patterns: tuple[UrlPattern, ...]
    listing_patterns: tuple[UrlPattern, ...]
    deny_patterns: tuple[UrlPattern, ...]
    examples: SiteExamples
    encoding: str | None = None  # legacy encoding; a fallback when a page declares none
    title: str = ""

    def allows(self, url: str) -> bool:
        """The URL's host is one of ``allowed_domains`` or a subdomain of one."""
        host = (urlsplit(url).hostname or "").lower()
        return any(host == d or host.endswith("." + d) for d in self.allowed_domains)

    def is_denied(self, url: str) -> bool:
        return _matches(self.deny_patterns, url)

    def is_article(self, url: str) -> bool:
        """An allowed URL that an article pattern matches and no deny pattern does."""
        return self.allows(url) and _matches(self.article_patterns, url) and not self.is_denied(url)

    def is_listing(self, url: str) -> bool:
        """A page to follow for links: a listing pattern matches, and it is no article."""
        return (
            self.allows(url)
            and _matches(self.listing_patterns, url)
            and not self.is_denied(url)
            and not _matches(self.article_patterns, url)
        )

    def crawl_domains(self) -> tuple[str, ...]:
        """``allowed_domains`` plus the hosts of the sitemaps and feeds (some live elsewhere,
        e.g. feeds.bbci.co.uk): what a spider's own ``allowed_domains`` should hold."""
        hosts = [urlsplit(u).hostname or "" for u in (*self.sitemaps, *self.feeds)]
        extra = [h for h in dict.fromkeys(hosts) if h and not self.allows("http://" + h + "/")]
        return (*self.allowed_domains, *extra)

    def misclassified(self) -> tuple[str, ...]:
        """One message for each example URL the patterns get wrong (empty when all right)."""
        wrong = [
            f"examples.articles[{i}]: {url} is not classified as an article ({self._why(url)})"
            for i, url in enumerate(self.examples.articles)
            if not self.is_article(url)
        ]
        wrong += [
            f"examples.non_articles[{i}]: {url} is {self._why_not(url)}"
            for i, url in enumerate(self.examples.non_articles)
            if self.is_article(url) or not self.allows(url)
        ]
        return tuple(wrong)

    def _why(self, url: str) -> str:
        if not self.allows(url):
            return "host not in allowed_domains"
        deny = _first_match(self.deny_patterns, url)
        return f"deny pattern {deny!r} matches" if deny else "no article pattern matches"

    def _why_not(self, url: str) -> str:
        if not self.allows(url):
            return "not on the site (host not in allowed_domains)"
        return f"classified as an article by {_first_match(self.article_patterns, url)!r}"


def parse_profile(text: str, source: str) -> SiteProfile:
    """Build a profile from TOML text; ``source`` is the file name, e.g. ``asahi.toml``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SiteProfileError(f"{source}: not valid TOML: {exc}") from exc
    profile = _Reader(source).profile(data)
    wrong = profile.misclassified()
    if wrong:
        raise SiteProfileError(f"{source}: " + "; ".join(wrong))
    return profile


class _Reader:
    """Reads and checks one parsed TOML table; every error names the file and field."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.stem = source.rsplit("/", 1)[-1].removesuffix(".toml")

    def fail(self, field: str, problem: str) -> SiteProfileError:
        return SiteProfileError(f"{self.source}: {field}: {problem}")

    def profile(self, data: dict[str, Any]) -> SiteProfile:
        self.check_keys(data, REQUIRED_KEYS, OPTIONAL_KEYS, "")
        patterns = self.table(data, "patterns", {"article"}, set(PATTERN_KEYS) - {"article"})
        examples = self.table(data, "examples", set(EXAMPLE_KEYS), set())
        profile = SiteProfile(
            name=self.name(data),
            site=self.domain(data["site"], "site"),
            language=self.language(data["language"]),
            allowed_domains=self.domains(data["allowed_domains"]),
            start_urls=self.urls(data["start_urls"], "start_urls", required=True),
            sitemaps=self.urls(data.get("sitemaps", []), "sitemaps"),
            feeds=self.urls(data.get("feeds", []), "feeds"),
            article_patterns=self.regexes(patterns, "article"),
            listing_patterns=self.regexes(patterns, "listing"),
            deny_patterns=self.regexes(patterns, "deny"),
            examples=SiteExamples(
                articles=self.urls(examples["articles"], "examples.articles", required=True),
                non_articles=self.urls(
                    examples["non_articles"], "examples.non_articles", required=True
                ),
            ),
            encoding=self.encoding(data.get("encoding")),
            title=self.string(data.get("title", ""), "title"),
        )
        self.check_start_urls(profile)
        return profile

    def check_keys(
        self,
        table: dict[str, Any],
        required: set[str] | frozenset[str],
        optional: set[str] | frozenset[str],
        prefix: str,
    ) -> None:
        unknown = sorted(set(table) - required - optional)
        if unknown:
            known = ", ".join(sorted(required | optional))
            raise self.fail(prefix + unknown[0], f"unknown key (known keys: {known})")
        missing = sorted(required - set(table))
        if missing:
            raise self.fail(prefix + missing[0], "missing required field")

    def table(
        self, data: dict[str, Any], key: str, required: set[str], optional: set[str]
    ) -> dict[str, Any]:
        value = data[key]
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table, e.g. [" + key + "]")
        self.check_keys(value, required, optional, key + ".")
        return value

    def string(self, value: Any, field: str) -> str:
        if not isinstance(value, str):
            raise self.fail(field, f"must be a string, not {type(value).__name__}")
        return value

    def strings(self, value: Any, field: str, required: bool = False) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.fail(field, f"must be a list of strings, not {type(value).__name__}")
        if required and not value:
            raise self.fail(field, "must not be empty")
        return tuple(self.string(v, f"{field}[{i}]") for i, v in enumerate(value))

    def name(self, data: dict[str, Any]) -> str:
        name = self.string(data["name"], "name")
        if name != self.stem:
            raise self.fail("name", f"{name!r} must match the file name {self.stem!r}")
        return name

    def domain(self, value: Any, field: str) -> str:
        domain = self.string(value, field)
        if not _DOMAIN.match(domain):
            raise self.fail(field, f"{domain!r} is not a lower-case domain name")
        return domain

    def domains(self, value: Any) -> tuple[str, ...]:
        items = self.strings(value, "allowed_domains", required=True)
        return tuple(self.domain(d, f"allowed_domains[{i}]") for i, d in enumerate(items))

    def language(self, value: Any) -> str:
        language = self.string(value, "language")
        if not _LANGUAGE.match(language):
            raise self.fail("language", f"{language!r} is not a BCP 47 tag such as 'ja' or 'en-GB'")
        return language

    def urls(self, value: Any, field: str, required: bool = False) -> tuple[str, ...]:
        urls = self.strings(value, field, required)
        for i, url in enumerate(urls):
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise self.fail(f"{field}[{i}]", f"{url!r} is not an absolute http(s) URL")
        return urls

    def regexes(self, patterns: dict[str, Any], key: str) -> tuple[UrlPattern, ...]:
        field = "patterns." + key
        sources = self.strings(patterns.get(key, []), field, required=key == "article")
        compiled = []
        for i, source in enumerate(sources):
            try:
                compiled.append(compile_pattern(source))
            except PatternError as exc:
                raise self.fail(f"{field}[{i}]", str(exc)) from None
        return tuple(compiled)

    def encoding(self, value: Any) -> str | None:
        if value is None:
            return None
        encoding = self.string(value, "encoding")
        try:
            return codecs.lookup(encoding).name
        except LookupError as exc:
            raise self.fail("encoding", f"unknown encoding {encoding!r}") from exc

    def check_start_urls(self, profile: SiteProfile) -> None:
        for i, url in enumerate(profile.start_urls):
            if not profile.allows(url):
                raise self.fail(f"start_urls[{i}]", f"{url} is not in allowed_domains")
            if profile.is_article(url):
                raise self.fail(f"start_urls[{i}]", f"{url} is an article, not a start page")


def _matches(patterns: tuple[UrlPattern, ...], url: str) -> bool:
    return any(p.search(url) for p in patterns)


def _first_match(patterns: tuple[UrlPattern, ...], url: str) -> str:
    return next((p.pattern for p in patterns if p.search(url)), "")

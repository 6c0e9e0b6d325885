"""One spider per site profile: registered for ``scrapy list``, driven by the profile."""

from __future__ import annotations

import asyncio
import logging
from importlib import resources
from pathlib import Path

import pytest
from scrapy.exceptions import UsageError
from scrapy.http import HtmlResponse, Request
from scrapy.settings import Settings
from scrapy.spiderloader import get_spider_loader
from scrapy.utils.test import get_crawler

from newsextract.sites import SiteExamples, SiteProfile, compile_pattern, load_profiles
from newsextract.spiders import profiles
from newsextract.spiders.arguments import SpiderArgumentError
from newsextract.spiders.profiles import (
    PROFILES_DIR_ENV,
    ProfileSpider,
    check_profiles_setting,
    profile_spiders,
    spider_class,
)

PROFILE = SiteProfile(
    name="example_news",
    site="example.co.jp",
    language="ja",
    allowed_domains=("example.co.jp",),
    start_urls=("https://www.example.co.jp/",),
    sitemaps=("https://www.example.co.jp/sitemap.xml",),
    feeds=("https://feeds.example.net/news.rdf",),
    article_patterns=(compile_pattern(r"/articles/[A-Z0-9]+\.html$"),),
    listing_patterns=(compile_pattern(r"/(?:national|world)/$"),),
    deny_patterns=(compile_pattern(r"/articles/PR"),),
    examples=SiteExamples(("https://www.example.co.jp/articles/AB12.html",), ()),
)


def test_scrapy_list_shows_every_bundled_profile_and_the_crawl_modes() -> None:
    names = set(get_spider_loader(Settings({"SPIDER_MODULES": ["newsextract.spiders"]})).list())
    assert {"site", "idrange"} <= names
    assert set(load_profiles()) - profiles.RESERVED_NAMES <= names
    assert {"asahi", "mainichi", "yomiuri", "cnn"} <= names


def test_a_profile_class_is_named_and_documented_after_its_profile() -> None:
    cls = spider_class(PROFILE)
    assert cls.__name__ == "ExampleNewsSpider"
    assert cls.name == "example_news"
    assert issubclass(cls, ProfileSpider)
    assert cls.__module__ == "newsextract.spiders.profiles"


def make_spider(tmp_path: Path) -> ProfileSpider:
    cls = spider_class(PROFILE)
    crawler = get_crawler(cls, {"NEWSEXTRACT_DATA_DIR": str(tmp_path / "data")})
    spider = cls.from_crawler(crawler, feed="https://www.example.co.jp/extra.rss")
    crawler.spider = spider
    return spider


def test_a_profile_spider_starts_from_its_pages_sitemaps_and_feeds(tmp_path: Path) -> None:
    spider = make_spider(tmp_path)

    async def collect() -> list[Request]:
        return [request async for request in spider.start()]

    assert [r.url for r in asyncio.run(collect())] == [
        "https://www.example.co.jp/",
        "https://www.example.co.jp/sitemap.xml",
        "https://feeds.example.net/news.rdf",
        "https://www.example.co.jp/extra.rss",
    ]
    assert (spider.site_name, spider.language) == ("example.co.jp", "ja")
    assert spider.allowed_domains == ["example.co.jp", "feeds.example.net"]


def test_a_profile_spider_follows_listings_and_takes_articles(tmp_path: Path) -> None:
    spider = make_spider(tmp_path)
    body = b"""<html><body>
      <a href="/articles/XY34.html">article</a> <a href="/articles/PR99.html">advert</a>
      <a href="/national/">national</a> <a href="/about/company.html">about</a>
      <a href="https://other.jp/articles/ZZ.html">elsewhere</a></body></html>"""
    request = Request("https://www.example.co.jp/", callback=spider.parse)
    response = HtmlResponse(
        request.url, body=body, headers={"Content-Type": "text/html"}, request=request
    )
    output = list(spider.parse(response))
    assert [(r.url, r.callback) for r in output] == [
        ("https://www.example.co.jp/articles/XY34.html", spider.parse_article),
        ("https://www.example.co.jp/national/", spider.parse_listing),
    ]


# --- user profiles that cannot be loaded, and the arguments of a profile spider ----------


def test_a_broken_user_profile_is_skipped_and_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bundled = resources.files("newsextract.sites") / "profiles" / "cnn.toml"
    text = bundled.read_text("utf-8")
    (tmp_path / "mycnn.toml").write_text(text.replace('name = "cnn"', 'name = "mycnn"'))
    (tmp_path / "broken.toml").write_text("name = 'broken'\n[patterns]\narticle = ['(']\n")
    with caplog.at_level(logging.ERROR, logger=profiles.__name__):
        classes = profile_spiders(str(tmp_path))
    names = {cls.name for cls in classes.values()}
    assert {"mycnn", "asahi", "cnn"} <= names and "broken" not in names
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and str(tmp_path / "broken.toml") in errors[0], errors


def test_a_missing_profile_directory_leaves_the_bundled_spiders(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger=profiles.__name__):
        classes = profile_spiders(str(tmp_path / "nowhere"))
    assert {cls.name for cls in classes.values()} == set(load_profiles())
    assert any(PROFILES_DIR_ENV in r.getMessage() for r in caplog.records)


def test_the_profiles_directory_as_a_setting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROFILES_DIR_ENV, raising=False)
    with pytest.raises(UsageError, match=f"{PROFILES_DIR_ENV} is an environment variable"):
        check_profiles_setting(Settings({PROFILES_DIR_ENV: "profiles"}))
    check_profiles_setting(Settings())
    monkeypatch.setenv(PROFILES_DIR_ENV, "profiles")  # the same folder both ways is fine
    check_profiles_setting(Settings({PROFILES_DIR_ENV: "profiles"}))


@pytest.mark.parametrize(
    ("argument", "value"),
    [("max_pages", "0"), ("since", "yesterday"), ("feed", "ftp://a.jp/rss"), ("deny", "(")],
)
def test_a_profile_spider_refuses_a_bad_argument(argument: str, value: str) -> None:
    with pytest.raises(SpiderArgumentError, match=f"^-a {argument}: "):
        spider_class(PROFILE).check_arguments({argument: value})

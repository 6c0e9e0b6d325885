"""One spider per site profile: registered for ``scrapy list``, driven by the profile."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from scrapy.http import HtmlResponse, Request
from scrapy.settings import Settings
from scrapy.spiderloader import get_spider_loader
from scrapy.utils.test import get_crawler

from newsextract.sites import SiteExamples, SiteProfile, load_profiles
from newsextract.spiders import profiles
from newsextract.spiders.profiles import ProfileSpider, spider_class

PROFILE = SiteProfile(
    name="example_news",
    site="example.co.jp",
    language="ja",
    allowed_domains=("example.co.jp",),
    start_urls=("https://www.example.co.jp/",),
    sitemaps=("https://www.example.co.jp/sitemap.xml",),
    feeds=("https://feeds.example.net/news.rdf",),
    article_patterns=(re.compile(r"/articles/[A-Z0-9]+\.html$"),),
    listing_patterns=(re.compile(r"/(?:national|world)/$"),),
    deny_patterns=(re.compile(r"/articles/PR"),),
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

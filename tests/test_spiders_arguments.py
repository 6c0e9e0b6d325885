"""Spider arguments: each bad one is refused with one line naming it and saying what it
accepts, unknown names are warned about, and user regexes cannot stall a crawl."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest
from scrapy.exceptions import UsageError
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from newsextract.spiders.arguments import (
    SpiderArgumentError,
    http_urls,
    unknown_arguments,
    url_pattern,
    whole_number,
)
from newsextract.spiders.base import NewsSpider
from newsextract.spiders.idrange import IdRangeSpider
from newsextract.spiders.site import SiteSpider

ROOT = "http://127.0.0.1:8000"
START = {"start_url": f"{ROOT}/index.html", "allow": r"/article/\d+\.html"}
IDS = {"url_template": ROOT + "/news/{id}.html", "ids": "1-10"}
#: The crawl froze on one link and this allow pattern; Python's re needs about 4 s for the
#: near miss below (25 letters), doubling with each letter more.
BACKTRACKING = r"/news/(\w+-?)+\.html"
NEAR_MISS = f"{ROOT}/news/" + "a" * 25 + "!"


def make_spider(
    tmp_path: Path, cls: type[NewsSpider] = SiteSpider, settings: dict[str, Any] | None = None,
    **kwargs: Any,
) -> NewsSpider:  # fmt: skip
    crawler = get_crawler(cls, {"NEWSEXTRACT_DATA_DIR": str(tmp_path / "data"), **(settings or {})})
    spider = cls.from_crawler(crawler, **kwargs)
    crawler.spider = spider
    return spider


# --- one line naming the argument ----------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"max_pages": "ten"}, r"^-a max_pages: expected a whole number, 1 or more, got 'ten'$"),
        ({"max_pages": "0"}, r"^-a max_pages: expected a whole number, 1 or more, got '0'$"),
        ({"since": "yesterday"}, r"^-a since: expected YYYY-MM-DD or an ISO 8601 time, got"),
        ({"allow": "/news/("}, r"^-a allow: bad regex '/news/\(': missing \)"),
        ({"deny": "["}, r"^-a deny: bad regex '\[': unterminated character set"),
        ({"follow": r"/(\d+)/\1"}, r"^-a follow: '/\(\\d\+\)/\\1' needs a feature .*\(RE2\)"),
        ({"start_url": "ftp://a.jp/"}, r"^-a start_url: expected absolute http:// or https://"),
        ({"feed": "file:///etc/passwd"}, r"^-a feed: expected absolute http:// or https://"),
        ({"sitemap": "sitemap.xml"}, r"^-a sitemap: expected .* \(or robots\), got 'sitemap.xml'"),
        ({"start_url": None}, r"^-a start_url: the site spider needs -a start_url=URL"),
        ({"allow": None}, r"^-a allow: required with start_url alone: give a regex of the"),
    ],
)
def test_a_bad_site_argument_is_named(changes: dict[str, str | None], message: str) -> None:
    arguments = {k: v for k, v in {**START, **changes}.items() if v is not None}
    with pytest.raises(SpiderArgumentError, match=message) as raised:
        SiteSpider.check_arguments(arguments)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ids": "1000..1010"}, r"^-a ids: expected START-END\[:STEP\], START-\[:STEP\] or ID"),
        ({"ids": "20-10"}, r"^-a ids: need START <= END"),
        ({"ids": ""}, r"^-a ids: required"),
        ({"url_template": "ftp://a.jp/{id}"}, r"^-a url_template: needs an absolute http\(s\)"),
        ({"url_template": "https://a.jp/{n}"}, r"^-a url_template: needs exactly the field"),
        ({"max_misses": "many"}, r"^-a max_misses: expected a whole number, 1 or more"),
        ({"window": "-1"}, r"^-a window: expected a whole number, 1 or more"),
    ],
)
def test_a_bad_idrange_argument_is_named(changes: dict[str, str], message: str) -> None:
    with pytest.raises(SpiderArgumentError, match=message):
        IdRangeSpider.check_arguments({**IDS, **changes})


def test_an_argument_error_is_a_usage_error_and_a_value_error() -> None:
    error = SpiderArgumentError("max_pages", "expected a whole number")
    assert isinstance(error, UsageError) and isinstance(error, ValueError)
    assert (str(error), error.name, error.print_help) == (
        "-a max_pages: expected a whole number",
        "max_pages",
        False,
    )


def test_good_arguments_are_read() -> None:
    assert whole_number("max_pages", "500") == 500 and whole_number("max_pages", 3) == 3
    assert whole_number("max_pages", None) is None and whole_number("max_pages", "") is None
    assert http_urls("sitemap", f"{ROOT}/a.xml, robots", ("robots",)) == [f"{ROOT}/a.xml", "robots"]
    assert url_pattern("allow", None) is None
    assert url_pattern("allow", BACKTRACKING) is not None


def test_a_start_url_longer_than_scrapy_requests_is_refused() -> None:
    with pytest.raises(SpiderArgumentError, match="^-a start_url: a URL longer than 2083"):
        SiteSpider.check_arguments({**START, "start_url": f"{ROOT}/" + "x" * 2100})


# --- warnings ------------------------------------------------------------------------------


def test_an_unknown_argument_is_warned_about_with_a_hint(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        make_spider(tmp_path, **START, alow="/x/", _job="42")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("-a alow is not an argument of this spider")
    assert "(did you mean 'allow'?)" in warnings[0] and "start_url" in warnings[0]


def test_unknown_arguments_lists_what_the_spider_takes() -> None:
    assert unknown_arguments(IdRangeSpider, ["ids", "max_misses", "_job"]) == []
    (warning,) = unknown_arguments(IdRangeSpider, ["id"])
    assert "(did you mean 'ids'?)" in warning
    assert "url_template" in warning and "max_pages" in warning and "name" not in warning


def test_without_allow_a_sitemap_crawl_warns_what_it_takes_for_articles(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        make_spider(tmp_path, sitemap=f"{ROOT}/sitemap.xml")
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.startswith("no -a allow: every sitemap and feed entry of the site")


def test_checking_arguments_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        SiteSpider.check_arguments({"sitemap": f"{ROOT}/sitemap.xml", "alow": "/x/"})
    assert caplog.records == []  # the crawl's own spider warns, once


# --- patterns that cannot stall, URLs that cannot be requested ---------------------------


def test_a_backtracking_allow_pattern_is_matched_in_bounded_time(tmp_path: Path) -> None:
    spider = make_spider(tmp_path, **START | {"allow": BACKTRACKING, "deny": BACKTRACKING})
    started = time.monotonic()
    assert not spider.is_article(NEAR_MISS)
    assert not spider.is_denied(NEAR_MISS)
    assert time.monotonic() - started < 0.5  # generous: RE2 takes microseconds
    assert spider.is_article(f"{ROOT}/news/a-good-story.html")


def listing(spider: NewsSpider, links: list[str]) -> list[Request]:
    body = "".join(f'<a href="{link}">x</a>' for link in links)
    request = Request(f"{ROOT}/index.html", callback=spider.parse)
    response = HtmlResponse(
        request.url, body=f"<html><body>{body}</body></html>".encode(), request=request,
        headers={"Content-Type": "text/html; charset=utf-8"},
    )  # fmt: skip
    return [r for r in spider.parse_listing(response) if isinstance(r, Request)]


def test_links_longer_than_the_url_length_limit_are_never_matched_nor_requested(
    tmp_path: Path,
) -> None:
    spider = make_spider(tmp_path, settings={"URLLENGTH_LIMIT": 100}, **START)
    long_article = f"{ROOT}/article/{'9' * 100}.html"
    long_listing = f"{ROOT}/section/{'x' * 100}.html"
    requests = listing(spider, ["/article/1.html", long_article, long_listing, "/section/a.html"])
    assert [r.url for r in requests] == [f"{ROOT}/article/1.html", f"{ROOT}/section/a.html"]
    assert spider.crawler.stats is not None
    assert spider.crawler.stats.get_value("newsextract/links/too_long") == 2
    assert spider.listed_articles([long_article, f"{ROOT}/article/2.html"]) == [
        f"{ROOT}/article/2.html"
    ]

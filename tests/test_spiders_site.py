"""The ``site`` spider and the shared machinery of every spider, without a network:
requests are built and responses answered in the test."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path
from typing import Any

import pytest
from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Request, Response, TextResponse
from scrapy.settings import Settings
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.request import request_from_dict
from scrapy.utils.test import get_crawler
from twisted.internet.error import DNSLookupError
from twisted.python.failure import Failure

from newsextract.extensions.failures import failure_recorded
from newsextract.extensions.feeds import article_stored
from newsextract.extensions.listings import listing_fetched
from newsextract.items import ArticleItem, FailureItem, ListingItem, PageItem
from newsextract.spiders.base import ARTICLE_PRIORITY_DEFAULT, NewsSpider
from newsextract.spiders.site import SiteSpider
from newsextract.state import PendingRequest, StateStore, content_hash

ROOT = "http://127.0.0.1:8000"
ALLOW = r"/article/\d+\.html"
LISTING = f"""<html><body>
<a href="/article/1.html">one</a> <a href="/article/2.html">two</a>
<a href="/article/1.html#top">one again</a> <a href="/section/world.html">world</a>
<a href="/img/photo.jpg">photo</a> <a href="http://elsewhere.com/article/9.html">off site</a>
<a href="{ROOT}/private/article/5.html">denied</a></body></html>""".encode()
ARTICLE = b"<html><head><title>t</title></head><body><p>An article.</p></body></html>"


class Recorder:
    """Collects what a spider reports through signals."""

    def __init__(self, spider: NewsSpider) -> None:
        self.failures: list[FailureItem] = []
        self.listings: list[ListingItem] = []
        spider.crawler.signals.connect(self.on_failure, signal=failure_recorded)
        spider.crawler.signals.connect(self.on_listing, signal=listing_fetched)

    def on_failure(self, failure: FailureItem) -> None:
        self.failures.append(failure)

    def on_listing(self, listing: ListingItem) -> None:
        self.listings.append(listing)


def make_spider(
    tmp_path: Path, cls: type[NewsSpider] = SiteSpider, state: bool = True, **kwargs: Any
) -> NewsSpider:
    settings = {
        "NEWSEXTRACT_DATA_DIR": str(tmp_path / "data"),
        "NEWSEXTRACT_STATE": "on" if state else "off",
    }
    crawler = get_crawler(cls, settings)
    spider = cls.from_crawler(crawler, **kwargs)
    crawler.spider = spider
    crawler.signals.send_catch_log(signals.spider_opened, spider=spider)  # as the engine does
    return spider


def site_spider(tmp_path: Path, **kwargs: Any) -> NewsSpider:
    arguments = {"start_url": f"{ROOT}/index.html", "allow": ALLOW, **kwargs}
    return make_spider(tmp_path, **arguments)


def start_requests(spider: NewsSpider) -> list[Request]:
    async def collect() -> list[Request]:
        return [request async for request in spider.start()]

    return asyncio.run(collect())


def respond(
    request: Request | str,
    body: bytes,
    content_type: str = "text/html; charset=utf-8",
    status: int = 200,
    cls: type[Response] = HtmlResponse,
) -> Response:
    if isinstance(request, str):
        request = Request(request)
    headers = {"Content-Type": content_type} if content_type else {}
    return cls(request.url, status=status, body=body, headers=headers, request=request)


def call(request: Request, response: Response) -> list[Any]:
    assert request.callback is not None
    return list(request.callback(response) or [])


def failure_of(error: Exception, request: Request) -> Failure:
    failure = Failure(error)  # type: ignore[no-untyped-call]
    failure.request = request  # type: ignore[attr-defined]
    return failure


def requests_of(output: list[Any]) -> list[Request]:
    return [entry for entry in output if isinstance(entry, Request)]


def test_start_requests_cover_start_urls_sitemaps_and_feeds(tmp_path: Path) -> None:
    spider = site_spider(
        tmp_path,
        start_url=f"{ROOT}/index.html, {ROOT}/article/3.html",
        sitemap=f"{ROOT}/sitemap.xml,robots",
        feed=f"{ROOT}/rss.xml",
    )
    requests = start_requests(spider)
    assert [(r.url, r.callback.__name__) for r in requests] == [  # type: ignore[union-attr]
        (f"{ROOT}/index.html", "parse"),
        (f"{ROOT}/article/3.html", "parse_article"),
        (f"{ROOT}/sitemap.xml", "parse_sitemap"),
        (f"{ROOT}/robots.txt", "parse_robots"),
        (f"{ROOT}/rss.xml", "parse_feed"),
    ]
    assert all(request.errback == spider.on_error for request in requests)


def test_the_site_spider_needs_somewhere_to_start(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="start_url"):
        make_spider(tmp_path, allow=ALLOW)


def test_the_site_spider_stays_on_its_registrable_domain(tmp_path: Path) -> None:
    spider = make_spider(tmp_path, start_url="https://www.asahi.com/", allow="/articles/")
    assert spider.allowed_domains == ["asahi.com"]  # type: ignore[attr-defined]
    assert spider.site_name == "asahi.com"
    assert spider.in_scope("https://digital.asahi.com/articles/x.html")
    assert not spider.in_scope("https://www.asahi.co.jp/articles/x.html")


def test_a_listing_page_yields_article_and_listing_requests(tmp_path: Path) -> None:
    spider = site_spider(tmp_path, deny="/private/")
    recorder = Recorder(spider)
    (start,) = start_requests(spider)
    requests = requests_of(call(start, respond(start, LISTING)))
    assert [(r.url, r.callback.__name__) for r in requests] == [  # type: ignore[union-attr]
        (f"{ROOT}/article/1.html", "parse_article"),
        (f"{ROOT}/article/2.html", "parse_article"),
        (f"{ROOT}/section/world.html", "parse_listing"),
    ]
    assert requests[0].priority == ARTICLE_PRIORITY_DEFAULT > requests[2].priority
    (listing,) = recorder.listings
    assert (listing.url, listing.kind, listing.links, listing.articleLinks) == (
        f"{ROOT}/index.html",
        "listing",
        6,
        2,
    )
    assert recorder.failures == []


def test_follow_limits_which_listing_pages_are_read(tmp_path: Path) -> None:
    spider = site_spider(tmp_path, follow="/news/")
    (start,) = start_requests(spider)
    urls = [r.url for r in requests_of(call(start, respond(start, LISTING)))]
    assert f"{ROOT}/section/world.html" not in urls
    assert f"{ROOT}/article/1.html" in urls


def test_an_article_page_becomes_a_page_item_with_its_raw_bytes(tmp_path: Path) -> None:
    spider = site_spider(tmp_path)
    body = "<html><body><p>日本語の記事</p></body></html>".encode("cp932")
    request = spider.article_request(f"{ROOT}/article/1.html")
    assert request is not None
    (item,) = call(
        request, respond(request, body, "text/plain; charset=Shift_JIS", cls=TextResponse)
    )
    assert isinstance(item, PageItem)
    assert item.body == body
    assert item.content_type == "text/plain; charset=Shift_JIS"
    assert (item.url, item.status, item.site) == (f"{ROOT}/article/1.html", 200, "127.0.0.1")


def test_a_non_html_response_becomes_a_failure_record(tmp_path: Path) -> None:
    spider = site_spider(tmp_path)
    recorder = Recorder(spider)
    request = spider.article_request(f"{ROOT}/article/1.html")
    assert request is not None
    response = respond(request, b"\x89PNG\r\n\x1a\n\x00\x00", "image/png", cls=Response)
    assert call(request, response) == []
    (failure,) = recorder.failures
    assert (failure.url, failure.stage, failure.status) == (
        f"{ROOT}/article/1.html",
        "content-type",
        200,
    )
    assert "image/png" in failure.reason


def test_known_articles_are_not_requested_again(tmp_path: Path) -> None:
    with StateStore(tmp_path / "data" / "state.sqlite3") as store:
        store.record_harvest(f"{ROOT}/article/1.html", content_hash("one"))
    spider = site_spider(tmp_path)
    (start,) = start_requests(spider)
    urls = [r.url for r in requests_of(call(start, respond(start, LISTING)))]
    assert f"{ROOT}/article/1.html" not in urls
    assert f"{ROOT}/article/2.html" in urls
    assert spider.crawler.stats.get_value("newsextract/state/skipped_known") == 1


def test_with_the_state_off_known_articles_are_requested(tmp_path: Path) -> None:
    with StateStore(tmp_path / "data" / "state.sqlite3") as store:
        store.record_harvest(f"{ROOT}/article/1.html", content_hash("one"))
    spider = site_spider(tmp_path, state=False)
    assert spider.article_request(f"{ROOT}/article/1.html") is not None


def test_max_pages_bounds_what_is_scheduled(tmp_path: Path) -> None:
    spider = site_spider(tmp_path, max_pages="2")
    (start,) = start_requests(spider)
    requests = requests_of(call(start, respond(start, LISTING)))
    # two articles; then no listing page is worth reading any more
    assert [r.url for r in requests] == [f"{ROOT}/article/1.html", f"{ROOT}/article/2.html"]
    assert spider.article_request(f"{ROOT}/article/3.html") is None
    assert spider.crawler.stats.get_value("newsextract/pages/over_max_pages") == 2


def test_max_pages_one_below_the_articles_found(tmp_path: Path) -> None:
    spider = site_spider(tmp_path, max_pages="3")
    (start,) = start_requests(spider)
    requests = requests_of(call(start, respond(start, LISTING)))
    assert [r.url.removeprefix(ROOT) for r in requests] == [
        "/article/1.html",
        "/article/2.html",
        "/section/world.html",  # read: the budget is not spent yet
        "/private/article/5.html",
    ]


def test_errback_records_http_errors_with_their_status(tmp_path: Path) -> None:
    spider = site_spider(tmp_path)
    recorder = Recorder(spider)
    request = Request(f"{ROOT}/article/3.html", meta={"redirect_urls": [f"{ROOT}/old/3.html"]})
    failure = failure_of(HttpError(respond(request, b"gone", status=404)), request)
    assert list(spider.on_error(failure)) == []
    (record,) = recorder.failures
    assert (record.url, record.stage, record.status) == (f"{ROOT}/old/3.html", "http", 404)


@pytest.mark.parametrize(
    ("error", "stage"),
    [
        (DNSLookupError("no such host"), "download"),
        (IgnoreRequest("Forbidden by robots.txt"), "robots"),
        (IgnoreRequest("max redirections reached"), "redirect"),
    ],
)
def test_errback_records_download_failures(tmp_path: Path, error: Exception, stage: str) -> None:
    spider = site_spider(tmp_path)
    recorder = Recorder(spider)
    failure = failure_of(error, Request(f"{ROOT}/article/4.html"))
    list(spider.on_error(failure))
    assert [(r.url, r.stage, r.status) for r in recorder.failures] == [
        (f"{ROOT}/article/4.html", stage, None)
    ]


def test_sitemaps_gzip_index_and_since(tmp_path: Path) -> None:
    spider = site_spider(tmp_path, since="2026-11-01")
    recorder = Recorder(spider)
    index = f"""<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sitemap><loc>{ROOT}/s/new.xml.gz</loc><lastmod>2026-11-20</lastmod></sitemap>
      <sitemap><loc>{ROOT}/s/old.xml</loc><lastmod>2020-01-01</lastmod></sitemap>
    </sitemapindex>""".encode()
    request = Request(f"{ROOT}/sitemap.xml", callback=spider.parse_sitemap)
    (child,) = call(request, respond(request, index, "application/xml", cls=Response))
    assert child.url == f"{ROOT}/s/new.xml.gz"
    urlset = f"""<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>{ROOT}/article/1.html</loc><lastmod>2026-11-02</lastmod></url>
      <url><loc>{ROOT}/article/2.html</loc><lastmod>2026-10-30</lastmod></url>
      <url><loc>{ROOT}/article/3.html</loc></url>
      <url><loc>{ROOT}/about.html</loc></url>
      <url><loc>http://elsewhere.com/article/4.html</loc></url>
    </urlset>""".encode()
    response = respond(child, gzip.compress(urlset), "application/x-gzip", cls=Response)
    requests = call(child, response)
    assert [r.url for r in requests] == [f"{ROOT}/article/1.html", f"{ROOT}/article/3.html"]
    assert [(x.kind, x.links, x.articleLinks) for x in recorder.listings] == [
        ("sitemap", 2, 0),
        ("sitemap", 5, 2),
    ]


def test_a_broken_gzip_sitemap_is_a_failure_record(tmp_path: Path) -> None:
    spider = site_spider(tmp_path)
    recorder = Recorder(spider)
    request = Request(f"{ROOT}/s.xml.gz", callback=spider.parse_sitemap)
    assert (
        call(request, respond(request, b"\x1f\x8b\x08garbage", "application/gzip", cls=Response))
        == []
    )
    assert [r.stage for r in recorder.failures] == ["document"]


def test_feeds_give_articles_and_honour_since(tmp_path: Path) -> None:
    spider = site_spider(tmp_path, since="2026-11-01")
    rss = f"""<rss version="2.0"><channel>
      <item><link>{ROOT}/article/1.html</link>
        <pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>
      <item><link>{ROOT}/article/2.html</link>
        <pubDate>Fri, 30 Oct 2026 10:00:00 GMT</pubDate></item>
    </channel></rss>""".encode()
    request = Request(f"{ROOT}/rss.xml", callback=spider.parse_feed)
    requests = call(request, respond(request, rss, "application/rss+xml", cls=Response))
    assert [r.url for r in requests] == [f"{ROOT}/article/1.html"]


def test_without_allow_sitemap_entries_are_the_articles(tmp_path: Path) -> None:
    spider = make_spider(tmp_path, sitemap=f"{ROOT}/sitemap.xml")
    urlset = f"<urlset><url><loc>{ROOT}/2026/story-one</loc></url></urlset>".encode()
    request = Request(f"{ROOT}/sitemap.xml", callback=spider.parse_sitemap)
    (article,) = call(request, respond(request, urlset, "text/xml", cls=Response))
    assert article.callback == spider.parse_article


def test_robots_txt_leads_to_its_sitemaps(tmp_path: Path) -> None:
    spider = site_spider(tmp_path, sitemap="robots")
    robots = f"User-agent: *\nDisallow: /x/\nSitemap: {ROOT}/news-sitemap.xml\n".encode()
    request = next(r for r in start_requests(spider) if r.url.endswith("robots.txt"))
    (sitemap,) = call(request, respond(request, robots, "text/plain", cls=TextResponse))
    assert (sitemap.url, sitemap.callback) == (f"{ROOT}/news-sitemap.xml", spider.parse_sitemap)


@pytest.mark.parametrize("kind", ["start", "article", "listing", "document"])
def test_requests_serialise_for_jobdir(tmp_path: Path, kind: str) -> None:
    spider = site_spider(tmp_path)
    if kind == "start":
        request: Request | None = start_requests(spider)[0]
    elif kind == "article":
        request = spider.article_request(f"{ROOT}/article/8.html")
    elif kind == "listing":
        request = spider.listing_request(f"{ROOT}/section/8.html")
    else:
        request = spider.document_request(f"{ROOT}/feed.xml", "parse_feed")
    assert request is not None
    restored = request_from_dict(request.to_dict(spider=spider), spider=spider)
    assert (restored.url, restored.callback, restored.errback) == (
        request.url,
        request.callback,
        request.errback,
    )


def test_an_exported_article_keeps_its_request_open_until_the_feed_has_written_it(
    tmp_path: Path,
) -> None:
    crawler = get_crawler(SiteSpider, {"NEWSEXTRACT_DATA_DIR": str(tmp_path / "data")})
    spider = SiteSpider.from_crawler(crawler, start_url=f"{ROOT}/index.html", allow=ALLOW)
    crawler.spider = spider
    open_when_written: list[bool] = []

    class Feed:  # an extension: Scrapy makes it after the spider, before opening the spider
        def item_scraped(self, item: Any, **kwargs: Any) -> None:
            assert spider.ledger.store is not None
            pending = spider.ledger.store.pending(spider.ledger.crawl)
            open_when_written.append(item.url in {p.url for p in pending})

    feed = Feed()
    crawler.signals.connect(feed.item_scraped, signal=signals.item_scraped)
    crawler.signals.send_catch_log(signals.spider_opened, spider=spider)
    (start,) = start_requests(spider)
    article = requests_of(call(start, respond(start, LISTING)))[0]
    (item,) = call(article, respond(article, ARTICLE))
    crawler.signals.send_catch_log(signals.item_scraped, item=item, spider=spider)
    crawler.signals.send_catch_log(article_stored, item=item)  # the feed watch: written
    assert open_when_written == [True]  # a kill while the feed writes loses nothing
    assert spider.ledger.store is not None
    assert item.url not in {p.url for p in spider.ledger.store.pending(spider.ledger.crawl)}


def test_an_interrupted_crawl_gets_its_open_requests_back(tmp_path: Path) -> None:
    first = site_spider(tmp_path)
    (start,) = start_requests(first)
    requests = requests_of(call(start, respond(start, LISTING)))
    done = requests[0]
    (item,) = call(done, respond(done, ARTICLE))
    first.crawler.signals.send_catch_log(article_stored, item=item)  # a feed holds it
    # killed here: article 2 and the section page were never answered
    second = site_spider(tmp_path)
    recovered = start_requests(second)
    assert [(r.url, r.dont_filter) for r in recovered] == [
        (f"{ROOT}/article/2.html", True),
        (f"{ROOT}/section/world.html", True),
        (f"{ROOT}/private/article/5.html", True),
        (f"{ROOT}/index.html", False),  # the start page itself was read: asked again
    ]
    assert second.crawler.stats.get_value("newsextract/state/recovered") == 3


def test_a_harvested_article_is_not_recovered(tmp_path: Path) -> None:
    first = site_spider(tmp_path)
    request = first.article_request(f"{ROOT}/article/1.html")
    assert request is not None
    with StateStore(tmp_path / "data" / "state.sqlite3") as store:
        store.record_harvest(request.url, content_hash("x"))  # exported, then killed
    urls = [r.url for r in start_requests(site_spider(tmp_path))]
    assert urls == [f"{ROOT}/index.html"]


def test_a_dropped_item_closes_its_request(tmp_path: Path) -> None:
    first = site_spider(tmp_path)
    request = first.article_request(f"{ROOT}/article/1.html")
    assert request is not None
    (item,) = call(request, respond(request, ARTICLE))
    first.crawler.signals.send_catch_log(
        signals.item_dropped, item=item, response=None, exception=Exception("x"), spider=first
    )
    assert [r.url for r in start_requests(site_spider(tmp_path))] == [f"{ROOT}/index.html"]


def test_a_redirect_to_a_harvested_page_is_a_duplicate(tmp_path: Path) -> None:
    with StateStore(tmp_path / "data" / "state.sqlite3") as store:
        store.record_harvest(f"{ROOT}/article/1.html", content_hash("one"))
    spider = site_spider(tmp_path)
    recorder = Recorder(spider)
    request = Request(
        f"{ROOT}/article/1.html",
        callback=spider.parse_article,
        meta={"redirect_urls": [f"{ROOT}/article/100.html"]},
    )
    assert call(request, respond(request, ARTICLE)) == []
    assert [(r.url, r.stage) for r in recorder.failures] == [
        (f"{ROOT}/article/100.html", "duplicate")
    ]


def test_the_contact_goes_into_the_user_agent() -> None:
    settings = Settings({"USER_AGENT": "newsextract/x"}, priority="project")
    settings.set("NEWSEXTRACT_CONTACT", "ops@example.org", priority="cmdline")
    SiteSpider.update_settings(settings)
    assert settings["USER_AGENT"].endswith("(+ops@example.org)")
    assert settings["USER_AGENT"].startswith("newsextract/")
    explicit = Settings({"USER_AGENT": "mine"}, priority="cmdline")
    SiteSpider.update_settings(explicit)
    assert explicit["USER_AGENT"] == "mine"


def test_page_items_carry_the_fetch_time(tmp_path: Path) -> None:
    spider = site_spider(tmp_path)
    (item,) = call(
        Request(f"{ROOT}/article/1.html", callback=spider.parse_article),
        respond(f"{ROOT}/article/1.html", ARTICLE),
    )
    assert item.fetched_at.endswith("+00:00")
    assert not isinstance(item, ArticleItem)


def test_after_a_clean_jobdir_pause_scrapy_keeps_the_queue(tmp_path: Path) -> None:
    first = site_spider(tmp_path)
    first.jobdir = str(tmp_path / "job")
    (start,) = start_requests(first)
    call(start, respond(start, LISTING))
    first.close_ledger("shutdown")  # Ctrl-C: Scrapy saved its queue in JOBDIR
    second = site_spider(tmp_path)
    # only the start page, which JOBDIR's duplicate filter drops in a real crawl
    assert [r.url for r in start_requests(second)] == [f"{ROOT}/index.html"]
    assert second.article_request(f"{ROOT}/article/2.html") is None  # in JOBDIR's queue
    second.close_ledger("finished")
    third = site_spider(tmp_path)  # the resumed run was killed: the ledger gives them back
    assert f"{ROOT}/article/2.html" in [r.url for r in start_requests(third)]


def test_a_redirect_makes_its_source_known_once_the_target_is_harvested(tmp_path: Path) -> None:
    spider = site_spider(tmp_path)
    source = spider.article_request(f"{ROOT}/article/903.html")
    assert source is not None
    redirected = source.replace(
        url=f"{ROOT}/article/77.html", meta={"redirect_urls": [f"{ROOT}/article/903.html"]}
    )
    (item,) = call(redirected, respond(redirected, ARTICLE))
    assert item.url == f"{ROOT}/article/77.html"
    with StateStore(tmp_path / "data" / "state.sqlite3") as store:
        store.record_harvest(item.url, content_hash("77"))
    spider.crawler.signals.send_catch_log(signals.item_scraped, item=item, spider=spider)
    rerun = site_spider(tmp_path)
    assert [r.url for r in start_requests(rerun)] == [f"{ROOT}/index.html"]  # nothing open
    assert rerun.article_request(f"{ROOT}/article/903.html") is None


def test_requests_carry_one_object_of_each_spider_method(tmp_path: Path) -> None:
    """Scrapy keys what it learns of a callback (does the generator return a value? read
    from its source) weakly by the object: a bound method made afresh for each request was
    read and parsed again for every response, 0.4 ms of each article."""
    spider = site_spider(tmp_path)
    first, second = (
        spider.make_request(
            PendingRequest(f"{ROOT}/news/{number}.html", "parse_article", "on_error")
        )
        for number in (1, 2)
    )
    assert first.callback is second.callback and first.errback is second.errback
    assert first.callback == spider.parse_article and first.errback == spider.on_error

"""The failure log and the listing log: every lost URL a record, every record counted; a
failure without a response still a record, a body cut at DOWNLOAD_MAXSIZE a size limit, and
a failures file that cannot be written refused before the crawl starts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from scrapy import Spider, signals
from scrapy.exceptions import (
    CannotResolveHostError,
    CloseSpider,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadTimeoutError,
    DropItem,
    IgnoreRequest,
)
from scrapy.http import HtmlResponse, Request
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.test import get_crawler
from twisted.internet.error import DNSLookupError, TimeoutError
from twisted.python.failure import Failure

from newsextract.extensions.failures import (
    STAGES,
    FailureLog,
    describe_failure,
    failure_recorded,
)
from newsextract.extensions.jsonl import RecordPathError
from newsextract.extensions.listings import ListingLog, listing_fetched
from newsextract.extensions.outcome import FATAL_REASON, FATAL_STAT
from newsextract.items import ArticleItem, FailureItem, ListingItem, PageItem
from newsextract.pipelines import DropPage

URL = "http://127.0.0.1:8000/article/1.html"


def failure_of(error: BaseException) -> Failure:
    return Failure(error)  # type: ignore[no-untyped-call]


@pytest.mark.parametrize(
    ("error", "stage", "words"),
    [
        (CannotResolveHostError("nowhere.invalid"), "download", "DNS"),
        (DNSLookupError("nowhere.invalid"), "download", "DNS"),
        (DownloadTimeoutError("took 30 s"), "download", "timeout"),
        (TimeoutError("took 30 s"), "download", "timeout"),  # type: ignore[no-untyped-call]
        (DownloadConnectionRefusedError("refused"), "download", "connection"),
        (IgnoreRequest("Forbidden by robots.txt"), "robots", "robots.txt"),
        (IgnoreRequest("max redirections reached"), "redirect", "redirections"),
        (IgnoreRequest("Filtered offsite request to 'other.com'"), "offsite", "offsite"),
        (
            DownloadCancelledError("Received 9 bytes which is larger than download max size (8)"),
            "size-limit",
            "max size",
        ),
        (
            IgnoreRequest("body exceeded DOWNLOAD_MAXSIZE (8 B) during decompression"),
            "size-limit",
            "DOWNLOAD_MAXSIZE",
        ),
        (ValueError("odd"), "download", "ValueError"),
    ],
)
def test_describe_failure(error: Exception, stage: str, words: str) -> None:
    reason = describe_failure(failure_of(error))
    assert reason.stage == stage
    assert words in reason.reason
    assert reason.status is None


def test_describe_an_http_error() -> None:
    response = HtmlResponse(URL, status=503, request=Request(URL))
    reason = describe_failure(failure_of(HttpError(response)))
    assert (reason.stage, reason.reason, reason.status) == ("http", "HTTP 503", 503)


QUIET = {"LOGSTATS_INTERVAL": 0}  # Scrapy's periodic stats log needs a running reactor


def make_log(tmp_path: Path, **settings: Any) -> tuple[FailureLog, Any, Spider]:
    crawler = get_crawler(Spider, {**QUIET, "NEWSEXTRACT_DATA_DIR": str(tmp_path), **settings})
    log = FailureLog.from_crawler(crawler)
    spider = Spider("news")
    spider.site_name = "127.0.0.1"  # type: ignore[attr-defined]
    crawler.signals.send_catch_log(signals.spider_opened, spider=spider)
    return log, crawler, spider


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def page(url: str = URL) -> PageItem:
    return PageItem(url, b"<html></html>", "text/html", 200, "127.0.0.1", "2026-11-29T00:00:00")


def test_every_source_of_failure_becomes_a_line(tmp_path: Path) -> None:
    path = tmp_path / "out" / "%(name)s-failures.jsonl"
    log, crawler, spider = make_log(tmp_path, NEWSEXTRACT_FAILURES=str(path))
    send = crawler.signals.send_catch_log
    send(failure_recorded, failure=FailureItem(URL, "content-type", "image/png", 200, "s", "t"))
    send(
        signals.item_dropped,
        item=page(),
        response=None,
        spider=spider,
        exception=DropPage("no main text found", stage="extraction"),
    )
    send(
        signals.item_dropped,
        item=page(),
        response=None,
        spider=spider,
        exception=DropItem("someone else's reason"),
    )
    send(
        signals.item_error,
        item=page(),
        response=None,
        spider=spider,
        failure=failure_of(KeyError("boom")),
    )
    response = HtmlResponse(URL, status=200, request=Request(URL))
    send(
        signals.spider_error,
        failure=failure_of(RuntimeError("bad callback")),
        response=response,
        spider=spider,
    )
    looped = Request(URL, meta={"redirect_urls": ["http://127.0.0.1:8000/loop/a.html"]})
    send(signals.request_dropped, request=looped, spider=spider)
    send(signals.request_dropped, request=Request(URL), spider=spider)  # a repeated link
    send(signals.spider_closed, spider=spider, reason="finished")
    records = read(tmp_path / "out" / "news-failures.jsonl")
    assert [(r["stage"], r["url"]) for r in records] == [
        ("content-type", URL),
        ("extraction", URL),
        ("pipeline", URL),
        ("pipeline-error", URL),
        ("spider", URL),
        ("redirect", "http://127.0.0.1:8000/loop/a.html"),
    ]
    assert records[1] == {
        "url": URL,
        "stage": "extraction",
        "reason": "no main text found",
        "status": 200,
        "site": "127.0.0.1",
        "fetchedAt": "2026-11-29T00:00:00",
    }
    assert "KeyError" in records[3]["reason"] and "RuntimeError" in records[4]["reason"]
    stats = crawler.stats
    assert stats.get_value("newsextract/failures") == 6
    assert stats.get_value("newsextract/failures/extraction") == 1
    assert stats.get_value("newsextract/failures/redirect") == 1


def test_failures_are_counted_without_a_file_and_articles_are_counted(tmp_path: Path) -> None:
    log, crawler, spider = make_log(tmp_path, NEWSEXTRACT_FAILURES="none")
    crawler.signals.send_catch_log(
        failure_recorded, failure=FailureItem(URL, "http", "HTTP 404", 404)
    )
    article = ArticleItem(URL, "", "h", "b", "", "", [], "ja", "s", "t")
    crawler.signals.send_catch_log(signals.item_scraped, item=article, response=None, spider=spider)
    crawler.signals.send_catch_log(signals.item_scraped, item=page(), response=None, spider=spider)
    assert log.file is None
    assert crawler.stats.get_value("newsextract/failures/http") == 1
    assert crawler.stats.get_value("newsextract/articles") == 1
    assert list(tmp_path.iterdir()) == []


def test_failures_go_to_the_data_dir_by_default(tmp_path: Path) -> None:
    log, crawler, spider = make_log(tmp_path)
    crawler.signals.send_catch_log(failure_recorded, failure=FailureItem(URL, "http", "x", 500))
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    assert [r["url"] for r in read(tmp_path / "failures" / "news.jsonl")] == [URL]


def test_the_failure_file_is_appended_to_across_runs(tmp_path: Path) -> None:
    path = tmp_path / "failures.jsonl"
    for run in range(2):
        log, crawler, spider = make_log(tmp_path, NEWSEXTRACT_FAILURES=str(path))
        crawler.signals.send_catch_log(
            failure_recorded, failure=FailureItem(f"{URL}?{run}", "http", "HTTP 404", 404)
        )
        crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    assert [r["url"] for r in read(path)] == [f"{URL}?0", f"{URL}?1"]


def test_a_line_is_on_disk_before_the_crawl_ends(tmp_path: Path) -> None:
    path = tmp_path / "failures.jsonl"
    log, crawler, spider = make_log(tmp_path, NEWSEXTRACT_FAILURES=str(path))
    crawler.signals.send_catch_log(failure_recorded, failure=FailureItem(URL, "http", "x", 500))
    assert len(read(path)) == 1  # flushed: a SIGKILL now would keep it
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")


def test_listing_records(tmp_path: Path) -> None:
    crawler = get_crawler(Spider, {**QUIET, "NEWSEXTRACT_LISTINGS": str(tmp_path / "l.jsonl")})
    log = ListingLog.from_crawler(crawler)  # signals hold their receivers weakly: keep it
    spider = Spider("news")
    crawler.signals.send_catch_log(signals.spider_opened, spider=spider)
    for kind in ("listing", "listing", "sitemap"):
        listing = ListingItem("http://127.0.0.1/", kind, 10, 4, "127.0.0.1", "t")
        crawler.signals.send_catch_log(listing_fetched, listing=listing)
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    assert log.file is not None
    records = read(tmp_path / "l.jsonl")
    assert records[0] == {
        "url": "http://127.0.0.1/",
        "kind": "listing",
        "links": 10,
        "articleLinks": 4,
        "site": "127.0.0.1",
        "fetchedAt": "t",
    }
    assert crawler.stats.get_value("newsextract/pages/listing") == 2
    assert crawler.stats.get_value("newsextract/pages/sitemap") == 1


def test_a_reason_does_not_repeat_itself() -> None:
    error = CannotResolveHostError("DNS lookup failed: no results for hostname lookup: a.jp.")
    assert describe_failure(failure_of(error)).reason == (
        "DNS lookup failed: no results for hostname lookup: a.jp."
    )
    assert describe_failure(failure_of(DownloadTimeoutError(""))).reason == "timeout"


# --- failures without a response; bodies cut at DOWNLOAD_MAXSIZE; the file's template -------


def test_a_spider_error_without_a_response_is_a_record_with_the_request_url(
    tmp_path: Path,
) -> None:
    path = tmp_path / "failures.jsonl"
    log, crawler, spider = make_log(tmp_path, NEWSEXTRACT_FAILURES=str(path))
    failure = failure_of(DNSLookupError("nowhere.invalid"))
    failure.request = Request(URL, meta={"redirect_urls": ["http://127.0.0.1:8000/old"]})  # type: ignore[attr-defined]
    results = crawler.signals.send_catch_log(
        signals.spider_error, failure=failure, response=None, spider=spider
    )
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    assert [result for _, result in results if isinstance(result, Failure)] == []
    (record,) = read(path)
    assert (record["url"], record["stage"], record["status"]) == (
        "http://127.0.0.1:8000/old",
        "spider",
        None,
    )
    assert "DNSLookupError" in record["reason"]
    assert crawler.stats.get_value(FATAL_STAT) is None  # one request failed, not the crawl


def test_an_error_in_the_start_requests_is_recorded_and_stops_the_crawl(tmp_path: Path) -> None:
    path = tmp_path / "failures.jsonl"
    log, crawler, spider = make_log(tmp_path, NEWSEXTRACT_FAILURES=str(path))
    crawler.signals.send_catch_log(
        signals.spider_error,
        failure=failure_of(AttributeError("'Spider' object has no attribute 'parse_v0'")),
        response=None,
        spider=spider,
    )
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    (record,) = read(path)
    assert (record["url"], record["stage"]) == ("", "spider")
    assert "parse_v0" in str(crawler.stats.get_value(FATAL_STAT))


def test_a_body_cut_at_the_max_size_without_a_length_is_a_size_limit(tmp_path: Path) -> None:
    """Scrapy's HTTP/1.1 handler cancels such a download: the errback sees a bare
    DownloadCancelledError, with no words to tell it from any other cancellation."""
    log, crawler, spider = make_log(tmp_path, DOWNLOAD_MAXSIZE=10_000)
    request = Request(URL)
    for _ in range(3):
        crawler.signals.send_catch_log(
            signals.bytes_received, data=b"x" * 4096, request=request, spider=spider
        )
    failure = failure_of(DownloadCancelledError(""))
    failure.request = request  # type: ignore[attr-defined]
    reason = describe_failure(failure)
    assert reason.stage == "size-limit"
    assert "DOWNLOAD_MAXSIZE (10000 bytes)" in reason.reason
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")


def test_a_cancelled_download_under_the_max_size_stays_a_download_failure(
    tmp_path: Path,
) -> None:
    log, crawler, spider = make_log(tmp_path, DOWNLOAD_MAXSIZE=10_000)
    request = Request(URL, meta={"download_maxsize": 0})  # no limit for this one
    crawler.signals.send_catch_log(
        signals.bytes_received, data=b"x" * 20_000, request=request, spider=spider
    )
    small = Request(URL)
    crawler.signals.send_catch_log(
        signals.bytes_received, data=b"x" * 9_000, request=small, spider=spider
    )
    for cancelled in (request, small):
        failure = failure_of(DownloadCancelledError(""))
        failure.request = cancelled  # type: ignore[attr-defined]
        assert describe_failure(failure).stage == "download"
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("out/%(name)s-failures.jsonl", "out/news-failures.jsonl"),
        ("out/%(site_name)s.jsonl", "out/127.0.0.1.jsonl"),
        ("out/100%%-%(name)s.jsonl", "out/100%-news.jsonl"),
    ],
)
def test_the_failure_file_takes_the_feed_placeholders(
    tmp_path: Path, template: str, expected: str
) -> None:
    log, crawler, spider = make_log(tmp_path, NEWSEXTRACT_FAILURES=str(tmp_path / template))
    crawler.signals.send_catch_log(failure_recorded, failure=FailureItem(URL, "http", "x", 500))
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    assert [r["url"] for r in read(tmp_path / expected)] == [URL]


def test_the_time_placeholder_names_the_crawl_start(tmp_path: Path) -> None:
    log, crawler, spider = make_log(tmp_path, NEWSEXTRACT_FAILURES=str(tmp_path / "%(time)s.jsonl"))
    crawler.signals.send_catch_log(failure_recorded, failure=FailureItem(URL, "http", "x", 500))
    crawler.signals.send_catch_log(signals.spider_closed, spider=spider, reason="finished")
    (written,) = tmp_path.glob("*.jsonl")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.jsonl", written.name)


@pytest.mark.parametrize(
    ("template", "words"),
    [
        ("failures-100%.jsonl", "is not a placeholder: write %% for a literal %"),
        ("failures-%s.jsonl", "is not a placeholder"),
        ("failures-%(nope)s.jsonl", "no value for %(nope)s"),
        ("failures-%(name)d.jsonl", "NEWSEXTRACT_FAILURES="),
    ],
)
def test_a_template_the_log_cannot_fill_is_refused_before_the_crawl(
    tmp_path: Path, template: str, words: str
) -> None:
    crawler = get_crawler(Spider, {**QUIET, "NEWSEXTRACT_FAILURES": str(tmp_path / template)})
    crawler.spider = Spider("news")  # made before the extensions, as in a crawl
    with pytest.raises(RecordPathError) as refused:
        FailureLog.from_crawler(crawler)
    assert words in str(refused.value)
    assert str(refused.value).startswith("NEWSEXTRACT_FAILURES=")
    assert list(tmp_path.iterdir()) == []


def test_a_failure_file_that_cannot_be_opened_stops_the_crawl_before_it_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "blocker").write_text("a file, not a directory", encoding="utf-8")
    path = tmp_path / "blocker" / "failures.jsonl"
    crawler = get_crawler(Spider, {**QUIET, "NEWSEXTRACT_FAILURES": str(path)})
    log = FailureLog.from_crawler(crawler)
    with pytest.raises(CloseSpider) as closed:
        log.spider_opened(Spider("news"))
    assert closed.value.reason == FATAL_REASON
    (message,) = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert message.startswith(f"NEWSEXTRACT_FAILURES: cannot open {path} (FileExistsError")


def test_export_is_a_stage() -> None:
    assert "export" in STAGES


def test_a_listings_template_the_log_cannot_fill_names_its_setting(tmp_path: Path) -> None:
    path = tmp_path / "listings-100%.jsonl"
    crawler = get_crawler(Spider, {**QUIET, "NEWSEXTRACT_LISTINGS": str(path)})
    crawler.spider = Spider("news")
    with pytest.raises(RecordPathError) as refused:
        ListingLog.from_crawler(crawler)
    assert str(refused.value).startswith("NEWSEXTRACT_LISTINGS=")
    assert list(tmp_path.iterdir()) == []

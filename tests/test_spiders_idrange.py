"""The ``idrange`` spider: ids, padding, steps, stopping after misses, resuming."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from scrapy.http import HtmlResponse, Request
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure

from newsextract.items import PageItem
from newsextract.spiders.base import VALUE_META
from newsextract.spiders.idrange import IdRange, IdRangeSpider, MissRun, check_template, parse_ids
from newsextract.state import StateStore, content_hash

TEMPLATE = "http://127.0.0.1:8000/news/{id:05d}.html"
PAGE = b"<html><body><p>An article.</p></body></html>"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1000-2000", IdRange(1000, 2000, 1)),
        ("1000-2000:5", IdRange(1000, 2000, 5)),
        (" 7 - 9 : 2 ", IdRange(7, 9, 2)),
        ("7-", IdRange(7, None, 1)),
        ("7-:10", IdRange(7, None, 10)),
        ("42", IdRange(42, 42, 1)),
    ],
)
def test_parse_ids(text: str, expected: IdRange) -> None:
    assert parse_ids(text) == expected


@pytest.mark.parametrize("text", ["", "a-b", "2000-1000", "1-10:0", "-5", "1-2-3"])
def test_parse_ids_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="ids"):
        parse_ids(text)


def test_id_range_after_keeps_the_step() -> None:
    ids = IdRange(1000, 2000, 5)
    assert [ids.after(999), ids.after(1000), ids.after(1003), ids.after(1005)] == [
        1000,
        1005,
        1005,
        1010,
    ]
    assert ids.contains(2000) and not ids.contains(2001) and not ids.contains(999)


def test_templates() -> None:
    assert check_template(TEMPLATE).format(id=42) == "http://127.0.0.1:8000/news/00042.html"
    for bad in ("http://a.jp/news.html", "http://a.jp/{n}.html", "http://a.jp/{id}/{page}"):
        with pytest.raises(ValueError, match="url_template"):
            check_template(bad)


def test_miss_run_counts_consecutive_misses_in_id_order() -> None:
    run = MissRun(last_hit=0, step=1, max_misses=3)
    run.miss(3)
    run.miss(2)
    assert not run.exhausted()  # 1 has not answered yet
    run.miss(1)
    assert run.exhausted()
    run.hit(4)  # an answer from further on: the gap was bridged
    assert not run.exhausted()
    for value in (5, 6, 7):
        run.miss(value)
    assert run.exhausted()


def test_miss_run_at_the_threshold() -> None:
    run = MissRun(last_hit=10, step=2, max_misses=2)
    run.miss(12)
    assert not run.exhausted()  # one below the threshold
    run.miss(14)
    assert run.exhausted()  # at it


def make_spider(tmp_path: Path, **kwargs: Any) -> IdRangeSpider:
    settings = {"NEWSEXTRACT_DATA_DIR": str(tmp_path / "data"), "NEWSEXTRACT_MAX_MISSES": 3}
    crawler = get_crawler(IdRangeSpider, settings)
    arguments = {"url_template": TEMPLATE, "ids": "1-100", "window": "2", **kwargs}
    spider = IdRangeSpider.from_crawler(crawler, **arguments)
    crawler.spider = spider
    return spider


def start(spider: IdRangeSpider) -> list[Request]:
    async def collect() -> list[Request]:
        return [request async for request in spider.start()]

    return asyncio.run(collect())


def answer(spider: IdRangeSpider, request: Request, found: bool) -> list[Any]:
    if found:
        response = HtmlResponse(
            request.url, body=PAGE, headers={"Content-Type": "text/html"}, request=request
        )
        return list(spider.parse_id(response))
    response = HtmlResponse(request.url, status=404, request=request)
    failure = Failure(HttpError(response))  # type: ignore[no-untyped-call]
    failure.request = request  # type: ignore[attr-defined]
    return list(spider.on_id_error(failure))


def test_the_first_requests_fill_the_window(tmp_path: Path) -> None:
    spider = make_spider(tmp_path, ids="10-100:10")
    requests = start(spider)
    assert [r.url for r in requests] == [TEMPLATE.format(id=10), TEMPLATE.format(id=20)]
    assert [r.meta[VALUE_META] for r in requests] == [10, 20]
    assert spider.allowed_domains == ["127.0.0.1"]
    assert spider.max_misses == 3  # from the setting


def test_each_answer_asks_for_the_next_id_until_misses_run_out(tmp_path: Path) -> None:
    spider = make_spider(tmp_path)
    queue = start(spider)  # ids 1, 2
    seen: list[int] = []
    pages = {1, 2, 4}  # 3 is a gap; after 4 nothing more
    while queue:
        request = queue.pop(0)
        value = request.meta[VALUE_META]
        seen.append(value)
        output = answer(spider, request, value in pages)
        queue += [entry for entry in output if isinstance(entry, Request)]
        assert all(isinstance(entry, Request | PageItem) for entry in output)
    assert seen == [1, 2, 3, 4, 5, 6, 7, 8]  # 3 misses after 4 (5, 6, 7), 8 was in flight


def test_the_range_end_is_respected(tmp_path: Path) -> None:
    spider = make_spider(tmp_path, ids="1-3")
    queue = start(spider)
    seen = []
    while queue:
        request = queue.pop(0)
        seen.append(request.meta[VALUE_META])
        queue += [e for e in answer(spider, request, True) if isinstance(e, Request)]
    assert seen == [1, 2, 3]


def test_a_rerun_resumes_after_the_last_id_found_and_skips_known(tmp_path: Path) -> None:
    first = make_spider(tmp_path, ids="1-2")
    for request in start(first):
        answer(first, request, True)  # ids 1 and 2 found, the end of that run's range
    with StateStore(tmp_path / "data" / "state.sqlite3") as store:
        for value in (1, 2, 4):  # 4 was harvested by some other crawl
            store.record_harvest(TEMPLATE.format(id=value), content_hash(str(value)))
            store.clear_pending(first.crawl_key(), TEMPLATE.format(id=value))
        assert store.pending(first.crawl_key()) == []
    second = make_spider(tmp_path)
    assert [r.meta[VALUE_META] for r in start(second)] == [3, 5]  # 4 is known


def test_a_killed_id_crawl_gets_its_open_ids_back(tmp_path: Path) -> None:
    first = make_spider(tmp_path)
    one, two = start(first)
    answer(first, two, False)  # 2 missed and recorded; 1 was in flight when the crawl died
    second = make_spider(tmp_path)
    requests = start(second)
    assert requests[0].meta[VALUE_META] == 1 and requests[0].dont_filter
    assert requests[0].callback == second.parse_id and requests[0].errback == second.on_id_error


def test_the_spider_needs_a_template_and_ids(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="url_template"):
        make_spider(tmp_path, url_template="")

"""Id ranges in shared mode, against a real Redis: chunks claimed so that no two workers probe
one id, the stop rule counted across workers, a dead worker's chunk handed on, rounds; and
an id-range crawl split across two real ``scrapy crawl`` workers."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from crawl_runner import CRAWL_TIMEOUT, CrawlRunner, read_jsonl
from mirror import NEWS_IDS, Mirror
from scrapy.exceptions import DontCloseSpider
from scrapy.http import HtmlResponse, Request
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure

from newsextract.sharedmode.frontier import SharedScheduler
from newsextract.sharedmode.idpool import IdPool
from newsextract.sharedmode.state import RedisStateStore
from newsextract.spiders.base import VALUE_META
from newsextract.spiders.idrange import IdRangeSpider
from newsextract.state import PendingRequest

PREFIX = "test"
CRAWL = "idrange http://a.jp/{id}"
#: Long enough that a loaded machine does not let a live worker's lease lapse.
LEASE = 3.0


@pytest.fixture
def stores(redis_url: str) -> Iterator[list[RedisStateStore]]:
    opened: list[RedisStateStore] = []
    yield opened
    for store in opened:
        store.close()


def pool(
    stores: list[RedisStateStore],
    url: str,
    name: str,
    ids: tuple[int, int | None, int] = (1, 100, 1),
    max_misses: int = 3,
    chunk: int = 4,
) -> IdPool:
    store = RedisStateStore(url, PREFIX, name, LEASE)
    stores.append(store)
    start, end, step = ids
    made = IdPool(store, CRAWL, step, end, max_misses, chunk)
    made.begin(start)
    return made


def never_open(value: int) -> bool:
    return False


def take(made: IdPool, count: int) -> list[int | None]:
    return [made.take(never_open) for _ in range(count)]


def test_two_workers_get_disjoint_chunks_that_cover_the_range(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    a = pool(stores, redis_url, "a", ids=(10, 100, 10))
    b = pool(stores, redis_url, "b", ids=(10, 100, 10))
    assert take(a, 2) == [10, 20]
    assert take(b, 5) == [50, 60, 70, 80, 90]  # a holds the first chunk (10-40)
    assert take(a, 3) == [30, 40, None]  # b holds the last chunk: nothing left to claim
    assert take(b, 2) == [100, None]


def test_the_stop_rule_counts_every_workers_misses(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    a, b = pool(stores, redis_url, "a"), pool(stores, redis_url, "b")
    assert take(a, 2) == [1, 2] and take(b, 2) == [5, 6]
    a.answered(1, hit=True)
    a.answered(2, hit=False)
    b.answered(5, hit=True)  # the highest page: the misses that count come after it
    b.answered(6, hit=False)
    assert take(b, 1) == [7]
    b.answered(7, hit=False)
    assert not a.exhausted()  # two misses after 5: one below the threshold
    assert take(a, 1) == [3]
    a.answered(3, hit=False)  # below the highest page: does not count
    assert not b.exhausted()
    assert take(b, 1) == [8]
    b.answered(8, hit=False)  # three after 5: at the threshold
    assert a.exhausted() and b.exhausted()
    assert take(b, 1) == [None]
    assert take(a, 2) == [4, None]  # before the highest page: probed all the same
    a.answered(4, hit=False)
    a.answered(9, hit=True)  # a request still in flight found a page: the crawl goes on
    assert not a.exhausted()


def test_a_slow_workers_chunk_below_the_highest_page_is_probed_after_the_crawl_ran_out(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    slow, fast = pool(stores, redis_url, "slow"), pool(stores, redis_url, "fast")
    assert take(slow, 1) == [1]  # slow holds 1-4 and has asked for 1 only
    for value in take(fast, 8):  # 5-12: a page at 9, then three misses
        assert value is not None
        fast.answered(value, hit=value <= 9)
    assert fast.exhausted() and take(fast, 1) == [None]
    assert take(slow, 4) == [2, 3, 4, None]


def test_a_dead_workers_chunk_below_the_highest_page_is_taken_up_after_the_crawl_ran_out(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    dead, alive = pool(stores, redis_url, "dead"), pool(stores, redis_url, "alive")
    assert take(dead, 1) == [1]
    dead.answered(1, hit=True)
    for value in take(alive, 8):  # 5-12: a page at 9, then three misses
        assert value is not None
        alive.answered(value, hit=value <= 9)
    dead.store.close()
    assert take(alive, 4) == [2, 3, 4, None]


def test_a_dead_workers_chunk_goes_to_the_next_claim_without_what_it_did(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    dead = pool(stores, redis_url, "dead", chunk=6)
    assert take(dead, 4) == [1, 2, 3, 4]
    dead.answered(1, hit=True)
    dead.answered(2, hit=False)
    opened = PendingRequest("http://a.jp/3", "parse_id", "on_id_error", 3)
    dead.store.add_pending(CRAWL, opened)  # in flight when it died; 4 was never requested
    alive = pool(stores, redis_url, "alive", chunk=6)
    assert take(alive, 1) == [7]  # the dead worker's lease still holds
    dead.store.close()  # its lease is gone: as after a kill, once the lease has lapsed

    def is_open(value: int) -> bool:
        return alive.store.is_pending(CRAWL, f"http://a.jp/{value}")

    assert [alive.take(is_open) for _ in range(7)] == [8, 9, 10, 11, 12, 4, 5]
    assert alive.take(is_open) == 6
    assert alive.take(is_open) == 13


def test_a_worker_that_closed_while_exhausted_leaves_the_next_run_a_new_round(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    first = pool(stores, redis_url, "first", max_misses=2)
    for value in take(first, 3):
        assert value is not None
        first.answered(value, hit=value == 1)
    assert first.exhausted()
    joining = pool(stores, redis_url, "joining", max_misses=2)  # the round's holder is alive
    assert joining.base == 1 and joining.take(never_open) is None
    first.store.close()
    joining.store.close()
    later = pool(stores, redis_url, "later", ids=(2, 100, 1), max_misses=2)
    assert later.base == 2  # a new round, from the id after the last page
    assert take(later, 2) == [2, 3]


def test_a_finished_bounded_range_is_begun_again_by_the_next_run(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    first = pool(stores, redis_url, "first", ids=(1, 5, 1), max_misses=50)
    assert take(first, 6) == [1, 2, 3, 4, 5, None]
    first.store.close()
    second = pool(stores, redis_url, "second", ids=(4, 5, 1), max_misses=50)
    assert second.base == 4 and take(second, 3) == [4, 5, None]


def test_a_worker_that_starts_while_a_member_waits_for_its_last_answers_joins_the_round(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    first = pool(stores, redis_url, "first", max_misses=2)
    for value in take(first, 4):  # chunk 1-4: a page at 2, then two misses
        assert value is not None
        first.answered(value, hit=value <= 2)
    assert first.exhausted() and take(first, 1) == [None]  # its chunk is given back
    late = pool(stores, redis_url, "late", ids=(3, 100, 1), max_misses=2)
    assert late.base == 1 and take(late, 1) == [None]  # not a new round under the first


def test_a_worker_whose_round_was_begun_anew_takes_no_more_ids_and_is_not_counted(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    stale = pool(stores, redis_url, "stale", max_misses=2)
    assert take(stale, 1) == [1]
    stale.store.client.delete(stale.key("members"))  # as if its lease had lapsed
    stale.answered(1, hit=True)
    stale.answered(2, hit=False)
    stale.answered(3, hit=False)
    assert stale.exhausted()
    fresh = pool(stores, redis_url, "fresh", ids=(10, 100, 1), max_misses=2)
    assert fresh.base == 10
    stale.answered(11, hit=True)  # a late answer in the old round's numbering
    assert take(stale, 1) == [None]
    assert take(fresh, 3) == [10, 11, 12]
    fresh.answered(10, hit=True)
    fresh.answered(11, hit=False)
    assert not fresh.exhausted()


# --- two real workers ----------------------------------------------------------------------


def test_an_id_crawl_split_across_two_workers_probes_each_id_once(
    mirror_site: Mirror, crawl_runner: CrawlRunner, redis_url: str, tmp_path: Path
) -> None:
    max_misses = 5
    args = {
        "url_template": mirror_site.url("/news/{id}.html"),
        "ids": "1-400",
        "max_misses": str(max_misses),
    }
    settings = {
        "NEWSEXTRACT_REDIS_URL": redis_url,
        "NEWSEXTRACT_ID_CHUNK": "7",  # several chunks each, so the two interleave
        "NEWSEXTRACT_WORKER_LEASE": "5",
        # Slow enough that both workers are running before the ids run out (one worker alone
        # takes some 20 s over the 45 ids), on a loaded machine too.
        "DOWNLOAD_DELAY": "0.4",
        "RANDOMIZE_DOWNLOAD_DELAY": "False",
        "LOG_LEVEL": "DEBUG",  # each request's fate, should an id go unasked
    }
    position = crawl_runner.server.log_position()
    workers = [
        crawl_runner.start(tmp_path / name, "idrange", args, settings=settings)
        for name in ("a", "b")
    ]
    deadline = time.monotonic() + CRAWL_TIMEOUT
    for process in workers:
        process.wait(timeout=max(1.0, deadline - time.monotonic()))
    logs = [(tmp_path / name / "crawl.log").read_text(errors="replace") for name in ("a", "b")]
    assert [process.returncode for process in workers] == [0, 0], logs[0][-3000:] + logs[1][-3000:]
    requested = Counter(
        int(path[len("/news/") : -len(".html")])
        for method, path, _ in crawl_runner.server.requests_since(position)
        if method == "GET" and path.startswith("/news/")
    )
    assert [value for value, count in requested.items() if count > 1] == []
    unasked = sorted(set(NEWS_IDS) - set(requested))
    assert unasked == [], unasked_report(unasked, mirror_site, tmp_path, logs)
    in_flight = 2 * 16  # each worker's in-flight requests when the misses pile up
    assert max(requested) <= max(NEWS_IDS) + max_misses + in_flight
    urls = [str(r["url"]) for name in ("a", "b") for r in read_jsonl(tmp_path / name / "out.jsonl")]
    assert sorted(urls) == sorted(mirror_site.url(f"/news/{i}.html") for i in mirror_site.news_ids)
    for name in ("a", "b"):  # both took part: records or failure records (the gaps)
        answers = read_jsonl(tmp_path / name / "out.jsonl") + read_jsonl(
            tmp_path / name / "failures.jsonl"
        )
        assert answers, f"worker {name} probed nothing"


def unasked_report(unasked: list[int], mirror_site: Mirror, tmp_path: Path, logs: list[str]) -> str:
    """What each worker says of the ids the site was never asked for."""
    urls = {mirror_site.url(f"/news/{value}.html") for value in unasked}
    lines = []
    for name, log in zip(("a", "b"), logs, strict=True):
        failures = read_jsonl(tmp_path / name / "failures.jsonl")
        lines += [f"{name} failure: {r}" for r in failures if r.get("url") in urls]
        mentions = [line for line in log.splitlines() if any(url in line for url in urls)]
        lines += [f"{name} log: {line}" for line in mentions]
        lines.append(f"{name} log tail: {log[-2000:]}")
    return "\n".join(lines)


# --- the spider in shared mode -------------------------------------------------------------

TEMPLATE = "http://127.0.0.1:8000/news/{id:05d}.html"


def shared_spider(redis_url: str, tmp_path: Path, name: str, **kwargs: str) -> IdRangeSpider:
    settings = {
        "NEWSEXTRACT_DATA_DIR": str(tmp_path / "data"),
        "NEWSEXTRACT_MAX_MISSES": 3,
        "NEWSEXTRACT_REDIS_URL": redis_url,
        "NEWSEXTRACT_REDIS_PREFIX": PREFIX,
        "NEWSEXTRACT_WORKER_ID": name,
        "NEWSEXTRACT_ID_CHUNK": 5,
    }
    crawler = get_crawler(IdRangeSpider, settings)
    arguments = {"url_template": TEMPLATE, "ids": "1-100", "window": "2", **kwargs}
    spider = IdRangeSpider.from_crawler(crawler, **arguments)
    crawler.spider = spider
    return spider


def start(spider: IdRangeSpider) -> list[Request]:
    async def collect() -> list[Request]:
        return [request async for request in spider.start()]

    return asyncio.run(collect())


def missed(spider: IdRangeSpider, request: Request) -> list[Request]:
    response = HtmlResponse(request.url, status=404, request=request)
    failure = Failure(HttpError(response))  # type: ignore[no-untyped-call]
    failure.request = request  # type: ignore[attr-defined]
    return [entry for entry in spider.on_id_error(failure) if isinstance(entry, Request)]


def test_a_dead_workers_ids_are_taken_up_by_the_next_spider_once_each(
    redis_url: str, tmp_path: Path
) -> None:
    first = shared_spider(redis_url, tmp_path, "first")
    second = shared_spider(redis_url, tmp_path, "second")
    third = shared_spider(redis_url, tmp_path, "third")
    try:
        one, two = start(first)
        assert [one.meta[VALUE_META], two.meta[VALUE_META]] == [1, 2]
        assert [r.meta[VALUE_META] for r in start(second)] == [6, 7]  # the next chunk
        assert [r.meta[VALUE_META] for r in missed(first, two)] == [3]
        first.close_ledger()  # the first worker is gone: 1 and 3 in flight, 4 and 5 untried
        recovered = start(third)
        assert [r.meta[VALUE_META] for r in recovered] == [1, 3, 4, 5]
        assert [r.dont_filter for r in recovered] == [True, True, False, False]
    finally:
        second.close_ledger()
        third.close_ledger()


def test_a_worker_whose_requests_another_answered_takes_the_rest_of_its_chunk_when_idle(
    redis_url: str, tmp_path: Path
) -> None:
    first = shared_spider(redis_url, tmp_path, "first")
    second = shared_spider(redis_url, tmp_path, "second")
    try:
        one, two = start(first)  # ids 1 and 2 of the first chunk (1-5)
        assert [r.meta[VALUE_META] for r in start(second)] == [6, 7]
        # The queue is shared: the second worker fetched both of the first's requests, and
        # their answers took its own next ids. The first has nothing in flight.
        assert [r.meta[VALUE_META] for r in missed(second, one)] == [8]
        assert [r.meta[VALUE_META] for r in missed(second, two)] == [9]
        assert [r.meta[VALUE_META] for r in first.idle_requests()] == [3, 4]
    finally:
        first.close_ledger()
        second.close_ledger()


def test_an_idle_worker_is_kept_open_while_its_spider_still_has_requests(
    redis_url: str, tmp_path: Path
) -> None:
    spider = shared_spider(redis_url, tmp_path, "only")
    crawled: list[Request] = []
    scheduler = SharedScheduler.from_crawler(spider.crawler)
    spider.crawler.engine = SimpleNamespace(crawl=crawled.append, _slot=None)
    try:
        scheduler.open(spider)
        start(spider)
        with pytest.raises(DontCloseSpider):
            scheduler.spider_idle()
        assert [r.meta[VALUE_META] for r in crawled] == [3, 4]
    finally:
        scheduler.close("finished")
        spider.close_ledger()

"""Exported articles' requests are closed together, in one transaction: until then they stay
open in the store, which a re-run answers by closing them unfetched (they are harvested)."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsextract.spiders.ledger import EXPORTED_CLOSE_BATCH_DEFAULT, CrawlLedger
from newsextract.state import PendingRequest, StateStore, content_hash

CRAWL = "site https://a.jp/"


def article(number: int) -> PendingRequest:
    return PendingRequest(f"https://a.jp/{number}", "parse_article", "on_error")


@pytest.fixture
def store(tmp_path: Path) -> StateStore:
    return StateStore(tmp_path / "state.sqlite3")


def open_urls(store: StateStore) -> list[str]:
    return [request.url for request in store.pending(CRAWL)]


def test_exported_requests_are_closed_a_batch_at_a_time(store: StateStore) -> None:
    ledger = CrawlLedger(CRAWL, store)
    count = EXPORTED_CLOSE_BATCH_DEFAULT + 3
    for number in range(count):
        ledger.take(article(number))
        store.record_harvest(article(number).url, content_hash(f"story {number}"))
    for number in range(count - 1):
        ledger.close_exported(article(number).url)
    assert open_urls(store) == [article(n).url for n in range(EXPORTED_CLOSE_BATCH_DEFAULT, count)]
    ledger.flush()
    assert open_urls(store) == [article(count - 1).url]


def test_a_request_opened_again_is_not_closed_by_an_earlier_export(store: StateStore) -> None:
    ledger = CrawlLedger(CRAWL, store)
    ledger.take(article(1))
    store.record_harvest(article(1).url, content_hash("the story"))
    ledger.close_exported(article(1).url)
    ledger.redirected(["https://a.jp/old/1"], article(1))  # opens it again
    ledger.flush()
    assert open_urls(store) == [article(1).url]


def test_a_killed_crawls_exported_requests_are_closed_unfetched_by_the_next(
    store: StateStore, tmp_path: Path
) -> None:
    from newsextract.spiders.site import SiteSpider

    ledger = CrawlLedger(CRAWL, store)
    ledger.take(article(1))
    store.record_harvest(article(1).url, content_hash("the story"))
    ledger.close_exported(article(1).url)  # then killed: no flush
    store.close()
    spider = SiteSpider(start_url="https://a.jp/", allow=r"/\d+$")
    spider.ledger = CrawlLedger(CRAWL, StateStore(tmp_path / "state.sqlite3"))
    assert list(spider.recovered_requests()) == []
    assert spider.ledger.store is not None and spider.ledger.store.pending(CRAWL) == []


def test_an_export_the_store_does_not_hold_as_harvested_is_closed_at_once(
    store: StateStore,
) -> None:
    ledger = CrawlLedger(CRAWL, store)
    ledger.take(article(1))  # no harvest stage recorded it, or another crawl had its text
    ledger.close_exported(article(1).url)
    assert open_urls(store) == []


def test_once_the_store_is_closed_nothing_is_kept_to_close(
    store: StateStore, tmp_path: Path
) -> None:
    ledger = CrawlLedger(CRAWL, store)
    ledger.take(article(1))
    store.close()
    ledger.close_exported(article(1).url)  # a feed stored at the end: after the store closed
    ledger.flush()
    assert open_urls(StateStore(tmp_path / "state.sqlite3")) == [article(1).url]
    CrawlLedger(CRAWL, None).close_exported(article(2).url)  # no store: nothing to close

"""The crawl ledger after an upgrade: open requests naming spider methods that are gone are
handed back through the generic callback (or dropped), with one warning, instead of breaking
every later start of the crawl; and a store that failed is not asked again from the signal
handlers, which would only log its error again."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from newsextract.spiders.ledger import CrawlLedger
from newsextract.state import PendingRequest, StateStore, StateStoreError, content_hash

CRAWL = "site https://a.jp/"


class Spider:
    """The methods a spider of this version has."""

    def parse(self, response: Any) -> None: ...
    def parse_article(self, response: Any) -> None: ...
    def on_error(self, failure: Any) -> None: ...


class BareSpider:
    """A spider with neither the old methods nor the generic ones."""

    def parse_article(self, response: Any) -> None: ...


@pytest.fixture
def store(tmp_path: Path) -> StateStore:
    store = StateStore(tmp_path / "state.sqlite3")
    for request in (
        PendingRequest("https://a.jp/1", "parse_article", "on_error"),
        PendingRequest("https://a.jp/2", "parse_article_v0", "on_error"),
        PendingRequest("https://a.jp/3", "parse_article", "on_error_v0", 3),
    ):
        store.add_pending(CRAWL, request)
    return store


def test_requests_naming_lost_methods_are_handed_back_through_parse(
    store: StateStore, caplog: pytest.LogCaptureFixture
) -> None:
    recovered = CrawlLedger(CRAWL, store).recover(Spider())
    assert recovered == [
        PendingRequest("https://a.jp/1", "parse_article", "on_error"),
        PendingRequest("https://a.jp/2", "parse", "on_error"),
        PendingRequest("https://a.jp/3", "parse_article", "on_error", 3),
    ]
    assert store.pending(CRAWL) == recovered  # the store says so too, for a crash now
    (warning,) = [r for r in caplog.records if r.levelname == "WARNING"]
    message = warning.getMessage()
    assert message.startswith("2 open requests left by an earlier run of 'site https://a.jp/'")
    assert (
        "(on_error_v0, parse_article_v0)" in message and "2 handed back through parse()" in message
    )
    store.close()


def test_requests_the_spider_cannot_take_at_all_are_dropped(
    store: StateStore, caplog: pytest.LogCaptureFixture
) -> None:
    ledger = CrawlLedger(CRAWL, store)
    assert ledger.recover(BareSpider()) == []
    assert store.pending(CRAWL) == []
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "0 handed back through parse(), 3 dropped" in warning
    assert ledger.requested == set()  # dropped: a listing that links to them asks again
    store.close()


def test_without_a_spider_nothing_is_checked(store: StateStore) -> None:
    assert len(CrawlLedger(CRAWL, store).recover()) == 3
    store.close()


def test_a_failed_store_is_not_asked_again_from_the_signal_handlers(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    told: list[StateStoreError] = []
    store = StateStore(path, busy_timeout=0.2, on_error=told.append)
    store.record_harvest("https://a.jp/0", content_hash("zero"))
    ledger = CrawlLedger(CRAWL, store)
    with closing(sqlite3.connect(path, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        ledger.close("https://a.jp/1")  # item_done, request_dropped: no error raised again
        ledger.paused()  # spider_closed
        holder.execute("ROLLBACK")
    assert len(told) == 1
    with pytest.raises(StateStoreError):  # a callback still learns of it (a failure record)
        ledger.open(PendingRequest("https://a.jp/2", "parse", "on_error"))
    store.close()
    ledger.close("https://a.jp/1")  # after the spider closed its store: nothing to do

"""The harvest state store: two connections (two crawls), duplicates, id progress, pending."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsextract.state import (
    PendingRequest,
    StateStore,
    content_hash,
    open_store,
    state_enabled,
    state_path,
)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "data" / "state.sqlite3"


def test_a_harvest_is_seen_by_a_second_connection(db: Path) -> None:
    with StateStore(db) as first, StateStore(db) as second:
        assert not second.is_harvested("https://a.jp/1")
        assert first.record_harvest("https://a.jp/1", content_hash("text one")) is None
        assert second.is_harvested("https://a.jp/1")
        assert second.harvested_count() == 1


def test_the_store_survives_a_reopen(db: Path) -> None:
    with StateStore(db) as store:
        store.record_harvest("https://a.jp/1", content_hash("one"), "a.jp", "2026-11-29T00:00:00")
    with StateStore(db) as store:
        assert store.is_harvested("https://a.jp/1")
        assert not store.is_harvested("https://a.jp/2")


def test_the_same_text_under_another_url_is_a_duplicate(db: Path) -> None:
    with StateStore(db) as first, StateStore(db) as second:
        first.record_harvest("https://a.jp/1", content_hash("the story"))
        assert second.record_harvest("https://a.jp/amp/1", content_hash("the  story\n")) == (
            "https://a.jp/1"
        )
        assert not first.is_harvested("https://a.jp/amp/1")


def test_the_same_url_again_updates_its_hash(db: Path) -> None:
    with StateStore(db) as store:
        store.record_harvest("https://a.jp/1", content_hash("old"))
        assert store.record_harvest("https://a.jp/1", content_hash("corrected")) is None
        assert store.record_harvest("https://a.jp/2", content_hash("old")) is None
        assert store.harvested_count() == 2


def test_the_store_uses_wal_so_readers_never_block(db: Path) -> None:
    with StateStore(db) as store:
        mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_progress_only_moves_forward(db: Path) -> None:
    with StateStore(db) as first, StateStore(db) as second:
        assert first.progress("idrange x") is None
        first.record_progress("idrange x", 1200)
        second.record_progress("idrange x", 1100)
        assert first.progress("idrange x") == 1200
        second.record_progress("idrange x", 1300)
        assert first.progress("idrange x") == 1300
        assert first.progress("idrange y") is None


def test_pending_requests_are_kept_per_crawl_until_cleared(db: Path) -> None:
    with StateStore(db) as store:
        store.add_pending("site a", PendingRequest("https://a.jp/1", "parse_article", "on_error"))
        store.add_pending("site a", PendingRequest("https://a.jp/7", "parse_id", "on_id_error", 7))
        store.add_pending("site b", PendingRequest("https://b.jp/", "parse", "on_error"))
        store.clear_pending("site a", "https://a.jp/1")
    with StateStore(db) as store:
        assert store.pending("site a") == [
            PendingRequest("https://a.jp/7", "parse_id", "on_id_error", 7)
        ]
        assert [request.url for request in store.pending("site b")] == ["https://b.jp/"]


def test_content_hash_ignores_whitespace_only() -> None:
    assert content_hash(" a\n b ") == content_hash("a b")
    assert content_hash("a b") != content_hash("a c")


@pytest.mark.parametrize(
    ("value", "enabled"),
    [
        ("off", False),
        ("OFF", False),
        ("0", False),
        ("false", False),
        (False, False),
        ("on", True),
        ("1", True),
        (True, True),
        ("yes", True),
    ],
)
def test_the_state_switch(value: object, enabled: bool) -> None:
    assert state_enabled(value) is enabled


def test_state_path_follows_the_setting_and_the_switch(tmp_path: Path) -> None:
    settings = {"NEWSEXTRACT_DATA_DIR": str(tmp_path / "d"), "NEWSEXTRACT_STATE": "on"}
    assert state_path(settings) == tmp_path / "d" / "state.sqlite3"
    assert state_path({**settings, "NEWSEXTRACT_STATE": "off"}) is None
    assert open_store({**settings, "NEWSEXTRACT_STATE": "off"}) is None
    store = open_store(settings)
    assert store is not None
    store.close()
    assert (tmp_path / "d" / "state.sqlite3").exists()


def test_state_path_falls_back_to_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEWSEXTRACT_DATA_DIR", str(tmp_path / "env"))
    assert state_path({}) == tmp_path / "env" / "state.sqlite3"


def test_a_url_that_redirected_to_a_harvested_page_is_harvested(db: Path) -> None:
    with StateStore(db) as store:
        store.record_alias("https://a.jp/short/1", "https://a.jp/news/1.html")
        assert not store.is_harvested("https://a.jp/short/1")  # the target is not in yet
        store.record_harvest("https://a.jp/news/1.html", content_hash("one"))
        assert store.is_harvested("https://a.jp/short/1")
        assert not store.is_harvested("https://a.jp/short/2")

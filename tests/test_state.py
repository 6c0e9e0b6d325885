"""The harvest state store: two connections (two crawls), duplicates, id progress, pending;
and a store that cannot be trusted (empty, not SQLite, damaged, locked, read-only) refused
quickly with a message that names the file and says what to do."""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import stat
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from newsextract.state import (
    BUSY_TIMEOUT_DEFAULT,
    STORE_FORMAT,
    PendingRequest,
    StateStore,
    StateStoreError,
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


def test_content_hash_is_the_hash_stores_already_hold() -> None:
    """Stored hashes were made with every run of ``\\s`` (any Unicode space) made one space:
    the hash must stay the same for every character that is one."""
    spaces = [chr(c) for c in range(0x3000 + 1) if re.fullmatch(r"\s", chr(c))]
    text = "\u3000a" + "a".join(c * 2 for c in spaces) + "b\x1c c\n"
    normalised = re.sub(r"\s+", " ", text).strip()
    assert content_hash(text) == hashlib.sha256(normalised.encode("utf-8")).hexdigest()


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


# --- a store that cannot be trusted is refused, never taken for an empty one ----------------

#: A refused store must say so at once; the lock wait is the only wait, and it is short.
REFUSAL_SECONDS = 10.0


def make_store(path: Path, articles: int = 3) -> None:
    with StateStore(path) as store:
        for number in range(articles):
            store.record_harvest(f"https://a.jp/{number}", content_hash(f"story {number}"))


def refusal(path: Path, busy_timeout: float = BUSY_TIMEOUT_DEFAULT) -> str:
    started = time.monotonic()
    with pytest.raises(StateStoreError) as refused:
        StateStore(path, busy_timeout=busy_timeout)
    assert time.monotonic() - started < REFUSAL_SECONDS
    message = str(refused.value)
    assert str(path) in message
    return message


def test_an_empty_file_is_refused_not_taken_for_a_new_store(db: Path) -> None:
    db.parent.mkdir(parents=True)
    db.touch()
    message = refusal(db)
    assert "an empty file" in message and "restore it from a backup" in message
    assert db.stat().st_size == 0  # left as it was, for the person to look at


def test_random_bytes_are_refused(db: Path) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(bytes(range(256)) * 40)
    assert "not an SQLite database" in refusal(db)


def test_a_truncated_store_is_refused(db: Path) -> None:
    make_store(db, 2000)
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 3])
    assert "is damaged" in refusal(db)


def test_a_damaged_page_is_refused(db: Path) -> None:
    make_store(db, 2000)
    data = bytearray(db.read_bytes())
    page = 4096
    middle = len(data) // page // 2
    data[middle * page : (middle + 1) * page] = b"\xa5" * page
    db.write_bytes(bytes(data))
    assert "is damaged" in refusal(db)


def test_another_sqlite_database_is_refused(db: Path) -> None:
    db.parent.mkdir(parents=True)
    with closing(sqlite3.connect(db)) as other:
        other.execute("CREATE TABLE notes (text TEXT)")
    assert "no table 'harvested'" in refusal(db)


def test_a_store_of_a_newer_format_is_refused(db: Path) -> None:
    make_store(db)
    with closing(sqlite3.connect(db)) as other:
        other.execute(f"PRAGMA user_version = {STORE_FORMAT + 1}")
    assert "newer newsextract" in refusal(db)


def test_a_store_made_before_the_format_was_kept_opens(db: Path) -> None:
    make_store(db)
    with closing(sqlite3.connect(db)) as other:
        other.execute("PRAGMA user_version = 0")
        other.execute("DROP TABLE pending")  # an older store had no open requests either
    with StateStore(db) as store:
        assert store.harvested_count() == 3
        assert store.pending("site x") == []


def test_a_locked_store_is_refused_quickly(db: Path) -> None:
    make_store(db)
    with closing(sqlite3.connect(db, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")  # another process in the middle of a long write
        message = refusal(db, busy_timeout=0.5)
        holder.execute("ROLLBACK")
    assert "locked by another process" in message and "NEWSEXTRACT_DATA_DIR" in message
    assert BUSY_TIMEOUT_DEFAULT <= 5.0  # it was 30 s: a crawl stood still that long


def test_a_store_locked_during_the_crawl_fails_once_then_at_once(db: Path) -> None:
    make_store(db)
    told: list[StateStoreError] = []
    store = StateStore(db, busy_timeout=0.3, on_error=told.append)
    with closing(sqlite3.connect(db, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StateStoreError, match="locked by another process"):
            store.record_harvest("https://a.jp/new", content_hash("new"))
        started = time.monotonic()
        for _ in range(20):  # no more waiting on the lock: the first failure stands
            with pytest.raises(StateStoreError, match=re.escape(str(db))):
                store.add_pending("site x", PendingRequest("https://a.jp/9", "parse", "on_error"))
        assert time.monotonic() - started < 2  # waiting on each: 20 x 0.3 s, 6 s
        holder.execute("ROLLBACK")
    assert len(told) == 1 and str(db) in str(told[0])
    store.close()


#: Run a command without CAP_DAC_OVERRIDE, so that root too meets the file's permissions.
DROP_OVERRIDE = (
    "import ctypes, os, sys; ctypes.CDLL(None).prctl(24, 1, 0, 0, 0); "  # PR_CAPBSET_DROP
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def test_a_read_only_store_is_refused(db: Path) -> None:
    make_store(db)
    db.chmod(0o444)
    db.parent.chmod(0o555)
    try:
        opened = subprocess.run(
            [sys.executable, "-c", DROP_OVERRIDE, sys.executable, "-c",
             "import sys; from pathlib import Path; from newsextract.state import StateStore;"
             "StateStore(Path(sys.argv[1]))", str(db)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    finally:
        db.parent.chmod(0o755)
        db.chmod(0o644)
    assert opened.returncode != 0
    last = opened.stderr.strip().splitlines()[-1]
    assert last.startswith("newsextract.stores.StateStoreError: state store "), opened.stderr
    assert str(db) in last and "read-only" in last and "NEWSEXTRACT_STATE=off" in last


def test_a_closed_store_says_so(db: Path) -> None:
    store = StateStore(db)
    store.close()
    store.close()  # twice is fine
    assert store.closed


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_state_files_follow_the_umask(db: Path, umask: int, mode: int) -> None:
    previous = os.umask(umask)
    try:
        with StateStore(db) as store:
            store.record_harvest("https://a.jp/1", content_hash("one"))
            files = [p for p in db.parent.iterdir() if p.name.startswith(db.name)]
            assert {p.name for p in files} >= {db.name, db.name + "-wal"}
            assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in files} == {
                p.name: mode for p in files
            }
    finally:
        os.umask(previous)

"""The harvest state store: what a scheduled crawl already has, kept between runs.

One SQLite file in the data directory (``NEWSEXTRACT_DATA_DIR``, default ``./data``)
remembers every harvested article URL with the hash of its text, the URLs that redirected
to one, each id-range crawl's progress, and each crawl's open requests (see
:mod:`newsextract.spiders.ledger`). WAL mode and a busy timeout let two crawls (two
processes) share the file: readers never block, and each write is one short transaction.

No Scrapy import: the spiders and the harvest pipeline open their own connection.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

#: Seconds a writer waits for another process's transaction before failing; a nightly
#: crawl commits one small row at a time, so a few seconds is ample.
BUSY_TIMEOUT_DEFAULT = 30.0
#: The directory used when neither the setting nor the environment names one.
DATA_DIR_DEFAULT = "data"
#: The store's file name inside the data directory.
STATE_FILE_DEFAULT = "state.sqlite3"

_OFF_WORDS = frozenset({"0", "off", "no", "false", "none", "disabled"})
_SPACE = re.compile(r"\s+")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS harvested (
        url TEXT PRIMARY KEY,
        content_hash TEXT NOT NULL,
        site TEXT NOT NULL DEFAULT '',
        fetched_at TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE INDEX IF NOT EXISTS harvested_hash ON harvested (content_hash)",
    """CREATE TABLE IF NOT EXISTS progress (
        key TEXT PRIMARY KEY,
        value INTEGER NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS aliases (
        source TEXT PRIMARY KEY,
        target TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS pending (
        crawl TEXT NOT NULL,
        url TEXT NOT NULL,
        callback TEXT NOT NULL,
        errback TEXT NOT NULL,
        value INTEGER,
        PRIMARY KEY (crawl, url)
    )""",
)


def content_hash(text: str) -> str:
    """The hash that identifies an article's text, blind to whitespace differences.

    >>> content_hash("a  b\\n") == content_hash("a b")
    True
    """
    normalised = _SPACE.sub(" ", text).strip()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PendingRequest:
    """A request a crawl scheduled and has not finished: its spider methods by name, and an
    optional number (an id-range crawl's id)."""

    url: str
    callback: str
    errback: str
    value: int | None = None


class StateStore:
    """Harvested URLs, their content hashes and id-range progress, in one SQLite file."""

    def __init__(self, path: Path, busy_timeout: float = BUSY_TIMEOUT_DEFAULT) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: every statement is its own transaction unless we BEGIN one.
        self._db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        for statement in _SCHEMA:
            self._db.execute(statement)

    def __enter__(self) -> StateStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def is_harvested(self, url: str) -> bool:
        """Harvested under this URL, or under the URL this one redirected to."""
        row = self._db.execute(
            "SELECT 1 FROM harvested WHERE url = ?1 UNION ALL SELECT 1 FROM aliases"
            " JOIN harvested ON harvested.url = aliases.target WHERE aliases.source = ?1"
            " LIMIT 1",
            (url,),
        ).fetchone()
        return row is not None

    def record_alias(self, source: str, target: str) -> None:
        """``source`` redirected to ``target``: once the target is harvested, so is it."""
        self._db.execute(
            "INSERT OR REPLACE INTO aliases (source, target) VALUES (?, ?)", (source, target)
        )

    def harvested_count(self) -> int:
        row = self._db.execute("SELECT count(*) FROM harvested").fetchone()
        return int(row[0])

    def holder_of(self, digest: str, url: str) -> str | None:
        """Another URL harvested with this content hash, if any (a read: nothing recorded)."""
        row = self._db.execute(
            "SELECT url FROM harvested WHERE content_hash = ? AND url != ? LIMIT 1", (digest, url)
        ).fetchone()
        return None if row is None else str(row[0])

    def record_harvest(
        self, url: str, digest: str, site: str = "", fetched_at: str = ""
    ) -> str | None:
        """Remember ``url`` with its content hash, unless another URL holds the same text.

        Returns that other URL (and records nothing) for a duplicate, else None. The check
        and the insert are one transaction, so two processes cannot both keep a body.
        """
        self._db.execute("BEGIN IMMEDIATE")
        try:
            row = self._db.execute(
                "SELECT url FROM harvested WHERE content_hash = ? AND url != ? LIMIT 1",
                (digest, url),
            ).fetchone()
            if row is None:
                self._db.execute(
                    "INSERT INTO harvested (url, content_hash, site, fetched_at)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET"
                    " content_hash = excluded.content_hash, fetched_at = excluded.fetched_at",
                    (url, digest, site, fetched_at),
                )
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        return None if row is None else str(row[0])

    def progress(self, key: str) -> int | None:
        """The highest id recorded for an id-range crawl, or None for a new crawl."""
        row = self._db.execute("SELECT value FROM progress WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def clear_progress(self, key: str) -> None:
        self._db.execute("DELETE FROM progress WHERE key = ?", (key,))

    def record_progress(self, key: str, value: int) -> None:
        """Raise the recorded id of ``key`` to ``value``; a lower value changes nothing."""
        self._db.execute(
            "INSERT INTO progress (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE"
            " SET value = max(value, excluded.value)",
            (key, value),
        )

    def add_pending(self, crawl: str, request: PendingRequest) -> None:
        """Remember a scheduled request until :meth:`clear_pending`: a crawl killed before
        it finished re-requests it on its next start (Scrapy's own queue does not survive
        SIGKILL)."""
        self._db.execute(
            "INSERT OR REPLACE INTO pending (crawl, url, callback, errback, value)"
            " VALUES (?, ?, ?, ?, ?)",
            (crawl, request.url, request.callback, request.errback, request.value),
        )

    def clear_pending(self, crawl: str, url: str) -> None:
        self._db.execute("DELETE FROM pending WHERE crawl = ? AND url = ?", (crawl, url))

    def pending(self, crawl: str) -> list[PendingRequest]:
        rows = self._db.execute(
            "SELECT url, callback, errback, value FROM pending WHERE crawl = ? ORDER BY rowid",
            (crawl,),
        ).fetchall()
        return [PendingRequest(str(u), str(c), str(e), v) for u, c, e, v in rows]


def state_enabled(value: Any) -> bool:
    """Read the ``NEWSEXTRACT_STATE`` switch: anything but off/no/false/0 means on.

    >>> state_enabled("off"), state_enabled(True), state_enabled("on")
    (False, True, True)
    """
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() not in _OFF_WORDS


def state_path(settings: Mapping[str, Any]) -> Path | None:
    """Where the store lives under these settings, or None when the state is switched off."""
    if not state_enabled(settings.get("NEWSEXTRACT_STATE", True)):
        return None
    data_dir = settings.get("NEWSEXTRACT_DATA_DIR") or os.environ.get(
        "NEWSEXTRACT_DATA_DIR", DATA_DIR_DEFAULT
    )
    return Path(str(data_dir)).expanduser() / STATE_FILE_DEFAULT


def open_store(settings: Mapping[str, Any]) -> StateStore | None:
    """Open the store these settings name, or return None when the state is switched off."""
    path = state_path(settings)
    return None if path is None else StateStore(path)

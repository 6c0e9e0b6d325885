"""The harvest state store: what a scheduled crawl already has, kept between runs.

One SQLite file in the data directory (``NEWSEXTRACT_DATA_DIR``, default ``./data``)
remembers every harvested article URL with the hash of its text, the URLs that redirected
to one, each id-range crawl's progress, and each crawl's open requests (see
:mod:`newsextract.spiders.ledger`). WAL mode and a short busy timeout let two crawls (two
processes) share the file: readers never block, and each write is one short transaction.

A store that cannot be trusted is refused, never taken for an empty one: only a path that
does not exist yet becomes a new store. An existing file must be an SQLite database that
passes SQLite's own check and holds the ``harvested`` table, and the store must take a
write (not read-only, not locked by another process) when it opens. Every failure, then
or later, is a :class:`StateStoreError` whose message names the file and says what to do;
after the first one the store answers every call with it at once, without waiting on the
file again.

No Scrapy import: the spiders and the harvest pipeline open their own connection.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Any

from newsextract.extraction.pagemodel.compiled import single_spaced
from newsextract.sharedmode.connection import redis_url
from newsextract.stores import DATA_DIR_DEFAULT as DATA_DIR_DEFAULT
from newsextract.stores import STATE_FILE_DEFAULT as STATE_FILE_DEFAULT
from newsextract.stores import HarvestStore as HarvestStore
from newsextract.stores import PendingRequest as PendingRequest
from newsextract.stores import StateStoreError as StateStoreError
from newsextract.stores import state_enabled as state_enabled
from newsextract.stores import state_path as state_path

#: Seconds a store call waits for another process's write before failing. A write holds the
#: lock for one small row (well under a millisecond; a few on a loaded machine), so two
#: crawls sharing a store never wait this long; a process that does hold the lock longer
#: has it for good, and every second waited here is a second the crawl's event loop stands
#: still (it was 30 s, which froze a crawl for 30 s per call behind a held lock).
BUSY_TIMEOUT_DEFAULT = 3.0
#: The store's format, kept in SQLite's ``user_version`` (0: a store made before it was
#: kept, read as this format). Writing it on every open is also the write probe.
STORE_FORMAT = 1

_SQLITE_MAGIC = b"SQLite format 3\x00"
#: The table without which a database is not a state store (the others are added on open).
_CORE_TABLE = "harvested"

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

_START_OVER = (
    "restore it from a backup, or move it aside to start an empty store (the next crawl "
    "then fetches every article again)"
)


def content_hash(text: str) -> str:
    """The hash that identifies an article's text, blind to whitespace differences.

    >>> content_hash("a  b\\n") == content_hash("a b")
    True
    """
    # Every run of white space (str.isspace, what re's \s matches) one space, as
    # " ".join(text.split()) gives it, without a string for each word.
    return hashlib.sha256(single_spaced(text).encode("utf-8")).hexdigest()


def store_error(path: Path, error: BaseException) -> StateStoreError:
    """What a failed store call means for the person running the crawl.

    >>> busy = sqlite3.OperationalError("database is locked")
    >>> busy.sqlite_errorname = "SQLITE_BUSY"
    >>> str(store_error(Path("state.sqlite3"), busy)).split(" (")[0]
    'state store state.sqlite3 is locked by another process'
    """
    name = str(getattr(error, "sqlite_errorname", "") or "")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StateStoreError(
            f"state store {path} is locked by another process (a crawl on the same data "
            "directory?): wait until it ends, or give this crawl its own NEWSEXTRACT_DATA_DIR"
        )
    if name.startswith("SQLITE_READONLY"):
        return StateStoreError(
            f"state store {path} is read-only ({error}): make the file and its directory "
            "writable, or crawl without the store (-s NEWSEXTRACT_STATE=off)"
        )
    if isinstance(error, OSError):
        return StateStoreError(
            f"state store {path} cannot be opened ({error}): make the file and its directory "
            "readable and writable, or crawl without the store (-s NEWSEXTRACT_STATE=off)"
        )
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return StateStoreError(f"state store {path} is damaged ({error}): {_START_OVER}")
    return StateStoreError(
        f"state store {path} cannot be used ({type(error).__name__}: {error}): check the "
        "disk it is on (full? removed?), or crawl without the store (-s NEWSEXTRACT_STATE=off)"
    )


class StateStore:
    """Harvested URLs, their content hashes and id-range progress, in one SQLite file.

    ``on_error`` is told of the first failure of a call (before the call raises it), so a
    crawl can stop even where the error itself is only logged (a signal handler).
    """

    def __init__(
        self,
        path: Path,
        busy_timeout: float = BUSY_TIMEOUT_DEFAULT,
        on_error: Callable[[StateStoreError], None] | None = None,
    ) -> None:
        self.path = path
        self.on_error = on_error
        self._failure: StateStoreError | None = None
        self._db = _open(path, busy_timeout)
        self._closed = False

    def __enter__(self) -> StateStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._db.close()

    @contextmanager
    def _calling(self) -> Iterator[sqlite3.Connection]:
        """The connection for one call; a failure becomes a :class:`StateStoreError`."""
        if self._failure is not None:
            raise StateStoreError(str(self._failure))
        try:
            yield self._db
        except sqlite3.Error as error:
            self._failure = store_error(self.path, error)
            if self.on_error is not None:
                self.on_error(self._failure)
            raise self._failure from error

    def is_harvested(self, url: str) -> bool:
        """Harvested under this URL, or under the URL this one redirected to."""
        with self._calling() as db:
            row = db.execute(
                "SELECT 1 FROM harvested WHERE url = ?1 UNION ALL SELECT 1 FROM aliases"
                " JOIN harvested ON harvested.url = aliases.target WHERE aliases.source = ?1"
                " LIMIT 1",
                (url,),
            ).fetchone()
        return row is not None

    def record_alias(self, source: str, target: str) -> None:
        """``source`` redirected to ``target``: once the target is harvested, so is it."""
        with self._calling() as db:
            db.execute(
                "INSERT OR REPLACE INTO aliases (source, target) VALUES (?, ?)", (source, target)
            )

    def harvested_count(self) -> int:
        with self._calling() as db:
            row = db.execute("SELECT count(*) FROM harvested").fetchone()
        return int(row[0])

    def holder_of(self, digest: str, url: str) -> str | None:
        """Another URL harvested with this content hash, if any (a read: nothing recorded)."""
        with self._calling() as db:
            row = db.execute(
                "SELECT url FROM harvested WHERE content_hash = ? AND url != ? LIMIT 1",
                (digest, url),
            ).fetchone()
        return None if row is None else str(row[0])

    def record_harvest(
        self, url: str, digest: str, site: str = "", fetched_at: str = ""
    ) -> str | None:
        """Remember ``url`` with its content hash, unless another URL holds the same text.

        Returns that other URL (and records nothing) for a duplicate, else None. The check
        and the insert are one transaction, so two processes cannot both keep a body.
        """
        with self._calling() as db, _transaction(db):
            row = db.execute(
                "SELECT url FROM harvested WHERE content_hash = ? AND url != ? LIMIT 1",
                (digest, url),
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO harvested (url, content_hash, site, fetched_at)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET"
                    " content_hash = excluded.content_hash, fetched_at = excluded.fetched_at",
                    (url, digest, site, fetched_at),
                )
        return None if row is None else str(row[0])

    def progress(self, key: str) -> int | None:
        """The highest id recorded for an id-range crawl, or None for a new crawl."""
        with self._calling() as db:
            row = db.execute("SELECT value FROM progress WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def clear_progress(self, key: str) -> None:
        with self._calling() as db:
            db.execute("DELETE FROM progress WHERE key = ?", (key,))

    def record_progress(self, key: str, value: int) -> None:
        """Raise the recorded id of ``key`` to ``value``; a lower value changes nothing."""
        with self._calling() as db:
            db.execute(
                "INSERT INTO progress (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE"
                " SET value = max(value, excluded.value)",
                (key, value),
            )

    def add_pending(self, crawl: str, request: PendingRequest) -> None:
        """Remember a scheduled request until :meth:`clear_pending`: a crawl killed before
        it finished re-requests it on its next start (Scrapy's own queue does not survive
        SIGKILL)."""
        with self._calling() as db:
            db.execute(
                "INSERT OR REPLACE INTO pending (crawl, url, callback, errback, value)"
                " VALUES (?, ?, ?, ?, ?)",
                (crawl, request.url, request.callback, request.errback, request.value),
            )

    def clear_pending(self, crawl: str, url: str) -> None:
        with self._calling() as db:
            db.execute("DELETE FROM pending WHERE crawl = ? AND url = ?", (crawl, url))

    def clear_pending_many(self, crawl: str, urls: Sequence[str]) -> None:
        """:meth:`clear_pending` of each URL, in one transaction."""
        with self._calling() as db, _transaction(db):
            db.executemany(
                "DELETE FROM pending WHERE crawl = ? AND url = ?", [(crawl, url) for url in urls]
            )

    def pending(self, crawl: str) -> list[PendingRequest]:
        with self._calling() as db:
            rows = db.execute(
                "SELECT url, callback, errback, value FROM pending WHERE crawl = ? ORDER BY rowid",
                (crawl,),
            ).fetchall()
        return [PendingRequest(str(u), str(c), str(e), v) for u, c, e, v in rows]


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction that takes the lock at once (two crawls cannot interleave)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _open(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """Connect to the store at ``path``: a new one if nothing is there, else a checked one."""
    is_new = not path.exists()
    try:
        if is_new:
            path.parent.mkdir(parents=True, exist_ok=True)
            _create(path)
        else:
            _check_file(path)
        db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
    except (OSError, sqlite3.Error) as error:
        raise store_error(path, error) from error
    try:
        if not is_new:
            _check_contents(db, path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        with _transaction(db):  # the write probe: a locked or read-only store fails here
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {STORE_FORMAT}")
    except sqlite3.Error as error:
        db.close()
        raise store_error(path, error) from error
    except StateStoreError:
        db.close()
        raise
    return db


def _create(path: Path) -> None:
    """Create the store's file with the permissions the umask gives (0666 minus the umask);
    SQLite would create it 0644 minus the umask, whatever the umask allows, and gives its
    WAL and shared-memory files the database file's permissions."""
    with suppress(FileExistsError):  # another crawl is making the same new store right now
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))


def _check_file(path: Path) -> None:
    """Refuse a file that cannot be an SQLite database before SQLite sees it: SQLite takes
    an empty file for a new database and would silently start history afresh."""
    if path.is_dir():
        raise StateStoreError(f"state store {path} is a directory: {_START_OVER}")
    with path.open("rb") as file:
        head = file.read(len(_SQLITE_MAGIC))
    if not head:
        raise StateStoreError(
            f"state store {path} is not a newsextract state store (an empty file): {_START_OVER}"
        )
    if head != _SQLITE_MAGIC:
        raise StateStoreError(
            f"state store {path} is not a newsextract state store (not an SQLite database): "
            f"{_START_OVER}"
        )


def _check_contents(db: sqlite3.Connection, path: Path) -> None:
    """SQLite's own check of every page (a full read of the file), then our schema."""
    problems = [str(row[0]) for row in db.execute("PRAGMA quick_check").fetchall()]
    if problems != ["ok"]:
        raise StateStoreError(f"state store {path} is damaged ({problems[0]}): {_START_OVER}")
    tables = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master")}
    if _CORE_TABLE not in tables:
        raise StateStoreError(
            f"state store {path} is not a newsextract state store (no table {_CORE_TABLE!r}): "
            f"{_START_OVER}"
        )
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > STORE_FORMAT:
        raise StateStoreError(
            f"state store {path} was written by a newer newsextract (format {version}): "
            "upgrade newsextract, or give this crawl its own NEWSEXTRACT_DATA_DIR"
        )


def open_store(
    settings: Mapping[str, Any], on_error: Callable[[StateStoreError], None] | None = None
) -> HarvestStore | None:
    """Open the store these settings name, or return None when the state is switched off:
    in shared mode (``NEWSEXTRACT_REDIS_URL``) the store in Redis, else the SQLite file.

    Raises :class:`StateStoreError` for a store that cannot be trusted (see the module) or,
    in shared mode, a Redis that cannot be reached."""
    path = state_path(settings)
    if path is None:
        return None
    if redis_url(settings) is not None:
        from newsextract.sharedmode.state import RedisStateStore  # imports redis: shared mode only

        return RedisStateStore.from_settings(settings, on_error=on_error)
    return StateStore(path, on_error=on_error)

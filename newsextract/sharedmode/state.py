"""The harvest state store in Redis: what every worker of a shared crawl already has.

The same interface and the same guarantees as the SQLite :class:`~newsextract.state.StateStore`,
for many workers on many machines (:func:`newsextract.state.open_store` picks this one when
``NEWSEXTRACT_REDIS_URL`` is set). Every key starts with ``key_prefix(settings)``:

- ``P:state:harvested`` (URL -> content hash), ``P:state:digests`` (content hash -> the URL
  holding it) and ``P:state:harvest_info`` (URL -> site and fetch time); a harvest is one
  Lua script, so two workers exporting the same text under two URLs keep it once;
- ``P:state:aliases`` (redirect source -> target) and ``P:state:progress`` (key -> the
  highest id, only ever raised: a high-water mark however the workers' answers interleave);
- ``P:state:pending:CRAWL`` (URL -> the open request) and ``P:state:pending_owner:CRAWL``
  (URL -> the worker that holds it: the one that opened it, until a worker takes it from the
  shared queue, :mod:`newsextract.sharedmode.frontier`), written together;
- ``P:worker:WORKER`` a lease that the worker's heartbeat thread renews
  (``NEWSEXTRACT_WORKER_LEASE`` seconds, renewed three times a lease).

A worker killed outright loses nothing and duplicates nothing: its open requests stay in
Redis under its name; once its lease has lapsed, :meth:`RedisStateStore.pending` hands them
to the first worker that asks (one Lua script claims them, so two starting workers never
both recover a request), together with the requests that worker's own id left open in an
earlier session (a worker restarted with the same ``NEWSEXTRACT_WORKER_ID`` gets them back
at once). A request is handed out once: a worker asking again gets only what was freed
since, never what it holds (in flight, or in the shared queue). A worker
that closes cleanly drops its lease, so what it left open is recoverable at once.

A worker counts another out only once it has itself been connected to Redis for a whole
lease since it last lost it (a restart, from a snapshot or an append-only file in which every
lease may have lapsed, is not the workers' death). By then every worker alive through the
outage has renewed its lease (a third of a lease after Redis is back). Until then a worker
takes over nothing but its own earlier session's requests. A worker started after the
restart saw no outage: in the first third of a lease it may take over a live worker's
requests, whose copy of a page is then dropped (:meth:`RedisStateStore.held_by_another`).

A worker about to write an article checks that no other worker holds its request now
(:meth:`RedisStateStore.held_by_another`): a request taken over from it (its process was
starved for a whole lease) is written by the worker that took it over.

An article a feed holds is written to a journal in the data directory,
``unrecorded-WORKER.jsonl``, before Redis is asked to record it, and the journal is emptied
once Redis has: a worker killed, or stopped by a Redis away past its retry budget, between
its feed writing an article and Redis recording it leaves the article in its journal, and
records it first thing when it starts again under the same ``NEWSEXTRACT_WORKER_ID`` (before
it takes its open requests back): its re-run does not write it again.

A dropped connection is tried again for ``NEWSEXTRACT_REDIS_RETRY`` seconds
(:mod:`newsextract.sharedmode.connection`); any other failure, or one that outlasts them, is
a :class:`~newsextract.stores.StateStoreError` naming the Redis and saying what to do, handed
to ``on_error`` (which stops the crawl) and raised at once by every later call.
"""

from __future__ import annotations

import json
import logging
import os
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import redis

from newsextract.sharedmode.connection import (
    REDIS_RETRY_DEFAULT,
    REDIS_URL_SETTING,
    SharedModeError,
    Steadiness,
    connect,
    key_prefix,
    redis_url,
    retry_budget,
    text,
)
from newsextract.stores import PendingRequest, StateStoreError, state_path

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds a worker's lease lasts without a heartbeat. A heartbeat thread renews it (so a
#: busy reactor does not let it lapse); only a dead process, or a Redis unreachable for this
#: long, loses it. Its open requests wait this long before another worker recovers them.
WORKER_LEASE_DEFAULT = 30.0

_RECORD_HARVEST = """
local holder = redis.call('HGET', KEYS[2], ARGV[2])
if holder and holder ~= ARGV[1] and redis.call('HGET', KEYS[1], holder) == ARGV[2] then
  return holder
end
local previous = redis.call('HGET', KEYS[1], ARGV[1])
if previous and previous ~= ARGV[2] and redis.call('HGET', KEYS[2], previous) == ARGV[1] then
  redis.call('HDEL', KEYS[2], previous)
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
return false
"""

_HOLDER_OF = """
local holder = redis.call('HGET', KEYS[2], ARGV[2])
if holder and holder ~= ARGV[1] and redis.call('HGET', KEYS[1], holder) == ARGV[2] then
  return holder
end
return false
"""

_IS_HARVESTED = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 1 end
local target = redis.call('HGET', KEYS[2], ARGV[1])
if target and redis.call('HEXISTS', KEYS[1], target) == 1 then return 1 end
return 0
"""

_RAISE_PROGRESS = """
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current or tonumber(current) < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
return 0
"""

# An owner is "WORKER|SESSION". For ARGV[1] (worker) and ARGV[2] (its session): claims every
# open request of a worker whose lease (ARGV[3] .. worker) has lapsed (only if ARGV[4] is
# "1": Redis is steadily up), and those its own worker name left in an earlier session, and
# returns their URLs. This session's own are not returned: they are in its hands, or in the
# shared queue. KEYS[2] keeps the last claim's token (ARGV[5]) and URLs: the same call sent
# again (its reply lost when Redis went down, redis-py retries it) gets the same URLs back,
# which the first run made this session's own.
_CLAIM_PENDING = """
local last = redis.call('HMGET', KEYS[2], 'token', 'urls')
if last[1] == ARGV[5] then
  local again = {}
  for url in string.gmatch(last[2] or '', '[^\\n]+') do again[#again + 1] = url end
  return again
end
local me = ARGV[1] .. '|' .. ARGV[2]
local owners = redis.call('HGETALL', KEYS[1])
local alive = {}
local claimed = {}
for i = 1, #owners, 2 do
  local url, owner = owners[i], owners[i + 1]
  if owner ~= me then
    local worker = string.match(owner, '^(.*)|[^|]*$') or owner
    if worker ~= ARGV[1] and alive[worker] == nil then
      alive[worker] = ARGV[4] ~= '1' or redis.call('EXISTS', ARGV[3] .. worker) == 1
    end
    if worker == ARGV[1] or not alive[worker] then
      redis.call('HSET', KEYS[1], url, me)
      claimed[#claimed + 1] = url
    end
  end
end
redis.call('HSET', KEYS[2], 'token', ARGV[5], 'urls', table.concat(claimed, '\\n'))
redis.call('EXPIRE', KEYS[2], 86400)
return claimed
"""

_worker_ids: dict[int, str] = {}


def worker_id(settings: Mapping[str, Any]) -> str:
    """This process's name among the workers: ``NEWSEXTRACT_WORKER_ID``, or host, pid and a
    random part (a pid is reused after a reboot or in another container)."""
    configured = str(settings.get("NEWSEXTRACT_WORKER_ID") or "").strip()
    if configured:
        return configured
    pid = os.getpid()
    if pid not in _worker_ids:
        _worker_ids[pid] = f"{socket.gethostname()}-{pid}-{random.getrandbits(32):08x}"
    return _worker_ids[pid]


def public_url(url: str) -> str:
    """The URL without its password, for messages.

    >>> public_url("redis://:secret@cache:6379/2")
    'redis://cache:6379/2'
    """
    parts = urlsplit(url)
    if parts.password is None and parts.username is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


class Heartbeat:
    """Keeps a worker's lease alive from a thread; shared by the stores of one process."""

    _running: dict[tuple[str, str], Heartbeat] = {}
    _lock = threading.Lock()

    def __init__(self, url: str, key: str, lease: float) -> None:
        # Its own client (it outlives the store that made it), trying once a renewal: the
        # next renewal is the retry, and a failure tells OUTAGES that Redis was lost.
        self.client = connect(url, check=False, retry=0.0)
        self.key = key
        self.lease = lease
        self.users = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease {key}", daemon=True)

    @classmethod
    def join(cls, url: str, key: str, lease: float) -> Heartbeat:
        """The heartbeat of ``key``, started (and the lease taken) by its first user."""
        with cls._lock:
            beat = cls._running.get((url, key))
            if beat is None:
                beat = cls(url, key, lease)
                beat.renew()
                beat._thread.start()
                cls._running[(url, key)] = beat
            beat.users += 1
            return beat

    def leave(self, url: str) -> None:
        """The last user gone, the lease is dropped: what it left open is free at once."""
        with self._lock:
            self.users -= 1
            if self.users > 0:
                return
            self._running.pop((url, self.key), None)
        self._stop.set()
        self._thread.join(timeout=5)
        with suppress(redis.RedisError):  # else the lease lapses by itself
            self.client.delete(self.key)
        self.client.close()

    def renew(self) -> None:
        self.client.set(self.key, "1", px=max(1, int(self.lease * 1000)))

    def _run(self) -> None:
        while not self._stop.wait(self.lease / 3):
            try:
                self.renew()
            except redis.RedisError as error:
                logger.warning("cannot renew the worker lease %s in Redis: %s", self.key, error)


class RedisStateStore:
    """The state store of shared mode; see the module docstring."""

    def __init__(
        self,
        url: str,
        prefix: str,
        worker: str,
        lease: float = WORKER_LEASE_DEFAULT,
        on_error: Callable[[StateStoreError], None] | None = None,
        retry: float = REDIS_RETRY_DEFAULT,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.worker = worker
        # This store's session: what it opens is in its hands, what the same worker name
        # left open in an earlier session (a restart) is recovered.
        self.session = f"{random.getrandbits(48):012x}"
        self.lease = lease
        self.on_error = on_error
        self.retry = retry
        self._failure: StateStoreError | None = None
        self._closed = False
        self.journal: Path | None = None  # see record_harvest
        self._journaled = False
        try:
            self.client = connect(url, retry=retry)
        except SharedModeError as error:
            raise StateStoreError(f"shared state store: {error}") from None
        self._steadiness = Steadiness(lease)
        self._record_harvest = self.client.register_script(_RECORD_HARVEST)
        self._holder_of = self.client.register_script(_HOLDER_OF)
        self._is_harvested = self.client.register_script(_IS_HARVESTED)
        self._raise_progress = self.client.register_script(_RAISE_PROGRESS)
        self._claim_pending = self.client.register_script(_CLAIM_PENDING)
        self._heartbeat = self.call(lambda: Heartbeat.join(url, self.lease_key(worker), lease))

    @classmethod
    def from_settings(
        cls,
        settings: Mapping[str, Any],
        on_error: Callable[[StateStoreError], None] | None = None,
    ) -> RedisStateStore:
        url = redis_url(settings)
        if url is None:
            raise StateStoreError(f"shared state store: {REDIS_URL_SETTING} is not set")
        lease = float(settings.get("NEWSEXTRACT_WORKER_LEASE") or WORKER_LEASE_DEFAULT)
        worker = worker_id(settings)
        store = cls(url, key_prefix(settings), worker, lease, on_error, retry_budget(settings))
        path = state_path(settings)
        if path is not None:
            store.journal = path.parent / f"unrecorded-{worker}.jsonl"
            store.record_journal()
        return store

    def __enter__(self) -> RedisStateStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def path(self) -> str:
        """Where the store is, for messages (no password)."""
        return f"{public_url(self.url)} (keys {self.prefix}:state:*)"

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._heartbeat.leave(self.url)
            self.client.close()

    # -- keys ----------------------------------------------------------------------------

    def key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def lease_key(self, worker: str) -> str:
        return self.key("worker", worker)

    def owners_key(self, crawl: str) -> str:
        """The hash of a crawl's open requests and who holds each (``WORKER|SESSION``)."""
        return self.key("state", "pending_owner", crawl)

    @property
    def owner(self) -> str:
        """This store's name as the holder of open requests."""
        return f"{self.worker}|{self.session}"

    # -- calls ---------------------------------------------------------------------------

    def call(self, operation: Callable[[], T]) -> T:
        """Run one call (the client tries a dropped connection again); a failure becomes a
        :class:`StateStoreError` (see the module docstring)."""
        if self._failure is not None:
            raise StateStoreError(str(self._failure))
        try:
            return operation()
        except redis.RedisError as error:
            raise self._fail(error) from error

    def steady(self) -> bool:
        """Whether this process has been connected to Redis for a whole lease since it last
        lost it: only then is a lapsed lease a dead worker (see the module docstring)."""
        return self._steadiness.steady()

    def _fail(self, error: redis.RedisError) -> StateStoreError:
        where = public_url(self.url)
        if isinstance(error, redis.ConnectionError):
            waited = self.retry
            self._failure = StateStoreError(
                f"shared state store in Redis at {where} cannot be reached "
                f"({type(error).__name__}: {error}; tried for {waited:.0f} s): start Redis or "
                f"fix {REDIS_URL_SETTING}, then run the crawl again (its open requests stay "
                "in Redis and are picked up)"
            )
        else:
            self._failure = StateStoreError(
                f"shared state store in Redis at {where} cannot be used "
                f"({type(error).__name__}: {error}): check that Redis and its log (memory "
                f"full? a read-only replica? a password?), or fix {REDIS_URL_SETTING}"
            )
        if self.on_error is not None:
            self.on_error(self._failure)
        return self._failure

    # -- harvested articles --------------------------------------------------------------

    def is_harvested(self, url: str) -> bool:
        """Harvested under this URL, or under the URL this one redirected to."""
        keys = [self.key("state", "harvested"), self.key("state", "aliases")]
        return bool(self.call(lambda: self._is_harvested(keys, [url])))

    def record_alias(self, source: str, target: str) -> None:
        self.call(lambda: self.client.hset(self.key("state", "aliases"), source, target))

    def harvested_count(self) -> int:
        return int(self.call(lambda: self.client.hlen(self.key("state", "harvested"))))

    def holder_of(self, digest: str, url: str) -> str | None:
        """Another URL harvested with this content hash, if any (a read: nothing recorded)."""
        keys = [self.key("state", "harvested"), self.key("state", "digests")]
        return text(self.call(lambda: self._holder_of(keys, [url, digest])))

    def record_harvest(
        self, url: str, digest: str, site: str = "", fetched_at: str = ""
    ) -> str | None:
        """Remember ``url`` with its content hash, unless another URL holds the same text
        (then return that URL and record nothing): one script, so two workers cannot both
        keep a body. Journaled until Redis has recorded it (see the module docstring)."""
        self._journal(url, digest, site, fetched_at)
        original = self._record_harvest_now(url, digest, site, fetched_at)
        if self._journaled and self.journal is not None:
            self.journal.write_bytes(b"")  # every earlier entry is recorded too: calls are in turn
            self._journaled = False
        return original

    def _record_harvest_now(self, url: str, digest: str, site: str, fetched_at: str) -> str | None:
        keys = [
            self.key("state", "harvested"),
            self.key("state", "digests"),
            self.key("state", "harvest_info"),
        ]
        info = json.dumps({"site": site, "fetched_at": fetched_at})
        return text(self.call(lambda: self._record_harvest(keys, [url, digest, info])))

    def _journal(self, url: str, digest: str, site: str, fetched_at: str) -> None:
        """An article a feed holds, until Redis records it. Not synced to disk: it is for a
        worker killed or stopped, whose writes the system still holds, not for a power cut."""
        if self.journal is None:
            return
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"url": url, "digest": digest, "site": site, "fetched_at": fetched_at})
        with self.journal.open("a", encoding="utf-8") as journal:
            journal.write(line + "\n")
        self._journaled = True

    def record_journal(self) -> None:
        """Record what an earlier session of this worker wrote and could not record."""
        if self.journal is None or not self.journal.exists():
            return
        lines = self.journal.read_text(encoding="utf-8").splitlines()
        for line in lines:
            with suppress(ValueError):  # a line torn by a kill: that article may come again
                entry = json.loads(line)
                self._record_harvest_now(
                    entry["url"], entry["digest"], entry["site"], entry["fetched_at"]
                )
        self.journal.unlink()
        if lines:
            logger.info("recorded %d articles this worker wrote before it stopped", len(lines))

    # -- id progress ---------------------------------------------------------------------

    def progress(self, key: str) -> int | None:
        """The highest id recorded for an id-range crawl, or None for a new crawl."""
        value = self.call(lambda: self.client.hget(self.key("state", "progress"), key))
        return None if value is None else int(value)

    def clear_progress(self, key: str) -> None:
        self.call(lambda: self.client.hdel(self.key("state", "progress"), key))

    def record_progress(self, key: str, value: int) -> None:
        """Raise the recorded id of ``key`` to ``value``; a lower value changes nothing."""
        progress = self.key("state", "progress")
        self.call(lambda: self._raise_progress([progress], [key, value]))

    # -- open requests -------------------------------------------------------------------

    def pending_key(self, crawl: str) -> str:
        """The hash of a crawl's open requests (URL -> :meth:`pending_record`)."""
        return self.key("state", "pending", crawl)

    @staticmethod
    def pending_record(request: PendingRequest) -> str:
        return json.dumps(
            {
                "url": request.url,
                "callback": request.callback,
                "errback": request.errback,
                "value": request.value,
                "order": time.time_ns(),  # pending() lists in the order requests were added
            }
        )

    def add_pending(self, crawl: str, request: PendingRequest) -> None:
        """Remember a scheduled request, held by this worker, until :meth:`clear_pending`."""
        record = self.pending_record(request)

        def add() -> None:
            with self.client.pipeline(transaction=True) as both:
                both.hset(self.pending_key(crawl), request.url, record)
                both.hset(self.owners_key(crawl), request.url, self.owner)
                both.execute()

        self.call(add)

    def clear_pending(self, crawl: str, url: str) -> None:
        def clear() -> None:
            with self.client.pipeline(transaction=True) as both:
                both.hdel(self.pending_key(crawl), url)
                both.hdel(self.owners_key(crawl), url)
                both.execute()

        self.call(clear)

    def pending(self, crawl: str) -> list[PendingRequest]:
        """This crawl's open requests that nobody holds any more, claimed for this store in
        one script: those of workers whose lease has lapsed, and those this worker's name
        left in an earlier session. Each is handed out once: asked again (a worker idle
        looks for the work of dead ones), a store does not get back what it holds, but the
        same call sent again by redis-py (its reply lost) gets the same answer."""
        keys = [self.owners_key(crawl), self.key("state", "pending_claim", crawl, self.owner)]
        steady = "1" if self.steady() else "0"
        args = [self.worker, self.session, self.lease_key(""), steady, uuid.uuid4().hex]
        urls = self.call(lambda: self._claim_pending(keys, args))
        if not urls:
            return []
        records = self.call(lambda: self.client.hmget(self.pending_key(crawl), list(urls)))
        found = [json.loads(record) for record in records if record is not None]
        found.sort(key=lambda record: int(record.get("order", 0)))
        return [
            PendingRequest(str(r["url"]), str(r["callback"]), str(r["errback"]), r["value"])
            for r in found
        ]

    def held_by_another(self, crawl: str, url: str) -> bool:
        """Whether another worker holds ``url``'s open request now: it took it over, and
        writes the article; this worker must not. (The stores of one worker, such as the
        spider's and the harvest stage's, are sessions of one name.)"""
        owner = text(self.call(lambda: self.client.hget(self.owners_key(crawl), url)))
        return owner is not None and owner.rpartition("|")[0] != self.worker

    def is_pending(self, crawl: str, url: str) -> bool:
        """Whether any worker holds ``url`` open in this crawl."""
        owners = self.owners_key(crawl)
        return bool(self.call(lambda: self.client.hexists(owners, url)))

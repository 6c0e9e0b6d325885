"""The shared frontier: one queue of requests in Redis that every crawl worker takes from.

scrapy-redis keeps the queue (a sorted set by priority) and the duplicate filter; this
module adds what many workers of one *crawl* need on top of it. A crawl is the spider and
its sources (:meth:`~newsextract.spiders.base.NewsSpider.crawl_key`), so two ``site``
crawls of different sites never share a queue; its keys are
``<prefix>:<spider>:<digest of the crawl>:...``.

Seeding once
    The first worker to start sets ``...:seeded`` (``SET NX``) and makes the start
    requests (start pages, sitemaps, feeds); the others only take from the queue. The flag
    lives as long as the crawl's run: the worker that finds the frontier drained deletes it
    with the duplicate filter and the claimed URLs, so the next scheduled run seeds again.
    A run stopped early (killed, a fatal error, Ctrl-C) keeps them: the next run resumes
    the queue and does not seed, and the run after it does. A worker started after the run
    was drained starts a new run (and re-reads the listings; known articles are skipped).

One request a URL across workers
    Links are claimed in ``...:claimed`` (``SADD``) before a request is made, so a link two
    workers find is requested, and opened in the state store, by one of them only.
    (``max_pages`` stays a budget of each worker.)

Who holds an open request
    The worker that opened it in the state store, until a worker takes it from the queue:
    the taker becomes its holder in the same step (the queue's entries begin with their
    URL). A worker killed with pages in its hands (fetched, or held by the pipeline until a
    template is learned) leaves them open under its own name, for another to take over.

When a worker stops
    Only when no work is left anywhere: the queue is empty, no other worker is *busy*, and
    every open request in another worker's hands is held by a worker that is stopping too
    (it settles them as it closes: workers that hold pages for a template end together).
    A worker is busy from its start (it may be seeding) and from the moment it takes a
    request (in the same atomic step, so no request is ever out of the queue unseen) until
    Scrapy finds it idle. Busy workers are a sorted set of lease deadlines on Redis's own
    clock, renewed while the worker runs; a killed worker's lease runs out after
    ``NEWSEXTRACT_WORKER_LEASE`` seconds, and its open requests wait in the state store for
    the next worker that starts (:mod:`newsextract.spiders.ledger`).

Redis lost mid-crawl
    Every call retries with an exponential backoff for ``NEWSEXTRACT_REDIS_RETRY`` seconds
    (:mod:`newsextract.sharedmode.connection`); a Redis that stays away stops the worker with
    one message and exit status 1. The queue and the open requests are kept, so running the
    workers again loses and repeats nothing. A busy worker's deadline may lapse while Redis
    is away, or in a snapshot Redis restarts from: a worker finds the crawl done only once
    it has been connected to Redis for a whole busy lease since it last lost it (every live
    worker has renewed its deadline by then), and a worker counts as stopping only while
    its lease in the state store holds (one that gave up, or was killed, while it waited for
    the end leaves its requests held, for its next run or for the others to take over).

    A call retried after its reply was lost may have run already: taking a request,
    claiming a URL, seeding, the duplicate filter and recovering a dead worker's requests
    (:meth:`~newsextract.sharedmode.state.RedisStateStore.pending`) answer a call sent again
    as they answered it the first time (a token of the call), so no request is taken twice,
    taken for its own duplicate, or claimed and then lost.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import socket
import uuid
from collections.abc import Mapping
from typing import Any, Self, cast

import redis
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Request
from scrapy.spiders import Spider
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.queue import PriorityQueue
from scrapy_redis.scheduler import Scheduler
from twisted.internet.task import LoopingCall

from newsextract.extensions.outcome import stop_crawl
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
from newsextract.sharedmode.state import RedisStateStore
from newsextract.spiders.ledger import CrawlLedger
from newsextract.state import HarvestStore, PendingRequest, StateStoreError

logger = logging.getLogger(__name__)

#: Seconds a worker counts as busy after it last showed signs of life. Scrapy calls the
#: scheduler at least every 5 s (its heartbeat), which renews the lease; 30 s leaves room
#: for a loaded machine, and is how long the others wait for a killed worker.
WORKER_LEASE_DEFAULT = 30.0
#: A busy worker's deadline is this many leases after it last showed signs of life: later
#: than the state store's lease (:mod:`newsextract.sharedmode.state`), so that a dead
#: worker's open requests can be claimed by an idle worker before the others may finish.
BUSY_LEASES = 1.5
#: How often a busy worker renews its lease, a fraction of it.
RENEWALS_PER_LEASE = 5
#: Characters of the crawl's SHA-1 in its keys: enough to tell a corpus's crawls apart.
CRAWL_DIGEST_LENGTH = 12
#: Seconds an idle worker waits before it looks at the shared queue again: the first wait,
#: doubled while it stays idle, up to the last. Scrapy itself looks only at its 5 s
#: heartbeat, and a site whose listings chain (the next page is known only once the previous
#: one is read) would keep the other workers idle most of that time; the doubling keeps a
#: long idle spell at one look a second (three small calls to Redis).
IDLE_POLL_FIRST = 0.05
IDLE_POLL_LAST = 1.0

# KEYS: queue, busy, the worker's last take, the crawl's open requests by holder, the workers
# closing; ARGV: worker, lease seconds, renew ("1": the worker is busy already), a token of
# the call, the holder's name in the open requests ("": no shared state store). The request
# leaves the queue, the worker becomes busy and the holder of its open request in one step:
# a worker killed after it took a request leaves it open under its own name, to be taken
# over. A call sent again with its token (the reply was lost when Redis went down: redis-py
# retries it) gets the same request back, not the next one.
_POP = """
local clock = redis.call('TIME')
local deadline = tonumber(clock[1]) + tonumber(clock[2]) / 1000000 + tonumber(ARGV[2])
local last = redis.call('HMGET', KEYS[3], 'token', 'request')
local taken = false
if last[1] == ARGV[4] then
    taken = last[2]
else
    local head = redis.call('ZRANGE', KEYS[1], 0, 0)
    if head[1] then
        redis.call('ZREMRANGEBYRANK', KEYS[1], 0, 0)
        redis.call('HSET', KEYS[3], 'token', ARGV[4], 'request', head[1])
        redis.call('EXPIRE', KEYS[3], 86400)
        taken = head[1]
        local cut = string.find(taken, '\\n', 1, true)
        if ARGV[5] ~= '' and cut then
            local url = string.sub(taken, 1, cut - 1)
            if redis.call('HEXISTS', KEYS[4], url) == 1 then
                redis.call('HSET', KEYS[4], url, ARGV[5])
            end
        end
    end
end
if taken then
    redis.call('SREM', KEYS[5], ARGV[5])
end
if taken or ARGV[3] == '1' then
    redis.call('ZADD', KEYS[2], deadline, ARGV[1])
end
return taken
"""
# KEYS: a hash of claims; ARGV: what is claimed, the claimant's token. 1 for the first
# claimant, also when its call is sent again (a plain SADD would answer 0 to the retry).
_CLAIM = """
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
    return 1
end
return 0
"""
# KEYS: claims, the crawl's open requests, their holders; ARGV: the URL, the claimant's
# token, the open request, its holder. The first claimant opens the request in the same
# step: a worker killed between the two would leave a URL claimed that nobody requests.
_CLAIM_AND_OPEN = """
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then
    return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
return 1
"""
# KEYS: busy; ARGV: worker, lease seconds. The worker is busy from now.
_ENTER = """
local clock = redis.call('TIME')
local deadline = tonumber(clock[1]) + tonumber(clock[2]) / 1000000 + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], deadline, ARGV[1])
"""
# KEYS: queue, busy, the crawl's open requests by holder, the workers closing, then the keys
# of the run to delete; ARGV: worker, its name as a holder ("": no shared state store), the
# prefix of the workers' leases in the state store. 1: drained (and the run's keys deleted),
# 0: work is left in the queue, with a busy worker, or open in the hands of another worker
# that is not closing too, or whose lease lapsed (one killed, or that gave up, while it held
# pages: its requests are taken over, or given back to its next run). Workers that all hold
# pages and all wait for the end announce it, and end together.
_FINISH_IF_DRAINED = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('ZCARD', KEYS[1]) > 0 or redis.call('ZCARD', KEYS[2]) > 0 then
    return 0
end
if ARGV[2] ~= '' then
    redis.call('SADD', KEYS[4], ARGV[2])
    local holders = redis.call('HVALS', KEYS[3])
    for index = 1, #holders do
        local holder = holders[index]
        if holder ~= ARGV[2] then
            if redis.call('SISMEMBER', KEYS[4], holder) == 0 then
                return 0
            end
            local worker = string.match(holder, '^(.*)|[^|]*$') or holder
            if ARGV[3] ~= '' and redis.call('EXISTS', ARGV[3] .. worker) == 0 then
                return 0
            end
        end
    end
end
for index = 5, #KEYS do
    redis.call('DEL', KEYS[index])
end
return 1
"""

#: Between the URL (the key of its open request) and the serialized request in the queue.
URL_SEPARATOR = b"\n"
#: How a queued request with its URL in front begins (the crawl fetches http(s) only).
URL_STARTS = (b"http://", b"https://")


def crawl_name(spider_name: str, crawl_key: str) -> str:
    """The crawl's part of its Redis keys: the spider's name and a digest of its sources.

    >>> crawl_name("site", "site https://example.org/")
    'site:4f66ebeb236c'
    """
    digest = hashlib.sha1(crawl_key.encode("utf-8")).hexdigest()[:CRAWL_DIGEST_LENGTH]
    return f"{spider_name}:{digest}"


def worker_name() -> str:
    """This process among the workers (host and pid, for a person reading Redis)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def shared_client(url: str, retry: float = REDIS_RETRY_DEFAULT) -> redis.Redis:
    """A checked client of ``url`` whose calls ride out an outage of ``retry`` seconds."""
    return connect(url, retry=retry)


class SharedFrontier:
    """The Redis side of one crawl shared by many workers; see the module docstring."""

    def __init__(
        self,
        client: redis.Redis,
        base: str,
        worker: str,
        lease: float = WORKER_LEASE_DEFAULT,
        queue_key: str = "",
        dupefilter_key: str = "",
    ) -> None:
        self.client = client
        self.base = base  # "<prefix>:<spider>:<digest>": the crawl's other keys add to it
        self.worker = worker
        self.lease = lease * BUSY_LEASES
        self.queue_key = queue_key or self.key("requests")
        self.dupefilter_key = dupefilter_key or self.key("dupefilter")
        self.busy = False
        # The crawl's open requests by holder, and this worker's name there: set by
        # hold_open_requests when the state store is shared in Redis.
        self.owners_key = ""
        self.holder = ""
        self.lease_prefix = ""
        self.steadiness = Steadiness(self.lease)
        self._enter = client.register_script(_ENTER)
        self._pop = client.register_script(_POP)
        self._claim = client.register_script(_CLAIM)
        self._claim_and_open = client.register_script(_CLAIM_AND_OPEN)
        self._finish = client.register_script(_FINISH_IF_DRAINED)

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], spider_name: str, crawl_key: str) -> Self:
        """The frontier of a crawl; the queue and duplicate filter keys are scrapy-redis's
        settings (``%(spider)s`` is the crawl's name), the others follow the key prefix."""
        url = redis_url(settings)
        if url is None:
            raise SharedModeError(f"shared mode needs {REDIS_URL_SETTING}")
        lease = float(settings.get("NEWSEXTRACT_WORKER_LEASE") or WORKER_LEASE_DEFAULT)
        crawl = crawl_name(spider_name, crawl_key)
        base = f"{key_prefix(settings)}:{crawl}"
        queue = str(settings.get("SCHEDULER_QUEUE_KEY") or f"{base}:requests")
        dupefilter = str(settings.get("SCHEDULER_DUPEFILTER_KEY") or f"{base}:dupefilter")
        return cls(
            shared_client(url, retry_budget(settings)),
            base,
            worker_name(),
            lease,
            queue_key=queue % {"spider": crawl},
            dupefilter_key=dupefilter % {"spider": crawl},
        )

    def key(self, name: str) -> str:
        return f"{self.base}:{name}"

    def hold_open_requests(self, owners_key: str, holder: str, lease_prefix: str = "") -> None:
        """Open requests are in a shared state store: taking a request makes this worker
        their holder, and the crawl ends only when no other worker holds any (a worker's
        lease is ``lease_prefix`` and its name)."""
        self.owners_key = owners_key
        self.holder = holder
        self.lease_prefix = lease_prefix

    @property
    def run_keys(self) -> list[str]:
        """What one run of the crawl keeps besides its (empty) queue."""
        names = ("claimed", "seeded", "busy", "closing", f"taken:{self.worker}")
        return [self.dupefilter_key, *(self.key(name) for name in names)]

    def take_seeding(self) -> bool:
        """True for the one worker that makes the start requests of this run."""
        # Two calls, each safe to send again: SET NX's own answer is lost with its reply.
        self.client.set(self.key("seeded"), self.worker, nx=True)
        return text(self.client.get(self.key("seeded"))) == self.worker

    def claim(self, url: str) -> bool:
        """True for the first worker to claim ``url`` in this run."""
        return bool(self._claim(keys=[self.key("claimed")], args=[url, self.worker]))

    def claim_and_open(self, url: str, pending_key: str, record: str) -> bool:
        """:meth:`claim`, and for the first claimant the request opened in the state store
        (``pending_key`` and :attr:`owners_key`, held by :attr:`holder`) in the same step."""
        keys = [self.key("claimed"), pending_key, self.owners_key]
        return bool(self._claim_and_open(keys=keys, args=[url, self.worker, record, self.holder]))

    def start_work(self) -> None:
        """The worker opens: busy until Scrapy finds it idle (it may be seeding)."""
        self.busy = True
        self._enter(keys=[self.key("busy")], args=[self.worker, self.lease])

    def renew(self) -> None:
        """Keep a busy worker's lease: Scrapy asks for no request while its downloader is
        full, so taking requests alone would not renew it during slow downloads."""
        if self.busy:
            self._enter(keys=[self.key("busy")], args=[self.worker, self.lease])

    def pop(self) -> bytes | None:
        """The next request's bytes; taking one makes (or keeps) the worker busy."""
        keys = [
            self.queue_key,
            self.key("busy"),
            self.key(f"taken:{self.worker}"),
            self.owners_key or self.key("no-owners"),
            self.key("closing"),
        ]
        token = uuid.uuid4().hex
        args: list[str | float] = [self.worker, self.lease, int(self.busy), token, self.holder]
        data = self._pop(keys=keys, args=args)
        if data:
            self.busy = True
            return cast(bytes, data)
        return None

    def pending_count(self) -> int:
        return int(self.client.zcard(self.queue_key))

    def finish_if_drained(self) -> bool:
        """The worker is idle: True (and the run's keys deleted) when no work is left."""
        self.busy = False
        if not self.steadiness.steady():
            return False
        owners = self.owners_key or self.key("no-owners")
        keys = [self.queue_key, self.key("busy"), owners, self.key("closing"), *self.run_keys]
        args = [self.worker, self.holder, self.lease_prefix]
        return bool(self._finish(keys=keys, args=args))

    def leave(self) -> None:
        """The worker stops: the others need not wait for its lease to run out."""
        self.busy = False
        self.client.zrem(self.key("busy"), self.worker)
        if self.holder:
            self.client.srem(self.key("closing"), self.holder)


class SharedQueue(PriorityQueue):  # type: ignore[misc]  # scrapy-redis has no type hints
    """scrapy-redis's priority queue whose entries begin with the request's URL, so that
    taking one makes its taker the holder of its open request in the same script."""

    def _encode_request(self, request: Request) -> bytes:
        url = request.url.encode("utf-8")
        return url + URL_SEPARATOR + cast(bytes, super()._encode_request(request))

    def _decode_request(self, encoded_request: bytes) -> Request:
        if encoded_request.startswith(URL_STARTS):  # else queued by an earlier version
            _, _, encoded_request = encoded_request.partition(URL_SEPARATOR)
        request = cast(Request, super()._decode_request(encoded_request))
        method = getattr(self.spider, "method", None)  # NewsSpider.method: one object each
        if method is not None:
            for part in ("callback", "errback"):
                bound = getattr(request, part)
                if getattr(bound, "__self__", None) is self.spider:
                    setattr(request, part, method(bound.__name__))
        return request


class SharedDupeFilter(RFPDupeFilter):  # type: ignore[misc]  # scrapy-redis has no hints
    """scrapy-redis's duplicate filter, whose answer survives a retried call: a request
    taken for a duplicate is dropped, and its URL closed in the ledger (lost for the run)."""

    def __init__(self, server: redis.Redis, key: str, debug: bool = False) -> None:
        super().__init__(server, key, debug)
        self._claim = server.register_script(_CLAIM)

    def request_seen(self, request: Request) -> bool:
        fingerprint = self.request_fingerprint(request)
        return not self._claim(keys=[self.key], args=[fingerprint, uuid.uuid4().hex])


class SharedLedger(CrawlLedger):
    """The crawl's ledger whose "asked already?" is answered for all workers at once."""

    def __init__(self, crawl: str, store: HarvestStore | None, frontier: SharedFrontier) -> None:
        super().__init__(crawl, store)
        self.frontier = frontier
        if isinstance(store, RedisStateStore):
            frontier.hold_open_requests(store.owners_key(crawl), store.owner, store.lease_key(""))

    def take(self, request: PendingRequest) -> bool:
        if not self.first_ask(request.url):
            return False
        store = self.store
        if isinstance(store, RedisStateStore) and self.frontier.holder:
            record = store.pending_record(request)
            return self.frontier.claim_and_open(request.url, store.pending_key(self.crawl), record)
        if not self.frontier.claim(request.url):
            return False
        self.open(request)
        return True


class SharedScheduler(Scheduler):  # type: ignore[misc]  # scrapy-redis has no type hints
    """scrapy-redis's scheduler over a :class:`SharedFrontier`: keys per crawl, an atomic
    take-and-mark-busy, the stop rule of the module docstring, and a Redis that stays away
    stopping the crawl with one message."""

    crawler: Crawler
    frontier: SharedFrontier
    renewal: LoopingCall | None = None
    idle_poll = IDLE_POLL_FIRST

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if redis_url(crawler.settings) is None:
            raise SharedModeError(f"{cls.__name__} needs {REDIS_URL_SETTING}")
        serializer = crawler.settings.get("SCHEDULER_SERIALIZER")
        scheduler = cls(
            server=None,  # the frontier's client, once the spider says which crawl this is
            persist=True,  # a worker that stops must not empty the others' queue
            serializer=importlib.import_module(serializer) if serializer else None,
        )
        scheduler.crawler = crawler
        scheduler.stats = crawler.stats
        crawler.signals.connect(scheduler.spider_idle, signal=signals.spider_idle)
        return scheduler

    def open(self, spider: Spider) -> None:
        self.spider = spider
        frontier = getattr(spider, "frontier", None)
        if not isinstance(frontier, SharedFrontier):
            crawl_key = getattr(spider, "crawl_key", lambda: spider.name)()
            frontier = SharedFrontier.from_settings(self.crawler.settings, spider.name, crawl_key)
        self.frontier = frontier
        self.server = frontier.client
        self.queue = SharedQueue(
            server=self.server, spider=spider, key=frontier.queue_key, serializer=self.serializer
        )
        self.df = SharedDupeFilter(self.server, key=frontier.dupefilter_key)
        self._guard(frontier.start_work)
        self.renewal = LoopingCall(self._guard, frontier.renew)
        self.renewal.start(frontier.lease / RENEWALS_PER_LEASE, now=False)
        waiting = self._guard(frontier.pending_count) or 0
        if waiting:
            logger.info("shared crawl %s: resuming, %d requests queued", frontier.base, waiting)

    def close(self, reason: str) -> None:
        if self.renewal is not None and self.renewal.running:
            self.renewal.stop()
        if reason != "finished":
            self._guard(self.frontier.leave)

    def enqueue_request(self, request: Request) -> bool:
        try:
            if not request.dont_filter and self.df.request_seen(request):
                self.df.log(request, self.spider)
                return False
            self.queue.push(request)
        except redis.RedisError as error:
            # The request stays open in the state store: the next run makes it again.
            self._lost(error)
            return True
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis")
        return True

    def next_request(self) -> Request | None:
        data = self._guard(self.frontier.pop)
        if not data:
            return None
        self.idle_poll = IDLE_POLL_FIRST
        if self.stats:
            self.stats.inc_value("scheduler/dequeued/redis")
        return self.queue._decode_request(data)

    def has_pending_requests(self) -> bool:
        return bool(self._guard(self.frontier.pending_count))

    def spider_idle(self) -> None:
        """Scrapy found this worker idle: take over what a dead worker left open, make the
        requests the spider still has for an idle worker, and close only when no worker has
        work left. What a dead worker holds keeps the others from closing (the stop rule of
        the module docstring) until its lease lapses and one of them takes it over here."""
        self._crawl_now(self._guard(self._recover))
        self._crawl_now(self._guard(self._idle_requests))
        if not self._guard(self.frontier.finish_if_drained):
            self._poll_soon()

    def _poll_soon(self) -> None:
        """Look at the shared queue again soon (see :data:`IDLE_POLL_FIRST`), not at
        Scrapy's next heartbeat, then stay open."""
        slot = getattr(self.crawler.engine, "_slot", None)
        if slot is not None:
            slot.nextcall.schedule(self.idle_poll)
        self.idle_poll = min(self.idle_poll * 2, IDLE_POLL_LAST)
        raise DontCloseSpider

    def _crawl_now(self, requests: list[Request] | None) -> None:
        """Hand ``requests`` to the engine and keep the worker open (none: nothing to do)."""
        if requests:
            for request in requests:
                self.crawler.engine.crawl(request)
            raise DontCloseSpider

    def _idle_requests(self) -> list[Request]:
        """The spider's own work left for an idle worker (``idle_requests``): a request this
        worker made may be answered by another, so what the answer leads to is made there,
        and work this worker holds (an id range's chunk) is picked up here."""
        idle_requests = getattr(self.spider, "idle_requests", None)
        return [] if idle_requests is None else list(idle_requests())

    def _recover(self) -> list[Request]:
        """The requests of workers whose lease lapsed. Only a store shared in Redis tells
        whose a request is; a local store's open requests are this worker's own, handed
        back when it starts."""
        ledger = getattr(self.spider, "ledger", None)
        if not isinstance(getattr(ledger, "store", None), RedisStateStore):
            return []
        recovered = getattr(self.spider, "recovered_requests", None)
        return [] if recovered is None else list(recovered())

    def _guard(self, call: Any) -> Any:
        """``call()``, or None once Redis stayed away through every retry (the state store
        says so with its own error)."""
        try:
            return call()
        except (redis.RedisError, StateStoreError) as error:
            self._lost(error)
            return None

    def _lost(self, error: BaseException) -> None:
        stop_crawl(
            self.crawler,
            SharedModeError(
                f"Redis of the shared crawl was lost ({type(error).__name__}: {error}) and did "
                "not come back: the queue and the open requests are kept in Redis; start the "
                "workers again once it is up"
            ),
        )

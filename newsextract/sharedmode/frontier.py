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

When a worker stops
    Only when no work is left anywhere: the queue is empty and no other worker is *busy*.
    A worker is busy from its start (it may be seeding) and from the moment it takes a
    request (in the same atomic step, so no request is ever out of the queue unseen) until
    Scrapy finds it idle. Busy workers are a sorted set of lease deadlines on Redis's own
    clock, renewed while the worker runs; a killed worker's lease runs out after
    ``NEWSEXTRACT_WORKER_LEASE`` seconds, and its open requests wait in the state store for
    the next worker that starts (:mod:`newsextract.spiders.ledger`).

Redis lost mid-crawl
    Every call retries with an exponential backoff (:data:`RECONNECT_RETRIES_DEFAULT`,
    about half a minute in all); a Redis that stays away stops the worker with one message
    and exit status 1. The queue and the open requests are kept, so running the workers
    again loses and repeats nothing. A call retried after its reply was lost may have run
    already: taking a request, claiming a URL, seeding and the duplicate filter answer a
    call sent again as they answered it the first time (a token of the call), so no
    request is taken twice or taken for its own duplicate.
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
from redis.backoff import ExponentialBackoff
from redis.retry import Retry
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
    REDIS_URL_SETTING,
    SharedModeError,
    connect,
    key_prefix,
    redis_url,
    text,
)
from newsextract.sharedmode.state import RedisStateStore
from newsextract.spiders.ledger import CrawlLedger
from newsextract.state import HarvestStore

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
#: Reconnection attempts of one Redis call, with a backoff of 0.25 s doubling up to 4 s:
#: about 36 s in all, enough for a Redis restarted by its service manager.
RECONNECT_RETRIES_DEFAULT = 12
RECONNECT_BACKOFF_BASE = 0.25
RECONNECT_BACKOFF_CAP = 4.0
#: Characters of the crawl's SHA-1 in its keys: enough to tell a corpus's crawls apart.
CRAWL_DIGEST_LENGTH = 12

# KEYS: queue, busy, the worker's last take; ARGV: worker, lease seconds, renew ("1": the
# worker is busy already), a token of the call. The request leaves the queue and the worker
# becomes busy in one step. A call sent again with its token (the reply was lost when Redis
# went down: redis-py retries it) gets the same request back, not the next one.
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
    end
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
# KEYS: busy; ARGV: worker, lease seconds. The worker is busy from now.
_ENTER = """
local clock = redis.call('TIME')
local deadline = tonumber(clock[1]) + tonumber(clock[2]) / 1000000 + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], deadline, ARGV[1])
"""
# KEYS: queue, busy, then the keys of the run to delete; ARGV: worker. 1: drained (and
# the run's keys deleted), 0: work is left in the queue or with a busy worker.
_FINISH_IF_DRAINED = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('ZCARD', KEYS[1]) > 0 or redis.call('ZCARD', KEYS[2]) > 0 then
    return 0
end
for index = 3, #KEYS do
    redis.call('DEL', KEYS[index])
end
return 1
"""


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


def shared_client(url: str, retries: int = RECONNECT_RETRIES_DEFAULT) -> redis.Redis:
    """A checked client of ``url`` whose calls ride out a short outage of Redis."""
    client = connect(url)
    backoff = ExponentialBackoff(cap=RECONNECT_BACKOFF_CAP, base=RECONNECT_BACKOFF_BASE)
    client.set_retry(Retry(backoff, retries))
    return client


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
        self._enter = client.register_script(_ENTER)
        self._pop = client.register_script(_POP)
        self._claim = client.register_script(_CLAIM)
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
            shared_client(url),
            base,
            worker_name(),
            lease,
            queue_key=queue % {"spider": crawl},
            dupefilter_key=dupefilter % {"spider": crawl},
        )

    def key(self, name: str) -> str:
        return f"{self.base}:{name}"

    @property
    def run_keys(self) -> list[str]:
        """What one run of the crawl keeps besides its (empty) queue."""
        names = ("claimed", "seeded", "busy", f"taken:{self.worker}")
        return [self.dupefilter_key, *(self.key(name) for name in names)]

    def take_seeding(self) -> bool:
        """True for the one worker that makes the start requests of this run."""
        # Two calls, each safe to send again: SET NX's own answer is lost with its reply.
        self.client.set(self.key("seeded"), self.worker, nx=True)
        return text(self.client.get(self.key("seeded"))) == self.worker

    def claim(self, url: str) -> bool:
        """True for the first worker to claim ``url`` in this run."""
        return bool(self._claim(keys=[self.key("claimed")], args=[url, self.worker]))

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
        keys = [self.queue_key, self.key("busy"), self.key(f"taken:{self.worker}")]
        token = uuid.uuid4().hex
        data = self._pop(keys=keys, args=[self.worker, self.lease, int(self.busy), token])
        if data:
            self.busy = True
            return cast(bytes, data)
        return None

    def pending_count(self) -> int:
        return int(self.client.zcard(self.queue_key))

    def drained(self) -> bool:
        """The worker is idle: True when no work is left (the run's keys are kept)."""
        self.busy = False
        keys = [self.queue_key, self.key("busy")]
        return bool(self._finish(keys=keys, args=[self.worker]))

    def finish_if_drained(self) -> bool:
        """The worker is idle: True (and the run's keys deleted) when no work is left."""
        self.busy = False
        keys = [self.queue_key, self.key("busy"), *self.run_keys]
        return bool(self._finish(keys=keys, args=[self.worker]))

    def leave(self) -> None:
        """The worker stops: the others need not wait for its lease to run out."""
        self.busy = False
        self.client.zrem(self.key("busy"), self.worker)


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

    def claim(self, url: str) -> bool:
        if url in self.requested:
            return False
        self.requested.add(url)
        return self.frontier.claim(url)


class SharedScheduler(Scheduler):  # type: ignore[misc]  # scrapy-redis has no type hints
    """scrapy-redis's scheduler over a :class:`SharedFrontier`: keys per crawl, an atomic
    take-and-mark-busy, the stop rule of the module docstring, and a Redis that stays away
    stopping the crawl with one message."""

    crawler: Crawler
    frontier: SharedFrontier
    renewal: LoopingCall | None = None

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
        self.queue = PriorityQueue(
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
        if self.stats:
            self.stats.inc_value("scheduler/dequeued/redis")
        return cast(Request, self.queue._decode_request(data))

    def has_pending_requests(self) -> bool:
        return bool(self._guard(self.frontier.pending_count))

    def spider_idle(self) -> None:
        """Scrapy found this worker idle: take over what a dead worker left open, and
        close only when no worker has work left. A dead worker stops counting as busy
        after its state-store lease has lapsed (:data:`BUSY_LEASES`), so what it left open
        is looked for once more when the frontier seems drained, before the run ends."""
        self._take_over()
        if not self._guard(self.frontier.drained):
            raise DontCloseSpider
        self._take_over()
        if self._guard(self.frontier.finish_if_drained) is False:
            raise DontCloseSpider

    def _take_over(self) -> None:
        recovered = self._guard(self._recover) or []
        if recovered:
            for request in recovered:
                self.crawler.engine.crawl(request)
            raise DontCloseSpider

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
        """``call()``, or None once Redis stayed away through every retry."""
        try:
            return call()
        except redis.RedisError as error:
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

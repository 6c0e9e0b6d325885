"""The shared frontier against a real Redis: the add-on's settings, seeding once, one
claim a URL, the stop rule of many workers, and requests that survive the Redis queue."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from scrapy.http import Request
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from newsextract import settings as project_settings
from newsextract.sharedmode.addon import SHARED_DUPEFILTER, SHARED_SCHEDULER, SharedMode
from newsextract.sharedmode.connection import OUTAGES
from newsextract.sharedmode.frontier import (
    SharedDupeFilter,
    SharedFrontier,
    SharedQueue,
    crawl_name,
    shared_client,
)
from newsextract.spiders.base import VALUE_META, NewsSpider
from newsextract.spiders.idrange import IdRangeSpider
from newsextract.spiders.site import SiteSpider
from newsextract.state import PendingRequest

CRAWL = "site https://example.org/"


def frontier(url: str, worker: str, crawl: str = CRAWL, lease: float = 30.0) -> SharedFrontier:
    base = f"test:{crawl_name('site', crawl)}"
    return SharedFrontier(shared_client(url), base, worker, lease)


# --- the add-on -----------------------------------------------------------------------


def project(**overrides: object) -> Settings:
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    settings.setdict(overrides, priority="cmdline")
    return settings


def test_embedded_mode_keeps_the_embedded_scheduler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEWSEXTRACT_REDIS_URL", raising=False)
    settings = project()
    before = dict(settings)
    SharedMode().update_settings(settings)
    assert dict(settings) == before
    assert settings["SCHEDULER"] == "newsextract.scheduler.EmbeddedScheduler"


@pytest.mark.parametrize("source", ["setting", "environment"])
def test_one_setting_switches_to_the_shared_frontier(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = "redis://127.0.0.1:1/0"
    monkeypatch.delenv("NEWSEXTRACT_REDIS_URL", raising=False)
    if source == "environment":
        monkeypatch.setenv("NEWSEXTRACT_REDIS_URL", url)
        settings = project(NEWSEXTRACT_REDIS_PREFIX="corpus")
    else:
        settings = project(NEWSEXTRACT_REDIS_URL=url, NEWSEXTRACT_REDIS_PREFIX="corpus")
    SharedMode().update_settings(settings)
    assert settings["SCHEDULER"] == SHARED_SCHEDULER
    assert settings["DUPEFILTER_CLASS"] == SHARED_DUPEFILTER
    assert settings.getbool("SCHEDULER_PERSIST")
    assert settings["REDIS_URL"] == url
    assert settings["SCHEDULER_QUEUE_KEY"] == "corpus:%(spider)s:requests"
    assert settings["SCHEDULER_DUPEFILTER_KEY"] == "corpus:%(spider)s:dupefilter"


def test_the_addon_is_registered() -> None:
    assert "newsextract.sharedmode.addon.SharedMode" in project().getdict("ADDONS")


# --- seeding, claims and the stop rule ------------------------------------------------


def test_one_worker_seeds_a_run(redis_url: str) -> None:
    first, second = frontier(redis_url, "a"), frontier(redis_url, "b")
    assert first.take_seeding()
    assert not second.take_seeding()
    other_crawl = frontier(redis_url, "c", crawl="site https://example.com/")
    assert other_crawl.take_seeding()


def test_a_url_is_claimed_by_one_worker(redis_url: str) -> None:
    first, second = frontier(redis_url, "a"), frontier(redis_url, "b")
    assert first.claim("https://example.org/1.html")
    assert not second.claim("https://example.org/1.html")
    assert second.claim("https://example.org/2.html")


def test_no_worker_stops_while_another_is_busy(redis_url: str) -> None:
    first, second = frontier(redis_url, "a"), frontier(redis_url, "b")
    first.start_work()
    second.start_work()
    assert first.take_seeding()
    assert first.claim("https://example.org/1.html")
    assert not first.finish_if_drained()  # b is still busy
    assert not second.take_seeding()
    assert second.finish_if_drained()  # a went idle: the run is over, its keys go
    assert not redis.Redis.from_url(redis_url).keys(f"{first.base}:*")
    # The next scheduled run seeds again and may claim every URL again.
    assert frontier(redis_url, "c").take_seeding()
    assert frontier(redis_url, "c").claim("https://example.org/1.html")


def test_taking_a_request_makes_a_worker_busy_at_once(redis_url: str) -> None:
    taker, other = frontier(redis_url, "a"), frontier(redis_url, "b")
    taker.client.zadd(taker.queue_key, {b"request": 0})
    assert other.pending_count() == 1
    assert not other.finish_if_drained()  # work in the queue
    assert taker.pop() == b"request"
    assert other.pending_count() == 0
    assert not other.finish_if_drained()  # the request is in flight with a
    assert taker.finish_if_drained()  # a is done with it: no work is left anywhere


def test_a_call_sent_again_after_a_lost_reply_gets_the_same_answer(redis_url: str) -> None:
    """redis-py sends a call again when its connection drops: the first one may have run.
    The retry must neither take a second request (the first would be lost) nor find its
    own claim taken (its link would never be requested)."""
    worker = frontier(redis_url, "a")
    worker.client.zadd(worker.queue_key, {b"first": 0, b"second": 1})
    keys = [worker.queue_key, worker.key("busy"), worker.key("taken:a"), "x", "y"]
    args = ["a", 30, 0, "token-1", ""]
    assert worker._pop(keys=keys, args=args) == b"first"
    assert worker._pop(keys=keys, args=args) == b"first"  # the same call, sent again
    assert worker.pop() == b"second"
    assert worker.claim("https://example.org/1.html")
    assert worker.claim("https://example.org/1.html")  # the same worker's call again
    assert not frontier(redis_url, "b").claim("https://example.org/1.html")
    assert worker.take_seeding() and worker.take_seeding()


def test_the_duplicate_filter_answers_once(redis_url: str) -> None:
    dupes = SharedDupeFilter(redis.Redis.from_url(redis_url), "test:dupefilter")
    request = Request("https://example.org/1.html")
    assert not dupes.request_seen(request)
    assert dupes.request_seen(request)
    assert dupes.request_seen(Request("https://example.org/1.html#part"))


def test_a_dead_workers_lease_runs_out(redis_url: str) -> None:
    dead, alive = frontier(redis_url, "a", lease=0.2), frontier(redis_url, "b", lease=0.2)
    dead.start_work()
    assert not alive.finish_if_drained()
    time.sleep(0.4)  # 1.5 leases
    assert alive.finish_if_drained()


def test_after_an_outage_no_worker_stops_before_a_lease_connected(redis_url: str) -> None:
    """Redis came back without the busy deadlines (lapsed while it was away): a worker that
    saw it go waits a busy lease before it finds the crawl done; live workers renew theirs
    in that time."""
    lapsed, alive = frontier(redis_url, "a", lease=0.2), frontier(redis_url, "b", lease=0.2)
    lapsed.start_work()
    lapsed.client.delete(lapsed.key("busy"))
    OUTAGES.failed()
    assert not alive.finish_if_drained()
    lapsed.renew()
    time.sleep(0.2)
    assert not alive.finish_if_drained()  # a renewed its deadline
    time.sleep(0.4)
    assert alive.finish_if_drained()  # and then it lapsed: a is dead


def test_a_worker_that_gave_up_waiting_for_the_end_keeps_the_crawl_open(redis_url: str) -> None:
    """A worker that was stopping (holding pages until the end) and then stopped without a
    word (Redis away past its budget, or killed) is not counted as stopping any more once its
    lease in the state store has lapsed: its requests wait for its next run, or a takeover."""
    gone, other = holding(redis_url, "a"), holding(redis_url, "b")
    gone.lease_prefix = other.lease_prefix = "test:worker:"
    gone.client.set("test:worker:a", "1")
    gone.client.hset("test:owners", mapping={"https://example.org/1.html": "a|s"})
    gone.client.hset("test:owners", mapping={"https://example.org/2.html": "b|s"})
    assert not gone.finish_if_drained()  # b holds a page; a is stopping from now
    gone.client.delete("test:worker:a")  # and then a stopped without a word
    assert not other.finish_if_drained()
    gone.client.set("test:worker:a", "1")
    assert other.finish_if_drained()  # a alive and stopping: b may end


def test_a_worker_that_leaves_is_not_waited_for(redis_url: str) -> None:
    leaving, staying = frontier(redis_url, "a"), frontier(redis_url, "b")
    leaving.start_work()
    leaving.leave()
    assert staying.finish_if_drained()


def holding(url: str, worker: str) -> SharedFrontier:
    """A worker whose open requests are in the hash ``test:owners``, held as ``worker|s``."""
    made = frontier(url, worker)
    made.hold_open_requests("test:owners", f"{worker}|s")
    return made


def test_taking_a_request_makes_the_taker_its_holder(redis_url: str) -> None:
    opener, taker = holding(redis_url, "a"), holding(redis_url, "b")
    opener.client.hset("test:owners", "https://example.org/1.html", "a|s")
    opener.client.zadd(opener.queue_key, {b"https://example.org/1.html\nrequest": 0})
    assert taker.pop() == b"https://example.org/1.html\nrequest"
    assert taker.client.hget("test:owners", "https://example.org/1.html") == b"b|s"


def test_no_worker_stops_while_another_holds_open_requests(redis_url: str) -> None:
    """Open requests in a worker's hands (a page fetched, or held by the pipeline until a
    template is learned) keep the others running until it stops too; one killed holding
    them keeps the others until its requests are taken over."""
    holder, other = holding(redis_url, "a"), holding(redis_url, "b")
    holder.client.hset("test:owners", "https://example.org/1.html", "a|s")
    assert not other.finish_if_drained()  # a holds a page and is not stopping
    holder.client.hset("test:owners", "https://example.org/1.html", "b|s")  # taken over
    assert other.finish_if_drained()


def test_workers_that_all_hold_pages_stop_together(redis_url: str) -> None:
    first, second = holding(redis_url, "a"), holding(redis_url, "b")
    first.client.hset("test:owners", mapping={"https://example.org/1.html": "a|s"})
    first.client.hset("test:owners", mapping={"https://example.org/2.html": "b|s"})
    assert not first.finish_if_drained()  # b holds a page, and is not stopping yet
    assert second.finish_if_drained()  # a is stopping: it settles its own page as it closes
    assert not first.finish_if_drained()  # b has not settled its page yet
    second.client.hdel("test:owners", "https://example.org/2.html")  # b closed
    assert first.finish_if_drained()


# --- requests through the Redis queue -------------------------------------------------


def spider_of(spider_class: type[NewsSpider], **arguments: str) -> NewsSpider:
    crawler = get_crawler(spider_class, {"NEWSEXTRACT_STATE": "off"})
    return spider_class.from_crawler(crawler, **arguments)


@pytest.mark.parametrize(
    ("spider", "callback", "value"),
    [
        (SiteSpider, "parse", None),
        (SiteSpider, "parse_article", None),
        (SiteSpider, "parse_sitemap", None),
        (IdRangeSpider, "parse_id", 1234),
    ],
)
def test_requests_survive_the_redis_queue(
    redis_url: str, spider: type[NewsSpider], callback: str, value: int | None
) -> None:
    """Callbacks and errbacks are spider methods and meta plain values: scrapy-redis's
    queue (pickled ``Request.to_dict``) gives the same request back."""
    if spider is IdRangeSpider:
        made = spider_of(spider, url_template="https://example.org/n/{id}", ids="1-5")
    else:
        made = spider_of(spider, start_url="https://example.org/", allow="/n/")
    request = made.make_request(
        PendingRequest("https://example.org/n/1", callback, "on_error", value), priority=3
    )
    server = redis.Redis.from_url(redis_url)
    queue = SharedQueue(server, made, "test:requests")
    queue.push(request)
    assert server.zrange("test:requests", 0, 0)[0].startswith(b"https://example.org/n/1\n")
    back = queue.pop()
    assert back is not None
    assert back.url == request.url and back.priority == request.priority
    assert back.callback == getattr(made, callback)
    assert back.errback == made.on_error
    # the spider's one object of each method, as the requests it makes carry
    assert back.callback is request.callback and back.errback is request.errback
    assert back.meta == ({} if value is None else {VALUE_META: value})


# --- the crawl command ----------------------------------------------------------------


def test_a_redis_url_that_is_not_one_is_refused(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "scrapy", "crawl", "site"]
    command += ["-a", "start_url=http://127.0.0.1:9/", "-a", "allow=/n/"]
    command += ["-s", "NEWSEXTRACT_REDIS_URL=not-a-url"]
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "newsextract.settings"}
    env.pop("NEWSEXTRACT_REDIS_URL", None)
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "NEWSEXTRACT_REDIS_URL='not-a-url' is not a Redis URL" in done.stderr


def test_shared_mode_fetches_listings_before_articles(redis_url: str) -> None:
    """The queue outlives a stop, and a wide frontier keeps every worker busy: listings
    come first in shared mode; embedded mode keeps articles first."""
    settings = {"NEWSEXTRACT_STATE": "off", "NEWSEXTRACT_REDIS_URL": redis_url}
    arguments = {"start_url": "https://example.org/", "allow": "/n/"}
    shared = SiteSpider.from_crawler(get_crawler(SiteSpider, settings), **arguments)
    embedded = spider_of(SiteSpider, **arguments)
    for spider, listings_first in ((shared, True), (embedded, False)):
        listing = spider.make_request(PendingRequest("https://example.org/", "parse", "on_error"))
        article = spider.make_request(
            PendingRequest("https://example.org/n/1", "parse_article", "on_error")
        )
        assert (listing.priority > article.priority) is listings_first


def test_a_claimed_url_is_open_in_the_same_step(redis_url: str) -> None:
    """A worker killed right after it claimed a link must leave it open for another to take
    over: the claim and the open request are one script."""
    first, second = holding(redis_url, "a"), holding(redis_url, "b")
    url = "https://example.org/1.html"
    assert first.claim_and_open(url, "test:pending", '{"url": "x"}')
    assert first.client.hget("test:owners", url) == b"a|s"
    assert first.client.hget("test:pending", url) == b'{"url": "x"}'
    assert first.claim_and_open(url, "test:pending", '{"url": "x"}')  # its call sent again
    assert not second.claim_and_open(url, "test:pending", '{"url": "y"}')
    assert first.client.hget("test:owners", url) == b"a|s"

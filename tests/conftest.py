"""Shared fixtures: where the development data lives (read in place, never copied)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from crawl_runner import CrawlRunner, SiteProcess
from devdata import SHARED_DATA, require_set
from mirror import Mirror, build_mirror
from redis_server import RedisServer

from newsextract.sharedmode.connection import OUTAGES


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The development data; a test asking for it skips without it (fails in CI)."""
    require_set(SHARED_DATA, "dragnet")
    return SHARED_DATA


# --- the offline test rig: a mirror site, its server and the scrapy runner ---------------


@pytest.fixture(scope="session")
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteProcess]:
    """The local site server (a subprocess on 127.0.0.1) over an initially empty root."""
    base = tmp_path_factory.mktemp("site")
    (base / "root").mkdir()
    server = SiteProcess(base / "root", base / "access.log")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def mirror_site(site_server: SiteProcess, shared_data: Path) -> Mirror:
    """The mirror news site built from the development data, served by ``site_server``."""
    return build_mirror(site_server.root, shared_data, site_server.origin)


@pytest.fixture(scope="session")
def crawl_runner(site_server: SiteProcess) -> CrawlRunner:
    return CrawlRunner(site_server)


# --- shared mode: a real Redis on a loopback port of its own ----------------------------


@pytest.fixture(scope="session")
def redis_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_session: RedisServer) -> str:
    """The URL of an empty Redis (the session's server, flushed for each test). The test
    starts as a new worker process would: no outage seen (a test may have stopped Redis)."""
    OUTAGES.since = None
    OUTAGES.gave_up = False
    if redis_session.process is None or redis_session.process.poll() is not None:
        redis_session.start()  # a test that stopped it
    with redis.Redis.from_url(redis_session.url) as client:
        client.flushall()
    return redis_session.url

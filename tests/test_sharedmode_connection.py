"""One retry budget for every Redis call of a crawl, and the record of when this process
last lost Redis (issue 36), against a real Redis stopped and started by the tests."""

from __future__ import annotations

import threading
import time

import pytest
import redis
from redis_server import RedisServer

from newsextract.sharedmode.connection import (
    OUTAGES,
    REDIS_RETRY_DEFAULT,
    Steadiness,
    connect,
    retry_budget,
)


def test_the_retry_budget_is_a_setting_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NEWSEXTRACT_REDIS_RETRY", raising=False)
    assert retry_budget({}) == REDIS_RETRY_DEFAULT >= 30
    assert retry_budget({"NEWSEXTRACT_REDIS_RETRY": "45"}) == 45.0
    monkeypatch.setenv("NEWSEXTRACT_REDIS_RETRY", "12")
    assert retry_budget({}) == 12.0


def test_a_call_waits_out_an_outage_within_its_budget(
    redis_url: str, redis_session: RedisServer
) -> None:
    client = connect(redis_url, retry=20.0)
    client.set("key", "kept")
    restart = threading.Thread(target=redis_session.restart, kwargs={"down_seconds": 2.0})
    restart.start()
    time.sleep(0.5)  # Redis is down
    assert client.get("key") == b"kept"  # the append-only file brought it back
    restart.join()
    assert OUTAGES.connected_for() < 20.0  # the outage was seen


def test_a_call_fails_once_its_budget_is_spent(redis_url: str, redis_session: RedisServer) -> None:
    client = connect(redis_url, retry=1.0)
    redis_session.stop()
    started = time.monotonic()
    with pytest.raises(redis.ConnectionError):
        client.get("key")
    assert 0.5 < time.monotonic() - started < 5.0
    assert OUTAGES.gave_up
    started = time.monotonic()
    with pytest.raises(redis.ConnectionError):  # the crawl is stopping: one attempt
        client.get("key")
    assert time.monotonic() - started < 0.5


def test_steady_only_after_a_whole_lease_connected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(OUTAGES, "since", None)  # a process that never lost Redis
    steadiness = Steadiness(seconds=0.5)
    assert steadiness.steady()  # nothing lost since this process started
    OUTAGES.failed()
    assert not steadiness.steady()
    time.sleep(0.6)
    assert steadiness.steady()

"""The state store in Redis (shared mode), against a real Redis: the SQLite store's guarantees
for many workers (two stores here are two workers), open requests held under a lease and
recovered by exactly one worker, and a Redis that fails or restarts."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from redis_server import RedisServer, free_port

from newsextract.sharedmode.connection import OUTAGES, REDIS_RETRY_DEFAULT
from newsextract.sharedmode.state import RedisStateStore, public_url, worker_id
from newsextract.state import PendingRequest, StateStoreError, content_hash, open_store

PREFIX = "test"
#: The tests' lease: renewed every second, so a loaded machine does not let it lapse, and
#: short enough to wait for (a crawl uses 30 s).
LEASE = 3.0
#: Quick retries for the tests of a Redis that stays away.
SHORT_RETRY = 0.3


@pytest.fixture
def stores(redis_url: str) -> Iterator[list[RedisStateStore]]:
    """Stores to close at the end of the test (each one a worker)."""
    opened: list[RedisStateStore] = []
    yield opened
    for store in opened:
        store.close()


def worker(
    stores: list[RedisStateStore],
    url: str,
    name: str,
    on_error: Callable[[StateStoreError], None] | None = None,
    retry: float = REDIS_RETRY_DEFAULT,
) -> RedisStateStore:
    store = RedisStateStore(url, PREFIX, name, LEASE, on_error, retry)
    stores.append(store)
    return store


def test_a_harvest_is_seen_by_a_second_worker(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    first, second = worker(stores, redis_url, "a"), worker(stores, redis_url, "b")
    assert not second.is_harvested("https://a.jp/1")
    assert first.record_harvest("https://a.jp/1", content_hash("text one"), "a.jp") is None
    assert second.is_harvested("https://a.jp/1")
    assert second.harvested_count() == 1


def test_the_same_text_under_another_url_is_recorded_once(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    first, second = worker(stores, redis_url, "a"), worker(stores, redis_url, "b")
    first.record_harvest("https://a.jp/1", content_hash("the story"))
    assert second.holder_of(content_hash("the story"), "https://a.jp/amp/1") == "https://a.jp/1"
    assert second.record_harvest("https://a.jp/amp/1", content_hash("the  story\n")) == (
        "https://a.jp/1"
    )
    assert not first.is_harvested("https://a.jp/amp/1")
    assert first.holder_of(content_hash("the story"), "https://a.jp/1") is None


def test_two_workers_racing_with_one_text_keep_it_once(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    first, second = worker(stores, redis_url, "a"), worker(stores, redis_url, "b")
    digest = content_hash("one story, two addresses")
    results: dict[str, str | None] = {}
    barrier = threading.Barrier(2)

    def record(store: RedisStateStore, url: str) -> None:
        barrier.wait()
        results[url] = store.record_harvest(url, digest)

    threads = [
        threading.Thread(target=record, args=(first, "https://a.jp/1")),
        threading.Thread(target=record, args=(second, "https://a.jp/2")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kept = [url for url, holder in results.items() if holder is None]
    assert len(kept) == 1
    assert [holder for holder in results.values() if holder is not None] == kept
    assert first.harvested_count() == 1


def test_the_same_url_again_updates_its_hash(redis_url: str, stores: list[RedisStateStore]) -> None:
    store = worker(stores, redis_url, "a")
    store.record_harvest("https://a.jp/1", content_hash("old"))
    assert store.record_harvest("https://a.jp/1", content_hash("corrected")) is None
    assert store.record_harvest("https://a.jp/2", content_hash("old")) is None
    assert store.harvested_count() == 2


def test_a_url_that_redirected_to_a_harvested_page_is_harvested(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    store = worker(stores, redis_url, "a")
    store.record_alias("https://a.jp/short/1", "https://a.jp/news/1.html")
    assert not store.is_harvested("https://a.jp/short/1")
    store.record_harvest("https://a.jp/news/1.html", content_hash("one"))
    assert store.is_harvested("https://a.jp/short/1")
    assert not store.is_harvested("https://a.jp/short/2")


def test_progress_is_a_high_water_mark_across_workers(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    first, second = worker(stores, redis_url, "a"), worker(stores, redis_url, "b")
    assert first.progress("idrange x") is None
    values = list(range(1, 401))

    def raise_progress(store: RedisStateStore, mine: list[int]) -> None:
        for value in mine:
            store.record_progress("idrange x", value)

    threads = [
        threading.Thread(target=raise_progress, args=(first, values[1::2][::-1])),
        threading.Thread(target=raise_progress, args=(second, values[::2])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert first.progress("idrange x") == 400
    second.record_progress("idrange x", 100)
    assert first.progress("idrange x") == 400
    first.clear_progress("idrange x")
    assert second.progress("idrange x") is None
    assert first.progress("idrange y") is None


def test_pending_requests_are_kept_per_crawl_until_cleared(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    store = worker(stores, redis_url, "a")
    store.add_pending("site a", PendingRequest("https://a.jp/1", "parse_article", "on_error"))
    store.add_pending("site a", PendingRequest("https://a.jp/7", "parse_id", "on_id_error", 7))
    store.add_pending("site a", PendingRequest("https://a.jp/3", "parse", "on_error"))
    store.add_pending("site b", PendingRequest("https://b.jp/", "parse", "on_error"))
    store.clear_pending("site a", "https://a.jp/1")
    assert store.pending("site a") == []  # in its own hands: nothing to recover
    store.close()
    store = worker(stores, redis_url, "a")  # the same worker again, in a new session
    assert store.pending("site a") == [
        PendingRequest("https://a.jp/7", "parse_id", "on_id_error", 7),
        PendingRequest("https://a.jp/3", "parse", "on_error"),
    ]
    assert [request.url for request in store.pending("site b")] == ["https://b.jp/"]
    assert store.is_pending("site a", "https://a.jp/7")
    assert not store.is_pending("site a", "https://a.jp/1")


def test_a_live_workers_requests_are_not_recovered_by_another(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    owner, other = worker(stores, redis_url, "owner"), worker(stores, redis_url, "other")
    owner.add_pending("site a", PendingRequest("https://a.jp/1", "parse_article", "on_error"))
    time.sleep(LEASE * 1.2)  # the heartbeat keeps the owner's lease
    assert other.pending("site a") == [] and owner.pending("site a") == []


def test_a_lease_lapsed_in_an_outage_is_not_a_dead_worker(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    """Redis came back from a snapshot in which the owner's lease had lapsed: the other
    worker, which saw Redis go, counts nobody out until it has been connected for a lease,
    and by then the owner's heartbeat has renewed its lease."""
    owner, other = worker(stores, redis_url, "owner"), worker(stores, redis_url, "other")
    owner.add_pending("site a", PendingRequest("https://a.jp/1", "parse_article", "on_error"))
    OUTAGES.failed()
    with redis.Redis.from_url(redis_url) as client:
        client.delete(owner.lease_key("owner"))
    assert other.pending("site a") == []
    time.sleep(LEASE * 1.2)
    assert other.pending("site a") == []  # the owner renewed its lease meanwhile


def test_a_cleanly_closed_worker_leaves_its_requests_at_once(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    owner = RedisStateStore(redis_url, PREFIX, "owner", lease=60)
    owner.add_pending("site a", PendingRequest("https://a.jp/1", "parse_article", "on_error"))
    owner.close()
    assert [r.url for r in worker(stores, redis_url, "next").pending("site a")] == [
        "https://a.jp/1"
    ]


def test_a_worker_restarted_under_its_own_id_gets_its_requests_back_at_once(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    killed = kill_a_worker_with_open_requests(redis_url, "fixed-id", 3, lease=60)
    assert killed == ["https://a.jp/0", "https://a.jp/1", "https://a.jp/2"]
    assert worker(stores, redis_url, "other").pending("site a") == []  # its lease holds
    again = worker(stores, redis_url, "fixed-id")
    assert [r.url for r in again.pending("site a")] == killed


KILLED_WORKER = """
import os, signal, sys
from newsextract.sharedmode.state import RedisStateStore
from newsextract.state import PendingRequest
url, name, count, lease = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
store = RedisStateStore(url, "test", name, lease)
for number in range(count):
    request = PendingRequest(f"https://a.jp/{number}", "parse_article", "on_error")
    store.add_pending("site a", request)
os.kill(os.getpid(), signal.SIGKILL)
"""


def kill_a_worker_with_open_requests(url: str, name: str, count: int, lease: float) -> list[str]:
    """A worker process that opens requests and is killed outright (no clean close)."""
    done = subprocess.run(
        [sys.executable, "-c", KILLED_WORKER, url, name, str(count), str(lease)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == -9, done.stderr
    return [f"https://a.jp/{number}" for number in range(count)]


def lapse_of(url: str, name: str) -> None:
    """Wait until the lease of worker ``name`` has lapsed."""
    deadline = time.monotonic() + LEASE + 5
    with redis.Redis.from_url(url) as client:
        while client.exists(f"{PREFIX}:worker:{name}"):
            assert time.monotonic() < deadline, "the lease did not lapse"
            time.sleep(0.05)


def test_a_killed_workers_requests_go_to_exactly_one_of_two_recovering_workers(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    opened = kill_a_worker_with_open_requests(redis_url, "killed", 200, lease=LEASE)
    first, second = worker(stores, redis_url, "first"), worker(stores, redis_url, "second")
    assert first.pending("site a") == []  # the dead worker's lease has not lapsed yet
    lapse_of(redis_url, "killed")
    recovered: dict[str, list[str]] = {}
    barrier = threading.Barrier(2)

    def recover(store: RedisStateStore) -> None:
        barrier.wait()
        recovered[store.worker] = [request.url for request in store.pending("site a")]

    threads = [threading.Thread(target=recover, args=(store,)) for store in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(recovered["first"] + recovered["second"]) == sorted(opened)
    assert not set(recovered["first"]) & set(recovered["second"])
    # What each recovered is in its hands now: nobody gets it again.
    assert first.pending("site a") == [] and second.pending("site a") == []
    assert worker(stores, redis_url, "third").pending("site a") == []


# --- a Redis that fails ------------------------------------------------------------------


def test_a_redis_that_stays_away_stops_the_crawl_with_one_clear_message(
    redis_url: str, redis_session: RedisServer, stores: list[RedisStateStore]
) -> None:
    told: list[StateStoreError] = []
    store = worker(stores, redis_url, "a", on_error=told.append, retry=SHORT_RETRY)
    store.record_harvest("https://a.jp/1", content_hash("one"))
    redis_session.stop()
    with pytest.raises(StateStoreError) as failed:
        store.is_harvested("https://a.jp/1")
    message = str(failed.value)
    assert redis_url in message and "cannot be reached" in message
    assert "NEWSEXTRACT_REDIS_URL" in message
    started = time.monotonic()
    for _ in range(10):  # after the first failure, every call fails at once
        with pytest.raises(StateStoreError, match="cannot be reached"):
            store.add_pending("site a", PendingRequest("https://a.jp/2", "parse", "on_error"))
    assert time.monotonic() - started < 1.5  # waiting on each: 10 x SHORT_RETRY, 3 s
    assert len(told) == 1 and str(told[0]) == message


def test_an_article_redis_did_not_record_is_recorded_when_the_worker_starts_again(
    redis_url: str, redis_session: RedisServer, tmp_path: Path, stores: list[RedisStateStore]
) -> None:
    """The feed wrote it, then Redis stayed away past the budget: the journal keeps it, and
    the worker's next start under the same id records it before anything else."""
    settings = {
        "NEWSEXTRACT_REDIS_URL": redis_url,
        "NEWSEXTRACT_REDIS_PREFIX": PREFIX,
        "NEWSEXTRACT_DATA_DIR": str(tmp_path),
        "NEWSEXTRACT_WORKER_ID": "w1",
        "NEWSEXTRACT_REDIS_RETRY": "0.3",
    }
    first = RedisStateStore.from_settings(settings, on_error=lambda error: None)
    stores.append(first)
    first.record_harvest("https://a.jp/1", content_hash("one"))
    assert (tmp_path / "unrecorded-w1.jsonl").read_text() == ""  # recorded: nothing kept
    redis_session.stop()
    with pytest.raises(StateStoreError):
        first.record_harvest("https://a.jp/2", content_hash("two"), "a.jp", "2026-12-01")
    redis_session.start()
    again = RedisStateStore.from_settings(settings)
    stores.append(again)
    assert again.is_harvested("https://a.jp/2")
    assert not (tmp_path / "unrecorded-w1.jsonl").exists()


def test_a_redis_that_refuses_a_command_is_a_clear_error(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    told: list[StateStoreError] = []
    store = worker(stores, redis_url, "a", on_error=told.append)
    with redis.Redis.from_url(redis_url) as client:
        client.set(f"{PREFIX}:state:harvested", "not a hash")  # say, another program's key
    with pytest.raises(StateStoreError, match="cannot be used") as failed:
        store.harvested_count()
    assert redis_url in str(failed.value) and "WRONGTYPE" in str(failed.value)
    assert len(told) == 1


def test_a_redis_restarted_mid_crawl_is_ridden_out(
    redis_url: str, redis_session: RedisServer, stores: list[RedisStateStore]
) -> None:
    told: list[StateStoreError] = []
    store = worker(stores, redis_url, "a", on_error=told.append)
    store.record_harvest("https://a.jp/0", content_hash("story 0"))
    restart = threading.Thread(target=redis_session.restart, kwargs={"down_seconds": 1.0})
    restart.start()
    number = 1
    deadline = time.monotonic() + 2.5  # through the restart and past it
    while time.monotonic() < deadline or restart.is_alive():
        assert (
            store.record_harvest(f"https://a.jp/{number}", content_hash(f"story {number}")) is None
        )
        store.record_progress("idrange x", number)
        number += 1
        time.sleep(0.01)
    restart.join()
    assert told == []
    assert store.harvested_count() == number  # nothing lost, the restart kept the data
    assert store.progress("idrange x") == number - 1


# --- opening the store -------------------------------------------------------------------


def test_open_store_gives_the_redis_store_in_shared_mode(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NEWSEXTRACT_REDIS_URL", raising=False)
    settings = {
        "NEWSEXTRACT_REDIS_URL": redis_url,
        "NEWSEXTRACT_REDIS_PREFIX": PREFIX,
        "NEWSEXTRACT_WORKER_ID": "w1",
        "NEWSEXTRACT_DATA_DIR": str(tmp_path),
    }
    store = open_store(settings)
    assert isinstance(store, RedisStateStore)
    assert store.worker == "w1" and store.prefix == PREFIX
    store.close()
    assert store.closed
    assert open_store({**settings, "NEWSEXTRACT_STATE": "off"}) is None


def test_open_store_refuses_an_unreachable_redis(free_url: str, tmp_path: Path) -> None:
    settings = {"NEWSEXTRACT_REDIS_URL": free_url, "NEWSEXTRACT_DATA_DIR": str(tmp_path)}
    with pytest.raises(StateStoreError, match="cannot be reached") as refused:
        open_store(settings)
    assert free_url in str(refused.value)


@pytest.fixture
def free_url() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"


def test_worker_ids_are_one_per_process_unless_set() -> None:
    assert worker_id({}) == worker_id({})
    assert worker_id({"NEWSEXTRACT_WORKER_ID": "crawler-3"}) == "crawler-3"


def test_messages_leave_the_password_out() -> None:
    assert public_url("redis://user:secret@cache:6380/1") == "redis://cache:6380/1"
    assert public_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_a_recovery_sent_again_after_a_lost_reply_gets_the_same_requests(
    redis_url: str, stores: list[RedisStateStore]
) -> None:
    """redis-py sends a call again when its connection drops, and the first may have run:
    it made the dead worker's requests this session's own, which a claim does not return.
    The retry must get them back, or they would wait, open and unrequested, for the next run."""
    opened = kill_a_worker_with_open_requests(redis_url, "killed", 5, lease=LEASE)
    lapse_of(redis_url, "killed")
    store = worker(stores, redis_url, "first")
    keys = [store.owners_key("site a"), store.key("state", "pending_claim", "site a", store.owner)]
    args = [store.worker, store.session, store.lease_key(""), "1", "token-1"]
    claimed = [url.decode() for url in store._claim_pending(keys, args)]
    assert sorted(claimed) == sorted(opened)
    again = [url.decode() for url in store._claim_pending(keys, args)]  # the same call again
    assert again == claimed
    assert store.pending("site a") == []  # a new call: nothing more is free

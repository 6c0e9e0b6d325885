"""The embedded crawl's scheduler keeps a request in memory when the job's disk queue fails."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from newsextract.scheduler import STAT_DISK_ERRORS, EmbeddedScheduler


@contextmanager
def open_scheduler(jobdir: Path) -> Iterator[EmbeddedScheduler]:
    # the plain priority queue: Scrapy's default one needs a running engine
    settings = {
        "JOBDIR": str(jobdir),
        "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.ScrapyPriorityQueue",
    }
    crawler = get_crawler(Spider, settings)
    crawler.spider = crawler._create_spider("queue")
    scheduler = EmbeddedScheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    try:
        yield scheduler
    finally:
        scheduler.close("finished")


# queuelib leaves the file open when its header does not read (once: the priority's next
# requests are not offered to the disk queue again)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_queue_file_cut_short_sends_its_priority_to_memory(tmp_path: Path) -> None:
    # what a crawl killed while writing leaves: the queue of priority 0 without its header
    queues = tmp_path / "requests.queue"
    queues.mkdir()
    (queues / "0").write_bytes(b"\x00\x00")
    requests = [Request(f"https://example.org/{n}.html") for n in range(3)]
    with open_scheduler(tmp_path) as scheduler:
        assert all(scheduler.enqueue_request(request) for request in requests)
        assert not scheduler.enqueue_request(Request("https://example.org/0.html"))  # seen
        taken = [scheduler.next_request() for _ in requests]
        assert sorted(request.url for request in taken if request) == [r.url for r in requests]
        assert scheduler.next_request() is None
    stats = scheduler.stats
    assert stats is not None and stats.get_value(STAT_DISK_ERRORS) == 1
    assert stats.get_value("scheduler/enqueued/memory") == 3
    gc.collect()  # queuelib's open file goes here, not in the next test


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_other_priorities_stay_on_disk_when_one_fails(tmp_path: Path) -> None:
    queues = tmp_path / "requests.queue"
    queues.mkdir()
    (queues / "0").write_bytes(b"\x00\x00")
    with open_scheduler(tmp_path) as scheduler:
        assert scheduler.enqueue_request(Request("https://example.org/a.html"))
        assert scheduler.enqueue_request(Request("https://example.org/b.html", priority=5))
        assert scheduler.enqueue_request(Request("https://example.org/c.html"))
        taken = [request.url for request in (scheduler.next_request() for _ in range(3)) if request]
        memory, disk = taken[:2], taken[2:]  # memory's first
        assert sorted(memory) == ["https://example.org/a.html", "https://example.org/c.html"]
        assert disk == ["https://example.org/b.html"]
    stats = scheduler.stats
    assert stats is not None and stats.get_value(STAT_DISK_ERRORS) == 1
    assert stats.get_value("scheduler/enqueued/disk") == 1
    assert stats.get_value("scheduler/enqueued/memory") == 2
    gc.collect()


def test_a_sound_queue_is_used_as_before(tmp_path: Path) -> None:
    with open_scheduler(tmp_path) as scheduler:
        assert scheduler.enqueue_request(Request("https://example.org/a.html"))
        assert scheduler.next_request() is not None
    stats = scheduler.stats
    assert stats is not None and stats.get_value("scheduler/enqueued/disk") == 1
    assert stats.get_value(STAT_DISK_ERRORS) is None

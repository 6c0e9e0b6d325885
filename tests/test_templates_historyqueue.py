"""History saves written by a thread of their own: in order, read back after they are written,
all written by close, a failure logged rather than raised into the crawl."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from newsextract.pipelines.templates import TemplatePipeline, rules_store
from newsextract.templates.historyqueue import QueuedHistoryStore
from newsextract.templates.rulefiles import history_file
from newsextract.templates.store import RuleStore, history_bytes

SITE = "example.com"


def records(number: int) -> list[dict[str, str]]:
    return [{"url": f"u{number}", "headline": "h", "body": f"body {number}"}]


def test_the_last_save_is_the_file_once_written(tmp_path: Path) -> None:
    store = QueuedHistoryStore(tmp_path)
    for number in range(20):
        store.save_history(SITE, records(number))
    store.close()
    assert history_file(tmp_path, SITE).read_bytes() == history_bytes(SITE, records(19))


def test_a_read_waits_for_the_saves_in_flight(tmp_path: Path) -> None:
    store = QueuedHistoryStore(tmp_path)
    held = threading.Event()
    store._writer.submit(held.wait)  # the writer is busy: the save below is queued
    store.save_history(SITE, records(1))
    assert not history_file(tmp_path, SITE).exists()
    held.set()
    assert store.load_history(SITE) == records(1)
    store.close()


def test_saves_are_not_written_on_the_callers_thread(tmp_path: Path) -> None:
    writers: list[str] = []
    store = QueuedHistoryStore(tmp_path)
    original = RuleStore.save_history

    def noted(self: RuleStore, site: str, saved: list[dict[str, str]]) -> None:
        writers.append(threading.current_thread().name)
        original(self, site, saved)

    RuleStore.save_history = noted  # type: ignore[method-assign]
    try:
        store.save_history(SITE, records(1))
        store.close()
        store.save_history(SITE, records(2))  # after close: at once
    finally:
        RuleStore.save_history = original  # type: ignore[method-assign]
    assert writers[0].startswith("newsextract-history")
    assert writers[1] == threading.current_thread().name
    assert RuleStore(tmp_path).load_history(SITE) == records(2)


def test_a_failed_save_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    store = QueuedHistoryStore(blocker / "rules")
    with caplog.at_level(logging.ERROR):
        store.save_history(SITE, records(1))
        store.close()
    assert f"history of {SITE} not saved" in caplog.text


def test_a_crawl_queues_its_history_unless_rules_are_in_memory_or_in_redis(
    tmp_path: Path,
) -> None:
    store = rules_store(Settings({"NEWSEXTRACT_RULES_DIR": str(tmp_path)}))
    assert isinstance(store, QueuedHistoryStore) and store.rules_dir == tmp_path
    store.close()
    assert rules_store(Settings({"NEWSEXTRACT_RULES_DIR": "none"})) is None
    shared = {"NEWSEXTRACT_RULES_DIR": str(tmp_path), "NEWSEXTRACT_REDIS_URL": "redis://x"}
    assert rules_store(Settings(shared)) is None


def test_the_template_stage_writes_its_history_before_it_closes(tmp_path: Path) -> None:
    crawler = get_crawler(settings_dict={"NEWSEXTRACT_RULES_DIR": str(tmp_path)})
    pipeline = TemplatePipeline.from_crawler(crawler)
    assert isinstance(pipeline.history, QueuedHistoryStore)
    held = threading.Event()
    pipeline.history._writer.submit(held.wait)
    pipeline.history.save_history(SITE, records(1))
    threading.Timer(0.2, held.set).start()
    pipeline.close_spider()
    assert RuleStore(tmp_path).load_history(SITE) == records(1)

"""Shared mode's rules in a real Redis: one learner a site, every worker on the newest
version, rules moved to files and back (a hand edit still wins), bad rules refused."""

from __future__ import annotations

import collections
import random
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from redis_server import free_port
from scrapy.settings import Settings

from newsextract import cli
from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.items import ArticleItem, PageItem
from newsextract.pipelines.grouping import url_pattern
from newsextract.pipelines.learning import LearnerConfig, SiteLearner, SiteTemplatesLike
from newsextract.pipelines.templates import templates_factory
from newsextract.sharedmode import SharedModeError
from newsextract.sharedmode.rules import RedisRuleStore
from newsextract.templates.config import TemplateConfig
from newsextract.templates.rulefiles import history_file, site_file
from newsextract.templates.rules import BodyRule, RuleVersion
from newsextract.templates.site import SiteTemplates
from newsextract.templates.store import LeaseBusyError, render

SITE = "example.org"
KIND = url_pattern(f"https://{SITE}/news/1.html")  # the group the crawl's pages fall in
TEMPLATE_ONLY = TemplateConfig(single_page_veto=False, combine_single=False)
WORDS = [
    "river",
    "council",
    "budget",
    "school",
    "storm",
    "market",
    "police",
    "harbour",
    "festival",
    "court",
]


def sentences(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(14, 30))).capitalize() + "."
        for _ in range(count)
    ]


def html(n: int) -> bytes:
    paragraphs = "".join(f"<p>{s}</p>" for s in sentences(n, 6))
    return f"""<html><body><div id="nav"><a href="/">Home</a> <a href="/world">World</a></div>
    <div class="storybody"><h1>Headline number {n} about the town</h1>
    <div class="share">Share this story</div>{paragraphs}</div>
    <div id="footer">Copyright the Example News Company. All rights reserved.</div>
    </body></html>""".encode()


def page(n: int) -> Page:
    return parse_page(html(n), f"https://{SITE}/news/{n}.html")


def page_item(n: int) -> PageItem:
    url = f"https://{SITE}/news/{n}.html"
    return PageItem(url, html(n), "text/html", 200, SITE, "2026-01-01T00:00:00Z")


def store(url: str, **kw: Any) -> RedisRuleStore:
    return RedisRuleStore(redis.Redis.from_url(url), **kw)


def templates(url: str) -> SiteTemplates:
    return SiteTemplates(SITE, config=TEMPLATE_ONLY, store=store(url))


def learner(url: str, stats: collections.Counter[str]) -> SiteLearner:
    shared = store(url)

    def factory(site: str, rules_dir: Path | None) -> SiteTemplatesLike:
        return SiteTemplates(site, config=TEMPLATE_ONLY, store=shared)

    return SiteLearner(factory, LearnerConfig(), lambda key: stats.update([key]))


def rules(versions: int, tag: str = "a") -> list[RuleVersion]:
    return [
        RuleVersion(SITE, "article", 0, bodies=(BodyRule(pivot=f"//div[@id='{tag}{n}']"),))
        for n in range(versions)
    ]


def rules_command(*args: str) -> int:
    return cli.main(["rules", *args])


# --- every worker uses the newest version from its next page -----------------------------


def test_rules_one_worker_learns_are_used_by_another_from_its_next_page(redis_url: str) -> None:
    first, second = templates(redis_url), templates(redis_url)
    assert first.learn([page(n) for n in range(3)]) is not None
    assert not second.has_rules()  # read once, kept: nothing asked of Redis yet
    assert second.refresh() and second.has_rules()
    assert not second.refresh()  # the revision did not move: nothing reloaded
    article = second.extract(page(7))
    assert article is not None and article.rule_version == f"{SITE}/article/v1"


def test_held_pages_of_a_worker_leave_with_the_rules_another_worker_learned(
    redis_url: str,
) -> None:
    stats: collections.Counter[str] = collections.Counter()
    worker = learner(redis_url, stats)
    held = [worker.process(page_item(n)).held for n in range(2)]  # two of three pages
    assert all(h is not None for h in held)
    assert templates(redis_url).learn([page(n) for n in range(10, 13)], KIND) is not None
    verdict = worker.process(page_item(20))  # its next page: the rules of the other worker
    assert isinstance(verdict.result, ArticleItem)
    assert [h for h, _ in verdict.released] == held
    assert all(isinstance(answer, ArticleItem) for _, answer in verdict.released)
    assert stats["newsextract/shared/rules_reloaded"] == 1 and stats["induced"] == 0


# --- one learner a site -----------------------------------------------------------------


def test_the_lease_goes_to_one_store_and_lapses_when_its_holder_dies(redis_url: str) -> None:
    first, second = store(redis_url, lease_seconds=1.0), store(redis_url, lease_seconds=1.0)
    token = first.acquire(SITE, "article")
    assert token is not None
    assert 0 < first.client.pttl(first.lease_key(SITE, "article")) <= 1000
    assert second.acquire(SITE, "article") is None
    assert second.acquire(SITE, "listing") is not None  # another kind: another lease
    second.release(SITE, "article", "not-the-token")  # only its holder releases it
    assert first.client.get(first.lease_key(SITE, "article")) == token.encode()
    deadline = time.monotonic() + 10  # the holder died: the lease lapses by itself
    while second.acquire(SITE, "article") is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_released_lease_is_free_at_once(redis_url: str) -> None:
    first, second = store(redis_url), store(redis_url)
    busy = second.lease(SITE, "article")
    with first.lease(SITE, "article"), pytest.raises(LeaseBusyError):
        busy.__enter__()
    with second.lease(SITE, "article"):
        pass


def test_a_worker_that_finds_the_lease_taken_holds_its_pages_and_learns_after(
    redis_url: str,
) -> None:
    stats: collections.Counter[str] = collections.Counter()
    worker = learner(redis_url, stats)
    other = store(redis_url)
    token = other.acquire(SITE, KIND)
    assert token is not None
    verdicts = [worker.process(page_item(n)) for n in range(4)]
    assert all(v.held is not None for v in verdicts)  # held, not given up on
    assert stats["newsextract/shared/rules_lease_busy"] == 2 and stats["learn_failed"] == 0
    other.release(SITE, KIND, token)  # the other worker died before saving anything
    verdict = worker.process(page_item(4))
    assert isinstance(verdict.result, ArticleItem) and stats["induced"] == 1
    assert len(verdict.released) == 4


def test_writes_of_two_workers_at_once_lose_no_version(redis_url: str) -> None:
    stores = [store(redis_url), store(redis_url)]

    def save(index: int) -> None:
        for version in rules(8, tag=f"w{index}-"):
            stores[index].add_version(SITE, version)

    threads = [threading.Thread(target=save, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    versions = stores[0].load(SITE)
    assert sorted(v.number for v in versions) == list(range(1, 17))
    assert [v.number for v in versions if not v.valid_until] == [16]


# --- rules moved to files and back ------------------------------------------------------


def test_export_then_import_gives_the_same_rules_and_history(
    redis_url: str, tmp_path: Path
) -> None:
    learned = templates(redis_url)
    learned.learn([page(n) for n in range(3)])
    for n in range(3, 6):
        learned.extract(page(n))
    learned.save_history()
    before = store(redis_url)
    rules_before, history_before = before.load(SITE), before.load_history(SITE)
    assert rules_before and len(history_before) == 3
    assert rules_command("export", str(tmp_path), "--redis", redis_url) == 0
    assert site_file(tmp_path, SITE).exists() and history_file(tmp_path, SITE).exists()
    before.client.flushall()
    assert rules_command("import", str(tmp_path), "--redis", redis_url) == 0
    after = store(redis_url)
    assert after.load(SITE) == rules_before and after.load_history(SITE) == history_before


def test_a_hand_edit_imported_stays_in_force_over_later_learning(
    redis_url: str, tmp_path: Path
) -> None:
    worker, stale = templates(redis_url), templates(redis_url)
    worker.learn([page(n) for n in range(3)])
    rules_command("export", str(tmp_path), "--redis", redis_url)
    path = site_file(tmp_path, SITE)
    text, edits = re.subn(r'minChars="\d+"', 'minChars="1"', path.read_text())
    assert edits == 1 and "edited" not in text
    path.write_text(text)  # the hash no longer matches: a person's version
    assert rules_command("import", str(tmp_path), "--redis", redis_url) == 0

    assert worker.refresh()  # the import moved the revision: the next page reloads
    edited = worker.current()
    assert edited is not None and edited.edited and edited.bodies[0].min_chars == 1
    # learning again, by a worker that has not reloaded yet, or saving straight to the store,
    # keeps the hand's version in force
    assert stale.learn([page(n) for n in range(30, 34)]) == edited
    assert store(redis_url).add_version(SITE, rules(1)[0]) == edited
    assert store(redis_url).load(SITE) == [edited]


def test_import_refuses_a_bad_file_with_one_line_and_imports_the_others(
    redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = store(redis_url)
    good.add_version(SITE, rules(1)[0])
    rules_command("export", str(tmp_path), "--redis", redis_url)
    good.client.flushall()
    bad = tmp_path / "broken.example.rules.xml"
    bad.write_text("<site name='broken.example'><rules kind='article'>")  # cut short
    hostile = tmp_path / "hostile.example.rules.xml"
    hostile.write_text(
        "<site name='hostile.example'><rules><body pivot=\"//*[count(following::*)=1]\"/>"
        "</rules></site>"
    )
    capsys.readouterr()
    assert rules_command("import", str(tmp_path), "--redis", redis_url) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2
    assert "broken.example.rules.xml" in errors[0] and "hostile.example.rules.xml" in errors[1]
    assert store(redis_url).sites() == [SITE] and store(redis_url).load(SITE)


def test_the_command_without_a_reachable_redis_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    assert rules_command("export", str(tmp_path / "out"), "--redis", nowhere) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "cannot be reached" in error and "Traceback" not in error
    monkeypatch.delenv("NEWSEXTRACT_REDIS_URL", raising=False)
    assert rules_command("import", str(tmp_path)) == 2
    assert "--redis" in capsys.readouterr().err


# --- bad rules in Redis -----------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"<site name='example.org'><rules kind='article'>",  # not well-formed
        b"<site name='example.org'><rules><body pivot='//a|//b'/></rules></site>",  # code
        b"<site name='other.example'><rules><body pivot='//a'/></rules></site>",  # foreign
    ],
)
def test_bad_rules_in_redis_are_refused_not_overwritten_and_crash_no_worker(
    redis_url: str, data: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    shared = store(redis_url)
    shared.put_rule_bytes(SITE, data)
    stats: collections.Counter[str] = collections.Counter()
    worker = learner(redis_url, stats)
    answers = [worker.process(page_item(n)) for n in range(4)]  # learned, in memory only
    assert isinstance(answers[-1].result, ArticleItem)
    assert "not used and not overwritten" in caplog.text
    assert shared.rule_bytes(SITE) == data

    shared.put_rule_bytes(SITE, render(SITE, rules(1)))  # fixed: the next page reloads
    worker.process(page_item(10))
    assert stats["newsextract/shared/rules_reloaded"] == 1


def test_export_keeps_bad_rules_as_they_are_and_says_so(
    redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = b"<site name='example.org'><rules kind='article'>"
    store(redis_url).put_rule_bytes(SITE, data)
    assert rules_command("export", str(tmp_path), "--redis", redis_url) == 2
    assert site_file(tmp_path, SITE).read_bytes() == data  # for a person to fix
    assert "not well-formed" in capsys.readouterr().err


def test_oversized_rules_in_redis_are_refused_before_they_are_read(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    shared = store(redis_url)
    shared.put_rule_bytes(SITE, b" " * 4_000_001)
    assert not templates(redis_url).has_rules()
    assert "too large" in caplog.text


# --- the crawl's wiring -----------------------------------------------------------------


def test_the_stage_keeps_rules_in_redis_when_a_redis_url_is_set(
    redis_url: str, tmp_path: Path
) -> None:
    made = templates_factory(Settings({"NEWSEXTRACT_REDIS_URL": redis_url}))(SITE, tmp_path)
    assert isinstance(made, SiteTemplates) and isinstance(made.store, RedisRuleStore)
    assert not list(tmp_path.iterdir())  # no rules directory in shared mode
    nowhere = Settings({"NEWSEXTRACT_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    with pytest.raises(SharedModeError, match="cannot be reached"):
        templates_factory(nowhere)

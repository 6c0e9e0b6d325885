"""The template stage: holding first pages, releasing them, applying and re-learning rules."""

from __future__ import annotations

import collections
import functools
import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from newsextract.evaluation.dataset import read_manifest
from newsextract.extraction.pagemodel.page import Page
from newsextract.extraction.record.article import Article
from newsextract.items import ArticleItem, PageItem
from newsextract.pipelines import templates as stage
from newsextract.pipelines.learning import LearnerConfig, SiteLearner, Verdict
from newsextract.pipelines.templates import TemplatePipeline, crawl_activity, learner_config
from newsextract.templates.fastpath import LightPage
from newsextract.templates.site import SiteTemplates

# --- a small stand-in for SiteTemplates: method A in a few lines ------------------------


class FakeTemplates:
    """Learns the texts every sample shares (the template); a rule fits a page whose layout
    marker (the id of its first div) is the one it was learned on."""

    def __init__(self, site: str, rules_dir: Path | None) -> None:
        self.site = site
        self.rules: dict[str, tuple[int, str, frozenset[str]]] = {}
        self.learned: list[int] = []  # sample counts, one per call of learn

    def learn(self, pages: Sequence[Page], kind: str = "article") -> object | None:
        self.learned.append(len(pages))
        if len(pages) < 2:
            return None
        shared = frozenset.intersection(*(frozenset(b.text for b in p.blocks) for p in pages))
        number = self.rules.get(kind, (0, "", frozenset()))[0] + 1
        self.rules[kind] = (number, _marker(pages[0]), shared)
        return number

    def extract(self, page: Page, kind: str = "article") -> Article | None:
        if kind not in self.rules:
            return None
        number, marker, template = self.rules[kind]
        if _marker(page) != marker:
            return None
        body = "\n".join(b.text for b in page.blocks if b.text not in template)
        return Article(page.url, body, method="rules", rule_version=f"{kind}/v{number}")

    def extract_light(self, page: LightPage, kind: str = "article") -> Article | None:
        return None  # no light path: every page takes the full page model

    def has_rules(self, kind: str) -> bool:
        return kind in self.rules

    def rule_version(self, kind: str) -> str:
        return f"{kind}/v{self.rules[kind][0]}" if kind in self.rules else ""


def _marker(page: Page) -> str:
    return next((str(div.get("id")) for div in page.root.iter("div") if div.get("id")), "")


LAYOUT = """<html><head><title>Story {n}</title></head><body><div id="{layout}">
<ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li></ul>
<h1>Story number {n}</h1><p>{text}</p>
<p>Copyright the example news company, all rights reserved.</p></div></body></html>"""


def page_item(
    n: int, layout: str = "layout-2005", site: str = "example.com", **kw: Any
) -> PageItem:
    text = f"This is the own text of story {n}, which no other page of the site repeats."
    body = LAYOUT.format(n=n, layout=layout, text=text).encode()
    url = kw.pop("url", f"http://{site}/story/{n}.html")
    return PageItem(url, body, "text/html", 200, site, "2026-01-01T00:00:00Z", **kw)


class Harness:
    """A learner with the fake templates, counting stats and every answer it gives."""

    def __init__(self, **config: Any) -> None:
        self.stats: collections.Counter[str] = collections.Counter()
        self.sites: dict[str, FakeTemplates] = {}
        self.learner = SiteLearner(self._factory, LearnerConfig(**config), counting(self.stats))
        self.answers: dict[str, list[Any]] = collections.defaultdict(list)

    def _factory(self, site: str, rules_dir: Path | None) -> FakeTemplates:
        return self.sites.setdefault(site, FakeTemplates(site, rules_dir))

    def feed(self, item: Any) -> Verdict:
        verdict = self.learner.process(item)
        for held, result in verdict.released:
            self.answers[held.item.url].append(result)
        if verdict.held is None:
            self.answers[getattr(item, "url", "")].append(verdict.result)
        return verdict

    def end(self) -> None:
        for held, result in self.learner.release_all():
            self.answers[held.item.url].append(result)


def counting(stats: collections.Counter[str]) -> Callable[[str], None]:
    return lambda key: stats.update([key])


# --- holding and releasing --------------------------------------------------------------


def test_first_pages_are_held_then_answered_with_the_template() -> None:
    run = Harness(min_pages=3)
    assert run.feed(page_item(1)).held is not None
    assert run.feed(page_item(2)).held is not None
    third = run.feed(page_item(3))
    assert third.held is None and len(third.released) == 2
    for n in (1, 2, 3):
        (answer,) = run.answers[f"http://example.com/story/{n}.html"]
        assert isinstance(answer, ArticleItem)
        assert answer.extraction["method"] == "rules"
        assert answer.articleBody == f"Story number {n}\n" + (
            f"This is the own text of story {n}, which no other page of the site repeats."
        )
    assert run.stats["held"] == 2 and run.stats["released/ready"] == 2


def test_after_learning_pages_pass_straight_through_the_rules() -> None:
    run = Harness(min_pages=2)
    run.feed(page_item(1))
    run.feed(page_item(2))
    fourth = run.feed(page_item(4))
    assert fourth.held is None and fourth.released == []
    assert isinstance(fourth.result, ArticleItem)
    assert fourth.result.extraction["ruleVersion"] == "example.com/story/D.html/v1"


def test_the_group_is_the_url_pattern_and_is_recorded_on_the_item() -> None:
    run = Harness(min_pages=2)
    item = page_item(1)
    run.feed(item)
    assert item.group == "example.com/story/D.html"
    given = page_item(2, group="articles")  # a spider may name the kind itself
    run.feed(given)
    assert given.group == "articles"


@pytest.mark.parametrize(("hold_pages", "released"), [(3, 0), (2, 1), (1, 2)])
def test_the_hold_bound_in_pages_releases_the_oldest(hold_pages: int, released: int) -> None:
    run = Harness(min_pages=10, hold_pages=hold_pages)
    for n in (1, 2, 3):
        run.feed(page_item(n))
    assert len(run.learner.hold) == 3 - released
    passed_on = [url for url, answers in run.answers.items() if answers]
    assert passed_on == [f"http://example.com/story/{n}.html" for n in range(1, released + 1)]
    assert all(isinstance(run.answers[url][0], PageItem) for url in passed_on)
    assert run.stats["released/bound"] == released


def test_the_hold_bound_in_bytes_is_respected() -> None:
    size = len(page_item(1).body)
    run = Harness(min_pages=10, hold_bytes=2 * size + size // 2)
    for n in (1, 2, 3, 4):
        run.feed(page_item(n))
    assert len(run.learner.hold) == 2
    assert run.learner.hold.bytes <= 2 * size + size // 2


def test_a_page_larger_than_the_byte_bound_is_never_held() -> None:
    run = Harness(min_pages=10, hold_bytes=100)
    verdict = run.feed(page_item(1))
    assert verdict.held is None and isinstance(verdict.result, PageItem)


def test_holding_switched_off_passes_first_pages_on() -> None:
    run = Harness(min_pages=2, hold_pages=0)
    assert isinstance(run.feed(page_item(1)).result, PageItem)
    assert isinstance(run.feed(page_item(2)).result, ArticleItem)  # learned from both


def test_at_the_end_a_group_short_of_pages_is_learned_from_two() -> None:
    run = Harness(min_pages=3)
    run.feed(page_item(1))
    run.feed(page_item(2))
    run.end()
    assert all(isinstance(a[0], ArticleItem) for a in run.answers.values())
    assert len(run.answers) == 2 and run.stats["released/idle"] == 2


def test_at_the_end_a_lone_page_is_passed_on() -> None:
    run = Harness(min_pages=3)
    run.feed(page_item(1))
    run.end()
    (answer,) = run.answers["http://example.com/story/1.html"]
    assert isinstance(answer, PageItem)


def test_a_duplicate_page_does_not_count_towards_learning() -> None:
    run = Harness(min_pages=3)
    run.feed(page_item(1))
    run.feed(page_item(1, url="http://example.com/story/1.html?utm_source=feed"))
    assert run.feed(page_item(2)).held is not None  # two distinct pages only
    assert run.stats["duplicates"] == 1
    assert run.feed(page_item(3)).held is None


def test_a_forgotten_group_releases_its_held_pages() -> None:
    run = Harness(min_pages=3, max_groups=1)
    run.feed(page_item(1))
    verdict = run.feed(page_item(2, site="other.org"))
    assert [held.item.url for held, _ in verdict.released] == ["http://example.com/story/1.html"]
    assert run.stats["released/evicted"] == 1


def section_item(n: int, section: str, layout: str = "layout-2005") -> PageItem:
    return page_item(n, layout, url=f"http://example.com/{section}/story-number-{n}.html")


def test_another_section_borrows_the_rules_that_fit_it() -> None:
    run = Harness(min_pages=2)
    run.feed(section_item(1, "news"))
    run.feed(section_item(2, "news"))
    verdict = run.feed(section_item(3, "sport"))  # another kind: no rules of its own
    assert verdict.held is None and isinstance(verdict.result, ArticleItem)
    assert verdict.result.extraction["ruleVersion"] == "example.com/news/*.html/v1"
    assert run.stats["borrowed"] == 1


def test_rules_that_do_not_fit_are_not_borrowed() -> None:
    run = Harness(min_pages=2)
    run.feed(section_item(1, "news"))
    run.feed(section_item(2, "news"))
    assert run.feed(section_item(3, "video", layout="player")).held is not None
    assert run.stats["borrowed"] == 0


def test_held_pages_of_other_kinds_leave_when_rules_fitting_them_are_learned() -> None:
    run = Harness(min_pages=2)
    run.feed(section_item(1, "sport"))
    run.feed(section_item(2, "video", layout="player"))
    run.feed(section_item(3, "news"))
    verdict = run.feed(section_item(4, "news"))
    assert [held.item.url for held, _ in verdict.released] == [
        "http://example.com/news/story-number-3.html",  # its own group
        "http://example.com/sport/story-number-1.html",  # borrowing the new rules
    ]
    assert all(isinstance(result, ArticleItem) for _, result in verdict.released)
    assert len(run.learner.hold) == 1  # the video page still waits for its own kind


def test_at_the_end_a_lone_page_borrows_what_its_site_learned() -> None:
    run = Harness(min_pages=3)
    run.feed(section_item(1, "news"))
    run.feed(section_item(2, "news"))
    run.feed(section_item(3, "sport"))
    run.end()
    (answer,) = run.answers["http://example.com/sport/story-number-3.html"]
    assert isinstance(answer, ArticleItem)
    assert answer.extraction["ruleVersion"] == "example.com/news/*.html/v1"


def test_items_other_than_pages_and_non_html_pass_untouched() -> None:
    run = Harness()
    article = ArticleItem("u", "", "", "", "", "", [], "", "s", "t")
    assert run.feed(article).result is article
    binary = PageItem("http://e.com/x.html", b"\x00\x01\x02" * 500, "text/html", 200, "e", "t")
    assert run.feed(binary).result is binary
    assert run.stats["pages"] == 0


def test_a_failing_template_never_loses_a_page(caplog: pytest.LogCaptureFixture) -> None:
    run = Harness(min_pages=2)

    def broken(page: Page, kind: str = "article") -> Article | None:
        raise ValueError("broken rule")

    run.feed(page_item(1))
    run.sites["example.com"].extract = broken  # type: ignore[method-assign]
    run.feed(page_item(2))
    assert all(isinstance(a[0], PageItem) for a in run.answers.values())
    assert len(run.answers) == 2 and run.stats["errors"] == 2
    assert "broken rule" in caplog.text


def test_a_redesign_relearns_and_loses_no_page() -> None:
    run = Harness(min_pages=2)
    for n in range(1, 5):
        run.feed(page_item(n, layout="layout-2005"))
    for n in range(5, 10):
        run.feed(page_item(n, layout="layout-2017"))
    assert sorted(len(a) for a in run.answers.values()) == [1] * 9
    versions = [getattr(run.answers[page_item(n).url][0], "extraction", {}) for n in range(1, 10)]
    assert {v.get("ruleVersion") for v in versions[:4]} == {"example.com/story/D.html/v1"}
    assert isinstance(run.answers[page_item(5).url][0], PageItem)  # validation failed
    assert {v.get("ruleVersion") for v in versions[6:]} == {"example.com/story/D.html/v2"}
    assert run.stats["validation_failed"] == 2 and run.stats["relearned"] == 1


# --- the Scrapy pipeline ------------------------------------------------------------------


def test_the_stage_can_be_switched_off() -> None:
    crawler = get_crawler(settings_dict={"NEWSEXTRACT_TEMPLATES_ENABLED": False})
    with pytest.raises(NotConfigured):
        TemplatePipeline.from_crawler(crawler)


def test_settings_choose_the_rules_directory_and_bounds(tmp_path: Path) -> None:
    config = learner_config(Settings({"NEWSEXTRACT_DATA_DIR": str(tmp_path)}))
    assert config.rules_dir == tmp_path / "rules"
    chosen = learner_config(
        Settings(
            {
                "NEWSEXTRACT_RULES_DIR": str(tmp_path / "mine"),
                "NEWSEXTRACT_TEMPLATE_HOLD": 5,
                "NEWSEXTRACT_TEMPLATE_HOLD_BYTES": 10_000_000,
                "SCRAPER_SLOT_MAX_ACTIVE_SIZE": 1_000_000,
                "NEWSEXTRACT_TEMPLATE_MIN_PAGES": 4,
                "NEWSEXTRACT_TEMPLATE_SAMPLES": 7,
            }
        )
    )
    assert chosen.rules_dir == tmp_path / "mine"
    assert (chosen.hold_pages, chosen.hold_bytes) == (5, 500_000)
    assert (chosen.min_pages, chosen.samples) == (4, 7)
    assert learner_config(Settings({"NEWSEXTRACT_RULES_DIR": "none"})).rules_dir is None


def _pipeline(monkeypatch: pytest.MonkeyPatch, engine: Any = None, **config: Any) -> Any:
    # Await held pages as Deferreds whatever reactor another test may have installed.
    monkeypatch.setattr(stage, "_awaitable", lambda waiter: waiter)
    run = Harness(**config)
    crawler = SimpleNamespace(engine=engine)
    return run, TemplatePipeline(run.learner, crawler, clock=Clock())  # type: ignore[arg-type]


def test_process_item_answers_held_pages_when_their_group_is_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, pipeline = _pipeline(monkeypatch, min_pages=2)
    first: Deferred[Any] = Deferred.fromCoroutine(pipeline.process_item(page_item(1)))
    assert not first.called
    second: Deferred[Any] = Deferred.fromCoroutine(pipeline.process_item(page_item(2)))
    results = [first.result, second.result]
    assert all(isinstance(r, ArticleItem) for r in results)


def fake_engine(**busy: Any) -> SimpleNamespace:
    scheduler = SimpleNamespace(has_pending_requests=lambda: busy.get("scheduled", False))
    return SimpleNamespace(
        _slot=SimpleNamespace(closing=busy.get("closing"), scheduler=scheduler),
        running=True,
        _start=busy.get("start"),
        downloader=SimpleNamespace(active=busy.get("downloading", set())),
        scraper=SimpleNamespace(slot=SimpleNamespace(queue=[], itemproc_size=busy.get("items", 1))),
    )


@pytest.mark.parametrize(
    "busy",
    [{"downloading": {"r"}}, {"scheduled": True}, {"start": object()}, {"items": 2}],
    ids=["downloading", "scheduled", "start-requests", "other-items"],
)
def test_held_pages_wait_while_the_crawl_has_work(
    monkeypatch: pytest.MonkeyPatch, busy: dict[str, Any]
) -> None:
    _, pipeline = _pipeline(monkeypatch, fake_engine(**busy), min_pages=3)
    held: Deferred[Any] = Deferred.fromCoroutine(pipeline.process_item(page_item(1)))
    for _ in range(5):
        pipeline.check_idle()
    assert not held.called
    assert crawl_activity(pipeline.crawler, 1) == (False, False)


def test_held_pages_are_released_when_only_they_are_left(monkeypatch: pytest.MonkeyPatch) -> None:
    run, pipeline = _pipeline(monkeypatch, fake_engine(items=1), min_pages=3)
    held: Deferred[Any] = Deferred.fromCoroutine(pipeline.process_item(page_item(1)))
    pipeline.open_spider()
    pipeline.clock.advance(stage.IDLE_CHECK_SECONDS_DEFAULT)
    assert not held.called  # one idle look may fall between a response and its requests
    pipeline.clock.advance(stage.IDLE_CHECK_SECONDS_DEFAULT)
    assert isinstance(held.result, PageItem) and run.stats["released/idle"] == 1
    pipeline.close_spider()


def test_held_pages_are_released_at_once_when_the_engine_closes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = fake_engine(closing=Deferred(), downloading={"r"})
    _, pipeline = _pipeline(monkeypatch, engine, min_pages=3)
    held: Deferred[Any] = Deferred.fromCoroutine(pipeline.process_item(page_item(1)))
    pipeline.check_idle()
    assert held.called


def test_a_failure_while_releasing_still_answers_every_held_page(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    run, pipeline = _pipeline(monkeypatch, fake_engine(items=2), min_pages=5)
    pending = [Deferred.fromCoroutine(pipeline.process_item(page_item(n))) for n in (1, 2)]

    def broken() -> list[Any]:
        raise RuntimeError("broken release")

    monkeypatch.setattr(run.learner, "release_all", broken)
    pipeline.check_idle()
    pipeline.check_idle()
    assert all(isinstance(d.result, PageItem) for d in pending)
    assert "broken release" in caplog.text


def test_closing_the_spider_answers_every_held_page(monkeypatch: pytest.MonkeyPatch) -> None:
    _, pipeline = _pipeline(monkeypatch, fake_engine(downloading={"r"}), min_pages=5)
    pending = [Deferred.fromCoroutine(pipeline.process_item(page_item(n))) for n in (1, 2, 3)]
    pipeline.open_spider()
    pipeline.close_spider()
    assert all(isinstance(d.result, ArticleItem) for d in pending)  # learned from three


# --- with the real templates: saved rules and a redesign ----------------------------------


def _site_items(shared_data: Path, site: str, years: tuple[str, ...]) -> list[PageItem]:
    entries = [
        entry
        for entry in read_manifest(shared_data / "msv_big9_dev")
        if entry.fields["site"] == site and entry.fields["year"] in years
    ]
    entries.sort(key=lambda entry: (entry.fields["year"], entry.id))
    return [
        PageItem(
            f"https://{site}/news/{entry.id}.html", entry.read_html(), "text/html", 200,
            site, "2026-01-01T00:00:00Z",
        )
        for entry in entries
    ]  # fmt: skip


def _crawl(learner: SiteLearner, items: list[PageItem]) -> dict[str, list[Any]]:
    answers: dict[str, list[Any]] = collections.defaultdict(list)
    for item in items:
        verdict = learner.process(item)
        for held, result in verdict.released:
            answers[held.item.url].append(result)
        if verdict.held is None:
            answers[item.url].append(verdict.result)
    for held, result in learner.release_all():
        answers[held.item.url].append(result)
    return answers


def test_rules_saved_by_one_crawl_are_used_from_the_first_page_of_the_next(
    shared_data: Path, tmp_path: Path
) -> None:
    items = _site_items(shared_data, "cnn.com", ("2009",))
    config = LearnerConfig(rules_dir=tmp_path)
    stats: collections.Counter[str] = collections.Counter()
    first = _crawl(SiteLearner(SiteTemplates, config, counting(stats)), items[:4])
    assert stats["induced"] == 1 and any(tmp_path.iterdir())
    assert all(isinstance(answers[0], ArticleItem) for answers in first.values())

    again: collections.Counter[str] = collections.Counter()
    later = SiteLearner(SiteTemplates, config, counting(again))
    verdict = later.process(items[5])
    assert isinstance(verdict.result, ArticleItem)
    assert verdict.result.extraction["method"] == "rules"
    assert again["held"] == 0 and again["induced"] == 0
    # answered from the light page: the full page model was never built
    assert again["light"] == 1 and items[5].page is None
    assert items[5].group == "cnn.com/news/*.html"


def _learned_cnn(shared_data: Path, rules_dir: Path) -> list[PageItem]:
    items = _site_items(shared_data, "cnn.com", ("2009",))
    _crawl(SiteLearner(SiteTemplates, LearnerConfig(rules_dir=rules_dir)), items[:4])
    return items


def test_a_page_the_light_page_cannot_answer_gets_the_full_page_model(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _learned_cnn(shared_data, tmp_path)
    monkeypatch.setattr(SiteTemplates, "extract_light", lambda self, page, kind="article": None)
    stats: collections.Counter[str] = collections.Counter()
    later = SiteLearner(SiteTemplates, LearnerConfig(rules_dir=tmp_path), counting(stats))
    verdict = later.process(items[5])
    assert isinstance(verdict.result, ArticleItem)
    assert verdict.result.extraction["method"] == "rules"
    assert stats["light"] == 0 and items[5].page is not None


def test_another_section_borrows_stored_rules_on_the_light_page(
    shared_data: Path, tmp_path: Path
) -> None:
    items = _learned_cnn(shared_data, tmp_path)
    stats: collections.Counter[str] = collections.Counter()
    later = SiteLearner(SiteTemplates, LearnerConfig(rules_dir=tmp_path), counting(stats))
    assert isinstance(later.process(items[4]).result, ArticleItem)  # its kind is known now
    items[5].url = items[5].url.replace("/news/", "/sport/")
    verdict = later.process(items[5])
    assert isinstance(verdict.result, ArticleItem)
    assert stats["borrowed"] == 1 and stats["light"] == 2 and items[5].page is None


def test_a_redesign_between_2005_and_2017_relearns_and_loses_no_record(
    shared_data: Path,
) -> None:
    items = _site_items(shared_data, "foxnews.com", ("2005", "2017"))
    stats: collections.Counter[str] = collections.Counter()
    answers = _crawl(SiteLearner(SiteTemplates, LearnerConfig(), counting(stats)), items)
    assert sorted(answers) == sorted(item.url for item in items)
    assert stats["light"] > 0 and stats["relearned"] >= 1  # the light page failed, then learned
    assert all(len(results) == 1 for results in answers.values())
    versions = {
        year: {
            results[0].extraction["ruleVersion"]
            for url, results in answers.items()
            if f"/y{year}-" in url and isinstance(results[0], ArticleItem)
        }
        for year in ("05", "17")
    }
    assert len(versions["05"]) == 1 and len(versions["17"]) == 1
    assert versions["05"] != versions["17"]
    assert stats["relearned"] >= 1 and stats["validation_failed"] >= 1


# --- a real crawl: Scrapy's engine, a local HTTP server, a subprocess --------------------

CRAWL_SCRIPT = """
import json, sys
import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess
from newsextract.items import PageItem


class Pages(scrapy.Spider):
    name = "pages"

    async def start(self):
        yield scrapy.Request(self.start_url)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.page)

    def page(self, response):
        yield PageItem(response.url, response.body, "text/html", response.status, "local",
                       "2026-01-01T00:00:00Z")


start_url, out, settings = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
settings.update({
    "ITEM_PIPELINES": {"newsextract.pipelines.templates.TemplatePipeline": 300},
    "LOG_LEVEL": "WARNING", "ROBOTSTXT_OBEY": False, "TELNETCONSOLE_ENABLED": False,
})
records = []
process = CrawlerProcess(settings=settings)
crawler = process.create_crawler(Pages)


def scraped(item):
    extraction = getattr(item, "extraction", {})
    records.append({"url": item.url, "type": type(item).__name__, "extraction": extraction})


crawler.signals.connect(scraped, signal=signals.item_scraped)
process.crawl(crawler, start_url=start_url)
process.start()
stats = {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("newsextract/")}
with open(out, "w") as f:
    json.dump({"records": records, "stats": stats}, f)
"""


@pytest.fixture(scope="module")
def local_site(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Iterator[str]:
    """Ten cnn.com pages of 2009 and an index linking them, served on 127.0.0.1."""
    root = tmp_path_factory.mktemp("site")
    (root / "news").mkdir()
    items = _site_items(shared_data, "cnn.com", ("2009",))
    links = []
    for number, item in enumerate(items, 1):
        (root / "news" / f"{number}.html").write_bytes(item.body)
        links.append(f'<a href="/news/{number}.html">story {number}</a>')
    (root / "index.html").write_text(f"<html><body>{''.join(links)}</body></html>")
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def run_crawl(start_url: str, tmp_path: Path, **settings: Any) -> dict[str, Any]:
    script, out = tmp_path / "crawl.py", tmp_path / f"out-{len(list(tmp_path.iterdir()))}.json"
    script.write_text(CRAWL_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), start_url, str(out), json.dumps(settings)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.read_text())
    urls = [record["url"] for record in result["records"]]
    assert len(urls) == 10 and len(set(urls)) == 10, "every page exactly once"
    return result


def _methods(result: dict[str, Any]) -> collections.Counter[str]:
    return collections.Counter(r["extraction"].get("method", r["type"]) for r in result["records"])


def test_a_crawl_holds_its_first_pages_then_a_second_crawl_uses_the_saved_rules(
    local_site: str, tmp_path: Path
) -> None:
    rules = str(tmp_path / "rules")
    first = run_crawl(local_site, tmp_path, NEWSEXTRACT_RULES_DIR=rules)
    stats = first["stats"]
    assert stats["newsextract/templates/held"] >= 2
    assert stats["newsextract/templates/released/ready"] == stats["newsextract/templates/held"]
    assert _methods(first)["rules"] >= 9

    second = run_crawl(local_site, tmp_path, NEWSEXTRACT_RULES_DIR=rules)
    assert "newsextract/templates/held" not in second["stats"]
    assert second["stats"]["newsextract/templates/applied"] >= 9
    assert _methods(second)["rules"] >= 9


def test_a_crawl_that_never_fills_a_group_releases_its_pages_when_idle(
    local_site: str, tmp_path: Path
) -> None:
    result = run_crawl(
        local_site, tmp_path, NEWSEXTRACT_RULES_DIR="none", NEWSEXTRACT_TEMPLATE_MIN_PAGES=50
    )
    assert result["stats"]["newsextract/templates/released/idle"] == 10
    assert _methods(result)["rules"] >= 9  # learned from the samples at the end

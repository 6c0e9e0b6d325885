"""The add-on in a project of a user's own (``tests/userproject``): its plain spider yields
responses, and its records are the project's own spider's records of the same site."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from crawl_runner import FAST_SETTINGS, CrawlResult, CrawlRunner, SiteProcess, read_jsonl
from scrapy.http import HtmlResponse, Response
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from newsextract.addon import COMPONENTS, NewsExtract
from newsextract.demo_server import ARTICLE_PATTERN, demo_site
from newsextract.extensions.failures import failure_recorded
from newsextract.items import FailureItem, PageItem
from newsextract.spidermiddlewares.pages import ResponsePages

USER_PROJECT = Path(__file__).resolve().parent / "userproject"
#: Both crawls read the demo site's eight articles in a few seconds; this bounds a hung one.
CRAWL_SECONDS = 240.0


def without_fetch_time(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(r["url"]): {k: v for k, v in r.items() if k != "fetchedAt"} for r in records}


# --- the settings ---------------------------------------------------------------------------


def test_the_add_on_turns_on_the_item_stage_and_your_settings_win() -> None:
    settings = Settings({"ITEM_PIPELINES": {"myproject.pipelines.Mine": 400}})
    settings.set("FEED_EXPORT_ENCODING", "latin-1", "project")
    NewsExtract().update_settings(settings)
    pipelines = settings.getdict("ITEM_PIPELINES")
    assert pipelines == {
        "myproject.pipelines.Mine": 400,
        "newsextract.pipelines.templates.TemplatePipeline": 300,
        "newsextract.pipelines.extraction.ExtractionPipeline": 500,
        "newsextract.pipelines.state.HarvestPipeline": 800,
    }
    assert settings.getdict("SPIDER_MIDDLEWARES") == {
        "newsextract.spidermiddlewares.pages.ResponsePages": 950
    }
    assert "newsextract.extensions.failures.FailureLog" in settings.getdict("EXTENSIONS")
    assert settings.get("FEED_EXPORT_ENCODING") == "latin-1"


def test_the_add_on_sets_the_components_of_the_projects_own_crawls() -> None:
    from newsextract import settings as project

    assert COMPONENTS["ITEM_PIPELINES"] == project.ITEM_PIPELINES
    assert COMPONENTS["EXTENSIONS"].items() <= project.EXTENSIONS.items()
    assert COMPONENTS["FEED_EXPORTERS"] == project.FEED_EXPORTERS
    assert COMPONENTS["FEED_STORAGES"] == project.FEED_STORAGES


def test_the_add_on_is_exported_by_its_documented_name() -> None:
    import newsextract

    assert newsextract.NewsExtract is NewsExtract
    assert newsextract.PageItem is PageItem


# --- the middleware -------------------------------------------------------------------------


def middleware() -> tuple[ResponsePages, list[FailureItem]]:
    crawler = get_crawler(settings_dict={"TELNETCONSOLE_ENABLED": False})
    failures: list[FailureItem] = []

    def keep(failure: FailureItem) -> None:
        failures.append(failure)

    crawler.signals.connect(keep, signal=failure_recorded, weak=False)
    return ResponsePages(crawler), failures


def test_a_yielded_response_becomes_the_page_item_of_the_item_stage() -> None:
    pages, failures = middleware()
    response = HtmlResponse(
        "https://news.example.org/a/1.html",
        body=b"<html><p>text</p></html>",
        headers={"Content-Type": "text/html; charset=utf-8"},
    )
    item = pages.get_processed_item(response, None)
    assert isinstance(item, PageItem) and failures == []
    assert (item.url, item.body, item.status) == (response.url, response.body, 200)
    assert (item.site, item.content_type) == ("example.org", "text/html; charset=utf-8")
    assert pages.get_processed_item(item, None) is item  # items pass untouched


def test_a_yielded_response_that_is_not_html_becomes_a_failure_record() -> None:
    pages, failures = middleware()
    pdf = Response(
        "https://news.example.org/a/1.pdf",
        body=b"%PDF-1.4\x00\x01\x02",
        headers={"Content-Type": "application/pdf"},
    )
    assert pages.get_processed_item(pdf, None) is None
    (failure,) = failures
    assert (failure.url, failure.stage, failure.status) == (pdf.url, "content-type", 200)


# --- a user's project crawls the demo site ---------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrawlRunner]:
    with demo_site() as root:
        server = SiteProcess(root, tmp_path_factory.mktemp("demo") / "access.log")
        yield CrawlRunner(server)
        server.stop()


@pytest.fixture(scope="module")
def project_crawl(demo: CrawlRunner, tmp_path_factory: pytest.TempPathFactory) -> CrawlResult:
    workdir = tmp_path_factory.mktemp("project-crawl")
    args = {"start_url": demo.server.origin + "/index.html", "allow": ARTICLE_PATTERN}
    return demo.run(workdir, "site", args)


@pytest.mark.e2e
def test_a_users_spider_gets_the_records_of_the_projects_spider(
    demo: CrawlRunner, project_crawl: CrawlResult, tmp_path: Path
) -> None:
    env = dict(os.environ, NEWSEXTRACT_DATA_DIR=str(tmp_path / "data"), PYTHONWARNINGS="ignore")
    env.pop("SCRAPY_SETTINGS_MODULE", None)  # the user's scrapy.cfg names their settings
    command = [sys.executable, "-m", "scrapy", "crawl", "news"]
    command += [
        "-a",
        f"start_url={demo.server.origin}/index.html",
        "-O",
        str(tmp_path / "out.jsonl"),
    ]
    settings = {**FAST_SETTINGS, "NEWSEXTRACT_FAILURES": str(tmp_path / "failures.jsonl")}
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    done = subprocess.run(
        command, cwd=USER_PROJECT, env=env, capture_output=True, text=True, timeout=CRAWL_SECONDS
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert project_crawl.returncode == 0, project_crawl.log[-3000:]
    records = read_jsonl(tmp_path / "out.jsonl")
    assert len(records) == 8 and all(r["articleBody"] for r in records)
    assert without_fetch_time(records) == without_fetch_time(project_crawl.records)
    assert "'newsextract/templates/induced': 1" in done.stderr  # the site's rules were learned
    failures = read_jsonl(tmp_path / "failures.jsonl")
    assert [(f["url"].rsplit("/", 1)[-1], f["stage"]) for f in failures] == [
        ("winter-timetable-2027", "content-type")
    ]

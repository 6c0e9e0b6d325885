"""The offline demo: ``newsextract demo`` serves the bundled site and crawls it."""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from newsextract.cli.demo import DemoSummary, crawl_command, run, summarise_output
from newsextract.demo_server import ARTICLE_PATTERN, demo_site, load_routes
from newsextract.evaluation.metric import score_page

#: Each demo article's body against the text of its ``article-body`` paragraphs; the demo
#: template is plain, so anything below this is an extraction or decoding regression.
MIN_DEMO_PAGE_F1 = 0.9
JAPANESE_HEADLINE = "今冬は平年より雪が少ない見通し"


def _gold_articles() -> dict[str, tuple[str, str]]:
    """URL path -> (headline, body paragraphs) of every article file in the demo site."""
    with demo_site() as site:
        articles = {}
        for path in sorted((site / "article").rglob("*.html")):
            root = lxml.html.fromstring(path.read_bytes())
            body = "\n".join(p.text_content() for p in root.cssselect(".article-body p"))
            headline = root.cssselect("h1")[0].text_content()
            articles["/" + path.relative_to(site).as_posix()] = (headline, body)
        return articles


def test_demo_site_is_small_and_complete() -> None:
    with demo_site() as site:
        files = [p for p in site.rglob("*") if p.is_file()]
        assert sum(p.stat().st_size for p in files) < 100_000
        routes = load_routes(site)
    articles = _gold_articles()
    assert len(articles) == 8
    assert JAPANESE_HEADLINE in [headline for headline, _ in articles.values()]
    assert [path for path in routes if path.startswith("/article/")] != []


def test_summary_counts_records_and_stages(tmp_path: Path) -> None:
    (tmp_path / "articles.jsonl").write_text(
        json.dumps({"headline": "One"}) + "\n" + json.dumps({"headline": "Two"}) + "\n",
        encoding="utf-8",
    )
    failures = [{"stage": "http"}, {"stage": "http"}, {"stage": "content-type"}]
    (tmp_path / "failures.jsonl").write_text(
        "".join(json.dumps(f) + "\n" for f in failures), encoding="utf-8"
    )
    summary = summarise_output(tmp_path)
    assert summary == DemoSummary(2, 3, (("content-type", 1), ("http", 2)), ("One", "Two"))
    assert "  failures: 3 (content-type: 1, http: 2)" in summary.lines(tmp_path)[1]
    assert summary.lines(tmp_path)[-1] == "  first headline: One"


def test_crawl_command_reaches_the_served_site(tmp_path: Path) -> None:
    command = crawl_command("http://127.0.0.1:8123", tmp_path)
    assert command[1:5] == ["-m", "scrapy", "crawl", "site"]
    assert "start_url=http://127.0.0.1:8123/index.html" in command
    assert f"allow={ARTICLE_PATTERN}" in command


@pytest.mark.e2e
def test_demo_crawls_the_bundled_site_offline(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    finished = subprocess.run(
        [sys.executable, "-m", "newsextract.cli", "demo", "--out", str(out)],
        cwd=tmp_path,
        env={**os.environ, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (out / "crawl.log").read_text(encoding="utf-8", errors="replace")[-3000:]
    assert finished.returncode == 0, finished.stdout + finished.stderr + log
    assert "  articles: 8 -> " in finished.stdout
    assert "first headline: " in finished.stdout
    records = [
        json.loads(line) for line in (out / "articles.jsonl").read_text("utf-8").splitlines()
    ]
    gold = _gold_articles()
    by_path = {r["url"].split("/", 3)[-1]: r for r in records}
    assert sorted("/" + path for path in by_path) == sorted(gold)
    for path, (headline, body) in gold.items():
        record = by_path[path.lstrip("/")]
        assert record["headline"] == headline  # the Shift_JIS page too
        assert score_page(record["articleBody"], body).f1 >= MIN_DEMO_PAGE_F1, path
    failures = {f["url"].split("/", 3)[-1]: f for f in _read(out / "failures.jsonl")}
    assert failures["article/2026/11/bridge-repairs-finished.html"]["status"] == 404
    assert "article/2026/11/winter-timetable-2027" in failures
    rules = list((out / "rules").glob("*.rules.xml"))
    assert len(rules) == 1, "the learned rules stay in the output folder"
    report = (out / "report.html").read_text("utf-8")
    assert "Rule versions" in report and "<script" not in report
    view = (out / "view.html").read_text("utf-8")
    assert 'class="nx-body"' in view or " nx-body" in view
    assert "Content-Security-Policy" in view and "data-nx-region" in view
    assert f"report: {out / 'report.html'}" in finished.stdout
    assert f"view of one article: {out / 'view.html'}" in finished.stdout


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_demo_reports_a_port_already_in_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        args = argparse.Namespace(out=tmp_path, port=taken.getsockname()[1])
        assert run(args) == 2
    assert "newsextract demo: " in capsys.readouterr().err

"""Crawl the bundled demo news site, served on 127.0.0.1: the whole path, with no network.

The site (package data under ``newsextract/demo/site``) has listings with pagination,
eight articles (one in Shift_JIS), a dead link and a link to a PDF. The demo serves it
from a thread, runs ``scrapy crawl site`` against it as a subprocess, and prints where
the records are with a short summary. The rules it learned stay in the output folder, beside
a report of the crawl (:mod:`newsextract.views.report`) and an annotated view of one article
(:mod:`newsextract.views.page_view`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from newsextract.demo_server import ARTICLE_PATTERN, demo_site, serve_in_thread

OUT_DEFAULT = "newsextract-demo"
#: A bound on the crawl (about 20 requests on loopback; a second or two).
CRAWL_TIMEOUT_DEFAULT = 300.0
ARTICLES_FILE = "articles.jsonl"
FAILURES_FILE = "failures.jsonl"
LISTINGS_FILE = "listings.jsonl"
LOG_FILE = "crawl.log"
RULES_DIR = "rules"
REPORT_FILE = "report.html"
VIEW_FILE = "view.html"
# Loopback needs no politeness delay; the demo's robots.txt is still obeyed.
_CRAWL_SETTINGS = {
    "AUTOTHROTTLE_ENABLED": "False",
    "DOWNLOAD_DELAY": "0",
    "DOWNLOAD_TIMEOUT": "10",
    "HTTPCACHE_ENABLED": "False",
    "TELNETCONSOLE_ENABLED": "False",
    "LOG_LEVEL": "INFO",
}


@dataclass(frozen=True)
class DemoSummary:
    """What the demo crawl wrote: counts, failure stages and the headlines."""

    articles: int
    failures: int
    failure_stages: tuple[tuple[str, int], ...]
    headlines: tuple[str, ...]

    def lines(self, out: Path) -> list[str]:
        stages = ", ".join(f"{stage}: {count}" for stage, count in self.failure_stages)
        lines = [
            f"  articles: {self.articles} -> {out / ARTICLES_FILE}",
            f"  failures: {self.failures} ({stages or 'none'}) -> {out / FAILURES_FILE}",
            f"  listings: {out / LISTINGS_FILE}; crawl log: {out / LOG_FILE}",
        ]
        if self.headlines:
            lines.append(f"  first headline: {self.headlines[0]}")
        return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", type=Path, default=Path(OUT_DEFAULT), help=f"output folder (default {OUT_DEFAULT})"
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free)")


def run(args: argparse.Namespace) -> int:
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for name in (ARTICLES_FILE, FAILURES_FILE, LISTINGS_FILE, LOG_FILE, REPORT_FILE, VIEW_FILE):
        (out / name).unlink(missing_ok=True)  # only the demo's own files, from a previous run
    _clear_rules(out / RULES_DIR)
    try:
        with demo_site() as site, serve_in_thread(site, args.port) as server:
            print(f"newsextract demo: serving the bundled site at {server.origin}/", flush=True)
            code = crawl(server.origin, out)
            view = write_article_view(out) if code == 0 else None
    except OSError as error:  # the port is taken, or the output folder is not writable
        print(f"newsextract demo: {error}", file=sys.stderr)
        return 2
    summary = summarise_output(out)
    print(f"crawl finished (exit {code}):")
    print("\n".join(summary.lines(out)))
    if code == 0:
        print(f"  rules: {out / RULES_DIR}; report: {write_report(out)}")
        print(f"  view of one article: {view or 'not written'}")
    if code != 0 or summary.articles == 0:
        print(f"the crawl did not complete; see {out / LOG_FILE}", file=sys.stderr)
        return 1
    return 0


def crawl_command(origin: str, out: Path) -> list[str]:
    command = [
        sys.executable, "-m", "scrapy", "crawl", "site",
        "-a", f"start_url={origin}/index.html",
        "-a", f"allow={ARTICLE_PATTERN}",
        "-O", str(out / ARTICLES_FILE),
        "-s", f"NEWSEXTRACT_FAILURES={out / FAILURES_FILE}",
        "-s", f"NEWSEXTRACT_LISTINGS={out / LISTINGS_FILE}",
        "-s", f"NEWSEXTRACT_RULES_DIR={out / RULES_DIR}",
    ]  # fmt: skip
    for name, value in _CRAWL_SETTINGS.items():
        command += ["-s", f"{name}={value}"]
    return command


def crawl(origin: str, out: Path, timeout: float = CRAWL_TIMEOUT_DEFAULT) -> int:
    """Run the crawl with a fresh state store, so every demo shows the full harvest."""
    with tempfile.TemporaryDirectory(prefix="newsextract-demo-") as state:
        env = {
            **os.environ,
            "SCRAPY_SETTINGS_MODULE": "newsextract.settings",
            "NEWSEXTRACT_DATA_DIR": state,
            "NO_PROXY": "127.0.0.1",
            "no_proxy": "127.0.0.1",
        }
        with (out / LOG_FILE).open("wb") as log:
            try:
                finished = subprocess.run(
                    crawl_command(origin, out),
                    cwd=out,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                log.write(f"newsextract demo: crawl stopped after {timeout:.0f} s\n".encode())
                return 1
    return finished.returncode


def _clear_rules(rules: Path) -> None:
    """The rules of a previous demo: the crawl must learn them again to show it."""
    from newsextract.templates.rulefiles import HISTORY_SUFFIX, RULES_SUFFIX

    if rules.is_dir():
        for suffix in (RULES_SUFFIX, HISTORY_SUFFIX):
            for path in rules.glob(f"*{suffix}"):
                path.unlink(missing_ok=True)


def write_report(out: Path) -> Path:
    """The crawl's report, from the output folder's rules, failures, articles and log."""
    from newsextract.views.report import read_report, render_report

    report = read_report(
        out,
        articles=[out / ARTICLES_FILE],
        log=out / LOG_FILE,
        rules_dir=out / RULES_DIR,
        failures=[out / FAILURES_FILE],
    )
    (out / REPORT_FILE).write_text(render_report(report), encoding="utf-8")
    return out / REPORT_FILE


def write_article_view(out: Path) -> Path | None:
    """The annotated view of the first article the crawl wrote, fetched again from the
    served site and read with the rules the crawl learned (None if there is none)."""
    from newsextract.exceptions import NewsExtractError
    from newsextract.views.view_file import load_templates, write_view

    articles = _read_jsonl(out / ARTICLES_FILE)
    if not articles:
        return None
    url = str(articles[0].get("url", ""))
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only
    try:
        with opener.open(url, timeout=10) as response:
            body, content_type = response.read(), response.headers.get("Content-Type")
        rules = sorted((out / RULES_DIR).glob("*.rules.xml"))
        templates, kind = load_templates(rules[0] if rules else None, None, None, url)
        write_view(body, url, out / VIEW_FILE, templates, content_type, kind)
    except (OSError, NewsExtractError) as error:
        print(f"newsextract demo: no view written: {error}", file=sys.stderr)
        return None
    return out / VIEW_FILE


def summarise_output(out: Path) -> DemoSummary:
    articles = _read_jsonl(out / ARTICLES_FILE)
    failures = _read_jsonl(out / FAILURES_FILE)
    stages = Counter(str(failure.get("stage", "?")) for failure in failures)
    return DemoSummary(
        articles=len(articles),
        failures=len(failures),
        failure_stages=tuple(sorted(stages.items())),
        headlines=tuple(str(article.get("headline", "")) for article in articles),
    )


def _read_jsonl(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]

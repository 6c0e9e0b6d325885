"""Shared mode through a Redis outage (issue 36), as a new user would try it.

Three workers (``NEWSEXTRACT_WORKER_ID`` worker-0..2) crawl a small site served on loopback,
:data:`PAGE_DELAY` seconds a page, sharing one Redis with Debian's default persistence
(snapshots, no append-only file). After the first articles reach a feed, Redis is stopped
with SIGTERM (it saves its snapshot), kept down, and started again on the same port and
folder. Every worker that exited 1 is started once more under its own id. The union of the
feeds must then hold each article exactly once: no new crawl from the start pages.

``kill_during_outage``: worker-0 is SIGKILLed while Redis is down and started again under
its own id once Redis is back, as a service manager would (``restart_killed``), or never:
what it held must be harvested once, by its re-run or by the others. ``crash``: Redis is
SIGKILLed instead (it saves nothing), to measure what a crash costs with snapshots only.

Used by ``tests/test_sharedmode_outage.py`` and ``benchmarks/redis_outage.py``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from crawl_runner import CrawlRunner, SiteProcess, read_jsonl
from redis_server import SNAPSHOT, RedisServer

ARTICLES_DEFAULT = 40
SECTION_SIZE = 10
#: Seconds the site takes to answer each page.
PAGE_DELAY = 0.1
WORKERS = 3
#: Seconds to wait for the first article in a feed, and for a worker to end.
FIRST_RECORD_TIMEOUT = 60.0
WORKER_TIMEOUT = 300.0


def build_site(root: Path, articles: int = ARTICLES_DEFAULT) -> list[str]:
    """A home page, sections of :data:`SECTION_SIZE` links and the articles; their paths."""
    (root / "article").mkdir(parents=True)
    paths = [f"/article/{number}.html" for number in range(1, articles + 1)]
    for number, path in enumerate(paths, 1):
        (root / path.lstrip("/")).write_text(_article(number), encoding="utf-8")
    sections = []
    for start in range(0, articles, SECTION_SIZE):
        section = f"/section-{start // SECTION_SIZE}.html"
        (root / section.lstrip("/")).write_text(_listing(paths[start : start + SECTION_SIZE]))
        sections.append(section)
    (root / "index.html").write_text(_listing(sections), encoding="utf-8")
    routes = {path: {"delay": PAGE_DELAY} for path in ["/index.html", *sections, *paths]}
    (root / "_routes.json").write_text(json.dumps(routes), encoding="utf-8")
    return paths


_WORDS = ["council", "budget", "river", "harbour", "school", "winter", "railway", "museum"]


def _article(number: int) -> str:
    paragraphs = []
    for index in range(5):
        words = " ".join(_WORDS[(number * 7 + index * 3 + k) % len(_WORDS)] for k in range(14))
        paragraphs.append(
            f"<p>Report {number}.{index}: the {words} story went on for day {number}, with "
            f"{number * 13 + index} residents there, officials said on Tuesday.</p>"
        )
    title = f"Article {number} about the {_WORDS[number % len(_WORDS)]}"
    return (
        f"<!DOCTYPE html><html lang='en'><head><title>{title}</title></head><body>"
        "<header><a href='/index.html'>The Outage Times</a></header>"
        f"<main><article><h1>{title}</h1>{''.join(paragraphs)}</article></main>"
        "<footer>A site generated for the outage tests.</footer></body></html>\n"
    )


def _listing(links: list[str]) -> str:
    items = "".join(f"<li><a href='{link}'>{link}</a></li>" for link in links)
    return f"<html><body><ul>{items}</ul></body></html>\n"


@dataclass(frozen=True)
class OutageResult:
    """What the union of the feeds held at the end of one scenario."""

    articles: list[str]
    counts: Counter[str]
    exit_codes: dict[str, int]  # worker id -> the exit status of its last run
    gave_up: int  # runs that exited 1
    tracebacks: int

    @property
    def missing(self) -> list[str]:
        return [path for path in self.articles if self.counts[path] == 0]

    @property
    def twice(self) -> list[str]:
        return sorted(path for path, count in self.counts.items() if count > 1)


class OutageScenario:
    """One run of the scenario in ``folder``: its site, its Redis, its workers."""

    def __init__(self, folder: Path, down: float, settings: dict[str, str] | None = None) -> None:
        self.folder = folder
        self.down = down
        self.redis = RedisServer(folder / "redis", persistence=SNAPSHOT)  # first: it may skip
        self.articles = build_site(folder / "site")
        self.site = SiteProcess(folder / "site", folder / "access.log")
        self.runner = CrawlRunner(self.site)
        self.settings = {
            "NEWSEXTRACT_REDIS_URL": self.redis.url,
            "CONCURRENT_REQUESTS_PER_DOMAIN": "2",
            **(settings or {}),
        }
        self.runs: dict[str, int] = {}

    def run(
        self, kill_during_outage: bool = False, restart_killed: bool = True, crash: bool = False
    ) -> OutageResult:
        try:
            self.redis.start()
            workers = {f"worker-{index}": self.start(f"worker-{index}") for index in range(3)}
            self.wait_for_first_record()
            if crash:
                self.redis.crash()
            else:
                self.redis.stop()
            if kill_during_outage:
                time.sleep(min(1.0, self.down / 2))
                killed = workers.pop("worker-0")
                os.kill(killed.pid, signal.SIGKILL)
                killed.wait()
            time.sleep(self.down)
            self.redis.start()
            if kill_during_outage and restart_killed:
                workers["worker-0"] = self.start("worker-0")
            codes = self.wait(workers)
            gave_up = sum(1 for code in codes.values() if code == 1)
            again = {worker: self.start(worker) for worker, code in codes.items() if code == 1}
            codes.update(self.wait(again))
            return self.result(codes, gave_up)
        finally:
            self.site.stop()
            self.redis.stop()

    def start(self, worker: str) -> subprocess.Popen[bytes]:
        run = self.runs.get(worker, -1) + 1
        self.runs[worker] = run
        folder = self.folder / worker
        folder.mkdir(parents=True, exist_ok=True)
        settings = {
            **self.settings,
            "NEWSEXTRACT_WORKER_ID": worker,
            "NEWSEXTRACT_FAILURES": f"failures-{run}.jsonl",
            "NEWSEXTRACT_LISTINGS": f"listings-{run}.jsonl",
        }
        args = {"start_url": f"{self.site.origin}/index.html", "allow": r"/article/\d+\.html"}
        command = self.runner.command("site", args, settings, (f"out-{run}.jsonl",))
        with (folder / "crawl.log").open("ab") as log:
            return subprocess.Popen(
                command,
                cwd=folder,
                env=self.runner.environment(folder / "data"),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_for_first_record(self) -> None:
        deadline = time.monotonic() + FIRST_RECORD_TIMEOUT
        while time.monotonic() < deadline:
            if self.feed_records():
                return
            time.sleep(0.02)
        raise RuntimeError("no article reached a feed")

    def wait(self, workers: dict[str, subprocess.Popen[bytes]]) -> dict[str, int]:
        codes = {}
        for worker, process in workers.items():
            try:
                codes[worker] = process.wait(timeout=WORKER_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                codes[worker] = process.wait()
        return codes

    def feed_records(self) -> list[str]:
        files = sorted(self.folder.glob("worker-*/out-*.jsonl"))
        origin = self.site.origin
        return [str(r["url"]).removeprefix(origin) for path in files for r in read_jsonl(path)]

    def log(self, worker: str) -> str:
        path = self.folder / worker / "crawl.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def result(self, codes: dict[str, int], gave_up: int) -> OutageResult:
        logs = [self.log(f"worker-{index}") for index in range(WORKERS)]
        return OutageResult(
            articles=self.articles,
            counts=Counter(self.feed_records()),
            exit_codes=codes,
            gave_up=gave_up,
            tracebacks=sum(log.count("Traceback") for log in logs),
        )

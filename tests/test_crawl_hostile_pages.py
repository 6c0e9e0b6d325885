"""End to end: hostile pages on the wire end as failure records, within bounded time and memory.

An element bomb (``<p>a`` two million times: 8 MB, 8 kB gzipped) took a real crawl to 6.8 GB
and 40 s, and its drop was logged as one line of 8,000,264 characters. Here the real
``scrapy crawl`` runs against the local site server (its own, so that its routes are this
file's alone), through a small parent process that reports the crawl's peak memory.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from crawl_runner import CRAWL_TIMEOUT, CrawlRunner, SiteProcess, read_jsonl

pytestmark = pytest.mark.e2e

ARTICLE = (
    "<html><head><title>Council passes the budget</title></head><body><article>"
    "<h1>Council passes the budget</h1>"
    + "<p>The council voted on Tuesday to pass the budget, with money for schools and roads, "
    "after a long debate that went on well into the evening.</p>" * 6 + "</article></body></html>"
)
BOMB = b"<html><body>" + b"<p>a" * 2_000_000
#: The crawl's whole process, Scrapy and the models included, at its peak: 147 MB with the
#: element limit (2026-12-01); 6.8 GB without it.
MAX_CRAWL_RSS_MB = 400
#: A crawl of three pages takes a few seconds; 40 s went in the bomb's parse alone.
MAX_CRAWL_SECONDS = 60

#: Runs the command given as arguments and prints its peak resident memory in kB (the crawl
#: is this process's only child, so the figure is the crawl's alone). Its address space is
#: capped, so that a regression fails the test instead of taking the machine's memory.
_PEAK_OF_CHILD = (
    "import resource, subprocess, sys, time\n"
    "resource.setrlimit(resource.RLIMIT_AS, (4 * 1024**3, 4 * 1024**3))\n"
    "started = time.monotonic()\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(code, peak, time.monotonic() - started)\n"
)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteProcess]:
    base = tmp_path_factory.mktemp("hostile-site")
    root = base / "root"
    (root / "article").mkdir(parents=True)
    (root / "index.html").write_text(
        "<html><body><a href='/article/1.html'>bomb</a> <a href='/article/2.html'>story</a>"
        "</body></html>",
        encoding="utf-8",
    )
    (root / "article" / "2.html").write_text(ARTICLE, encoding="utf-8")
    (root / "bomb.gz").write_bytes(gzip.compress(BOMB, compresslevel=9))
    routes = {
        "/article/1.html": {
            "file": "bomb.gz",
            "headers": {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"},
        }
    }
    (root / "_routes.json").write_text(json.dumps(routes), encoding="utf-8")
    server = SiteProcess(root, base / "access.log")
    yield server
    server.stop()


def test_an_element_bomb_ends_as_a_failure_record_in_bounded_memory(
    hostile_site: SiteProcess, tmp_path: Path
) -> None:
    assert (hostile_site.root / "bomb.gz").stat().st_size < 20_000  # 8 MB on the wire: 8 kB
    runner = CrawlRunner(hostile_site)
    args = {"start_url": f"{hostile_site.origin}/index.html", "allow": r"/article/\d+\.html"}
    command = runner.command("site", args, {}, ["out.jsonl"])
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_OF_CHILD, *command],
        cwd=tmp_path,
        env=runner.environment(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=CRAWL_TIMEOUT,
        check=False,
    )
    code, peak_kb, seconds = done.stdout.split()[-3:]
    log = done.stderr
    assert code == "0", log[-3000:]
    failures = read_jsonl(tmp_path / "failures.jsonl")
    bomb = [f for f in failures if f["url"].endswith("/article/1.html")]
    assert [f["stage"] for f in bomb] == ["too-complex"], failures
    assert "NEWSEXTRACT_MAX_ELEMENTS" in bomb[0]["reason"]
    records = read_jsonl(tmp_path / "out.jsonl")
    assert [r["url"].rsplit("/", 1)[-1] for r in records] == ["2.html"]
    assert int(peak_kb) / 1024 < MAX_CRAWL_RSS_MB, f"peak {int(peak_kb) // 1024} MB"
    assert float(seconds) < MAX_CRAWL_SECONDS
    longest = max(map(len, log.splitlines()))
    assert longest < 5000, f"a log line of {longest:,} characters"
    assert "<p>a<p>a" not in log

"""A harvest a cron job can trust: the real ``scrapy crawl`` against the bundled demo site.

Nothing is recorded as harvested unless a feed holds it; a state store, a feed or a failure
log that cannot be used stops the crawl at once with one message naming the file and a
non-zero exit; and every URL a crawl fetched still ends as a record with its reason. Every
crawl runs as a subprocess (``tests/crawl_runner.py``), with a bound on its time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

import pytest
from crawl_runner import CrawlResult, CrawlRunner, SiteProcess, read_jsonl

from newsextract.demo_server import ARTICLE_PATTERN, demo_site
from newsextract.state import PendingRequest, StateStore, content_hash

pytestmark = pytest.mark.e2e

#: Articles of the demo site (one more link is a 404, one a PDF).
DEMO_ARTICLES = 8
#: A crawl of the demo site takes 2-4 s here (most of it Python and Scrapy starting); this
#: only bounds a hung crawl.
CRAWL_SECONDS = 120.0
#: A crawl refused at its start: Scrapy starting, then at most one short lock wait (3 s).
#: A locked store used to freeze a crawl for 30 s on every call, so the bound separates the
#: two by far even on a loaded machine.
REFUSAL_SECONDS = 25.0
#: Run a command without CAP_DAC_OVERRIDE, so that root too meets a file's permissions.
DROP_OVERRIDE = (
    "import ctypes, os, sys; ctypes.CDLL(None).prctl(24, 1, 0, 0, 0); "  # PR_CAPBSET_DROP
    "os.execv(sys.argv[1], sys.argv[1:])"
)
#: Holds an exclusive lock on a store until killed, as another process mid-transaction.
HOLD_LOCK = (
    "import sqlite3, sys, time; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
    "db.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(600)"
)


@dataclass(frozen=True)
class Run:
    result: CrawlResult
    seconds: float

    @property
    def returncode(self) -> int:
        return self.result.returncode

    def lines(self, *levels: str) -> list[str]:
        return [
            line
            for line in self.result.log.splitlines()
            if any(f" {level}: " in line for level in levels)
        ]

    def explain(self) -> str:
        return f"exit {self.returncode} after {self.seconds:.1f} s; log:\n{self.result.log[-4000:]}"


def crawl(
    runner: CrawlRunner,
    workdir: Path,
    data: Path,
    *,
    outputs: Sequence[str] = ("out.jsonl",),
    settings: dict[str, str] | None = None,
    prefix: Sequence[str] = (),
) -> Run:
    args = {"start_url": runner.server.origin + "/index.html", "allow": ARTICLE_PATTERN}
    command = [*prefix, *runner.command("site", args, settings or {}, outputs)]
    workdir.mkdir(parents=True, exist_ok=True)
    position = runner.server.log_position()
    started = time.monotonic()
    with (workdir / "crawl.log").open("wb") as log:
        process = subprocess.Popen(
            command, cwd=workdir, env=runner.environment(data), stdout=log, stderr=log
        )
        try:
            returncode = process.wait(timeout=CRAWL_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail(f"the crawl was still running after {CRAWL_SECONDS:.0f} s")
    seconds = time.monotonic() - started
    output = outputs[0] if outputs else "out.jsonl"
    return Run(runner.collect(workdir, returncode, position, output), seconds)


def serve_copy(base: Path, routes: dict[str, Any] | None = None) -> SiteProcess:
    with demo_site() as site:
        shutil.copytree(site, base / "root")
    if routes:
        table = json.loads((base / "root" / "_routes.json").read_text(encoding="utf-8"))
        (base / "root" / "_routes.json").write_text(json.dumps({**table, **routes}), "utf-8")
    return SiteProcess(base / "root", base / "access.log")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrawlRunner]:
    """The bundled demo site, served by the test site server."""
    server = serve_copy(tmp_path_factory.mktemp("demo"))
    yield CrawlRunner(server)
    server.stop()


def unaccounted(run: Run) -> set[str]:
    """The fetched paths that ended as no record at all (the project rule: none). Scrapy's
    own robots.txt request is no page of the crawl."""
    fetched = {path for method, path, _ in run.result.requests if method == "GET"}
    ended = [*run.result.records, *run.result.failures, *run.result.listings]
    recorded = {"/" + str(record["url"]).split("/", 3)[-1] for record in ended}
    return fetched - recorded - {"/robots.txt"}


# --- nothing recorded that no feed wrote -------------------------------------------------------


def test_a_trial_run_without_a_feed_records_nothing(demo: CrawlRunner, tmp_path: Path) -> None:
    data = tmp_path / "data"
    trial = crawl(demo, tmp_path / "trial", data, outputs=())
    assert trial.returncode == 0, trial.explain()
    (warning,) = [line for line in trial.lines("WARNING") if "no feed" in line]
    assert "none is recorded as harvested" in warning
    assert "RemoteControl" not in trial.result.log  # not among the enabled extensions
    real = crawl(demo, tmp_path / "real", data)
    assert real.returncode == 0, real.explain()
    assert len(real.result.records) == DEMO_ARTICLES, real.explain()
    assert unaccounted(real) == set()
    again = crawl(demo, tmp_path / "again", data)
    assert again.returncode == 0, again.explain()
    assert again.result.records == []
    (skipped,) = [line for line in again.lines("WARNING") if "skipped" in line]
    assert f"skipped {DEMO_ARTICLES} articles harvested by earlier runs" in skipped
    assert "NEWSEXTRACT_STATE=off" in skipped and str(data / "state.sqlite3") in skipped


def test_a_feed_that_cannot_be_written_stops_the_crawl_before_any_request(
    demo: CrawlRunner, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    workdir = tmp_path / "blocked"
    workdir.mkdir()
    (workdir / "feeds").write_text("a file where the feed's directory should be", "utf-8")
    blocked = crawl(demo, workdir, data, outputs=("feeds/out.jsonl",))
    assert blocked.returncode == 1, blocked.explain()
    assert blocked.seconds < REFUSAL_SECONDS
    assert blocked.result.requests == []
    assert "Traceback" not in blocked.result.log, blocked.explain()
    errors = [line for line in blocked.lines("ERROR", "CRITICAL") if "out.jsonl" in line]
    assert len(errors) == 1 and "cannot be written" in errors[0], blocked.explain()
    fixed = crawl(demo, tmp_path / "fixed", data)
    assert fixed.returncode == 0, fixed.explain()
    assert len(fixed.result.records) == DEMO_ARTICLES  # nothing was taken for harvested


class RefusingStorage:
    """A remote feed whose upload fails at the end of the crawl (FEED_STORAGES ``refused``)."""

    def __init__(self, uri: str, *, feed_options: dict[str, Any] | None = None) -> None:
        self.uri = uri

    def open(self, spider: Any) -> IO[bytes]:
        return tempfile.TemporaryFile()

    def store(self, file: IO[bytes]) -> None:
        file.close()
        raise OSError("the upload was refused")


def test_a_feed_that_cannot_be_stored_records_nothing_and_fails(
    demo: CrawlRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tests = str(Path(__file__).resolve().parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")]))
    storages = '{"refused": "test_crawl_hardening.RefusingStorage"}'
    data = tmp_path / "data"
    lost = crawl(
        demo,
        tmp_path / "lost",
        data,
        outputs=("refused://feeds/out.jsonl",),
        settings={"FEED_STORAGES": storages},
    )
    assert lost.returncode == 1, lost.explain()
    exported = [f for f in lost.result.failures if f["stage"] == "export"]
    assert len(exported) == DEMO_ARTICLES, lost.explain()
    assert unaccounted(lost) == set()
    assert [line for line in lost.lines("ERROR") if "could not be stored" in line]
    fixed = crawl(demo, tmp_path / "fixed", data)
    assert len(fixed.result.records) == DEMO_ARTICLES, fixed.explain()


def test_a_feed_stored_at_the_end_records_its_articles_then(
    demo: CrawlRunner, tmp_path: Path
) -> None:
    """Scrapy's own file storage buffers: its articles are held until the feed is stored,
    after the pipelines and the spider have closed, and recorded then."""
    buffered = '{"": "scrapy.extensions.feedexport.FileFeedStorage"}'
    data = tmp_path / "data"
    first = crawl(demo, tmp_path / "first", data, settings={"FEED_STORAGES": buffered})
    assert first.returncode == 0, first.explain()
    assert len(first.result.records) == DEMO_ARTICLES
    assert "'newsextract/state/recorded': 8" in first.result.log, first.explain()
    assert first.lines("ERROR", "CRITICAL") == [] and "Traceback" not in first.result.log
    again = crawl(demo, tmp_path / "again", data)
    assert again.returncode == 0, again.explain()
    assert again.result.records == []
    fetched = {p for _, p, _ in again.result.requests if p.startswith("/article/")}
    assert fetched == {  # the failures only: the dead link and the PDF
        "/article/2026/11/bridge-repairs-finished.html",
        "/article/2026/11/winter-timetable-2027",
    }


# --- a state store that cannot be trusted stops the crawl -------------------------------------


def _store_with(path: Path, articles: int) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    with StateStore(path) as store:
        for number in range(articles):
            store.record_harvest(f"https://elsewhere.example/{number}", content_hash(str(number)))
    return path.read_bytes()


def _damaged(path: Path) -> None:
    data = bytearray(_store_with(path, 2000))
    page = 4096
    middle = len(data) // page // 2
    data[middle * page : (middle + 1) * page] = b"\xa5" * page
    path.write_bytes(bytes(data))


BROKEN_STORES = {
    "empty": lambda path: path.write_bytes(b""),
    "random bytes": lambda path: path.write_bytes(bytes(range(256)) * 64),
    "truncated": lambda path: path.write_bytes(_store_with(path, 2000)[:40_000]),
    "a damaged page": _damaged,
}


@pytest.mark.parametrize("kind", sorted(BROKEN_STORES))
def test_a_broken_store_is_refused_with_its_name(
    demo: CrawlRunner, tmp_path: Path, kind: str
) -> None:
    store = tmp_path / "data" / "state.sqlite3"
    store.parent.mkdir(parents=True)
    BROKEN_STORES[kind](store)
    before = store.read_bytes()
    run = crawl(demo, tmp_path / "crawl", store.parent)
    assert_refused(run, store, "restore it from a backup")
    assert store.read_bytes() == before  # not re-initialised: the history is still there


def test_a_locked_store_is_refused_quickly(demo: CrawlRunner, tmp_path: Path) -> None:
    store = tmp_path / "data" / "state.sqlite3"
    _store_with(store, 3)
    with held_lock(store):
        run = crawl(demo, tmp_path / "crawl", store.parent)
    assert_refused(run, store, "locked by another process")


def test_a_read_only_store_is_refused(demo: CrawlRunner, tmp_path: Path) -> None:
    store = tmp_path / "data" / "state.sqlite3"
    _store_with(store, 3)
    store.chmod(0o444)
    store.parent.chmod(0o555)
    prefix = [sys.executable, "-c", DROP_OVERRIDE]
    try:
        run = crawl(demo, tmp_path / "crawl", store.parent, prefix=prefix)
    finally:
        store.parent.chmod(0o755)
        store.chmod(0o644)
    assert_refused(run, store, "read-only")


def test_a_store_locked_during_the_crawl_stops_it_quickly(tmp_path: Path) -> None:
    """The articles are slow, so the lock is taken while they are in flight: the harvest
    stage's write fails after one short wait, instead of freezing the crawl for good."""
    slow = {f"/article/2026/11/{name}.html": {"delay": 2.0} for name in _article_names()}
    server = serve_copy(tmp_path / "site", slow)
    runner = CrawlRunner(server)
    store = tmp_path / "data" / "state.sqlite3"
    _store_with(store, 3)
    try:
        lock_taker = threading.Thread(target=_lock_after_index, args=(server, store), daemon=True)
        lock_taker.start()
        run = crawl(runner, tmp_path / "crawl", store.parent)
    finally:
        server.stop()
        _release_locks()
    assert run.returncode == 1, run.explain()
    assert run.seconds < 2 * REFUSAL_SECONDS, run.explain()
    named = [line for line in run.lines("ERROR") if str(store) in line]
    assert len(named) == 1 and "locked by another process" in named[0], run.explain()


def assert_refused(run: Run, store: Path, advice: str) -> None:
    assert run.returncode == 1, run.explain()
    assert run.seconds < REFUSAL_SECONDS, run.explain()
    assert run.result.requests == [], run.explain()
    assert "Traceback" not in run.result.log, run.explain()
    named = [line for line in run.lines("ERROR", "CRITICAL") if str(store) in line]
    assert len(named) == 1, run.explain()
    assert advice in named[0], named[0]


_holders: list[subprocess.Popen[str]] = []


class held_lock:  # noqa: N801 (a context manager named for what it does)
    def __init__(self, store: Path) -> None:
        self.store = store

    def __enter__(self) -> None:
        _take_lock(self.store)

    def __exit__(self, *exc: object) -> None:
        _release_locks()


def _take_lock(store: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(store)], stdout=subprocess.PIPE, text=True
    )
    _holders.append(holder)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"


def _release_locks() -> None:
    while _holders:
        holder = _holders.pop()
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def _lock_after_index(server: SiteProcess, store: Path) -> None:
    position = server.log_position()
    deadline = time.monotonic() + CRAWL_SECONDS
    while time.monotonic() < deadline:
        if any(path.startswith("/article/") for _, path, _ in server.requests_since(position)):
            _take_lock(store)
            return
        time.sleep(0.02)


def _article_names() -> list[str]:
    with demo_site() as site:
        return [path.stem for path in (site / "article" / "2026" / "11").glob("*.html")]


# --- open requests an upgrade left behind; the failure log's file name ------------------------


def test_an_open_request_with_a_callback_the_spider_lost_is_rerouted(
    demo: CrawlRunner, tmp_path: Path
) -> None:
    store = tmp_path / "data" / "state.sqlite3"
    store.parent.mkdir(parents=True)
    crawl_key = f"site {demo.server.origin}/index.html"
    article = demo.server.origin + f"/article/2026/11/{sorted(_article_names())[0]}.html"
    with StateStore(store) as state:
        state.add_pending(crawl_key, PendingRequest(article, "parse_article_v0", "on_error_v0"))
    run = crawl(demo, tmp_path / "crawl", store.parent)
    assert run.returncode == 0, run.explain()
    (warning,) = [line for line in run.lines("WARNING") if "parse_article_v0" in line]
    assert "on_error_v0" in warning and "handed back through parse()" in warning
    assert len(run.result.records) == DEMO_ARTICLES, run.explain()
    assert article in run.result.record_urls()
    assert unaccounted(run) == set()


def test_a_percent_in_the_failure_log_name_is_refused_before_the_crawl(
    demo: CrawlRunner, tmp_path: Path
) -> None:
    run = crawl(
        demo,
        tmp_path / "crawl",
        tmp_path / "data",
        settings={"NEWSEXTRACT_FAILURES": "failures-100%.jsonl"},
    )
    assert run.returncode == 1, run.explain()
    assert run.seconds < REFUSAL_SECONDS
    assert run.result.requests == []
    assert "Traceback" not in run.result.log, run.explain()
    (error,) = [line for line in run.lines("CRITICAL", "ERROR") if "NEWSEXTRACT_FAILURES" in line]
    assert "write %% for a literal %" in error


def test_the_failure_log_name_takes_the_feed_placeholders(
    demo: CrawlRunner, tmp_path: Path
) -> None:
    run = crawl(
        demo,
        tmp_path / "crawl",
        tmp_path / "data",
        settings={"NEWSEXTRACT_FAILURES": "failures-%(name)s-%(time)s.jsonl"},
    )
    assert run.returncode == 0, run.explain()
    (written,) = (tmp_path / "crawl").glob("failures-site-*.jsonl")
    stages = sorted(str(failure["stage"]) for failure in read_jsonl(written))
    assert stages == ["content-type", "http"]  # the PDF and the dead link


# --- a body cut at DOWNLOAD_MAXSIZE --------------------------------------------------------------


class _Unmeasured(BaseHTTPRequestHandler):
    """An index linking one article whose body has no Content-Length and no end in sight."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path == "/index.html":
            body = b"<html><body><a href='/article/2026/11/huge-story.html'>x</a></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path != "/article/2026/11/huge-story.html":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()  # HTTP/1.0 and no Content-Length: the body ends when we close
        try:
            for _ in range(200):
                self.wfile.write(b"<p>" + b"words " * 200 + b"</p>\n")
        except OSError:
            pass  # the crawler hung up, as it should

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet."""


def test_a_body_cut_at_the_max_size_without_a_length_is_a_size_limit(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unmeasured)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    site = _StubSite(origin)
    try:
        run = crawl(
            CrawlRunner(site),  # type: ignore[arg-type]
            tmp_path / "crawl",
            tmp_path / "data",
            settings={"DOWNLOAD_MAXSIZE": "20000", "ROBOTSTXT_OBEY": "False"},
        )
    finally:
        server.shutdown()
        server.server_close()
    assert run.returncode == 0, run.explain()
    failures = {f["url"]: f for f in run.result.failures}
    cut = failures[origin + "/article/2026/11/huge-story.html"]
    assert cut["stage"] == "size-limit", cut
    assert "DOWNLOAD_MAXSIZE (20000 bytes)" in cut["reason"]


class _StubSite:
    """What CrawlRunner asks of its server, for a server without an access log."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def log_position(self) -> int:
        return 0

    def requests_since(self, position: int) -> list[tuple[str, str, int]]:
        return []

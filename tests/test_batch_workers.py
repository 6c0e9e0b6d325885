"""``batch --workers N``: the pages read by a pool of processes, the files those of one."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from devdata import require_set
from interrupting import interrupted, kill_group
from lxml import etree

from newsextract.batch.interrupt import StopOnInterrupt
from newsextract.batch.pages import Unit
from newsextract.batch.workers import WorkerPool
from newsextract.cli import main
from newsextract.evaluation import runner
from newsextract.extraction.pagemodel.page import Page

#: The portals of cleanportaleval, a few pages of each, listed site after site in turn so
#: that a site's pages are spread over the manifest (rules mode writes them in this order).
SITES = ("msnbc.com", "washingtonpost.com", "wsj.com", "bbc.co.uk")
PAGES_PER_SITE = 6


@pytest.fixture(scope="module")
def manifest(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Pages of four sites interleaved, a page of no site, and a page that cannot be read."""
    folder = require_set(shared_data, "cleanportaleval")
    lines = [json.loads(line) for line in (folder / "manifest.jsonl").read_text().splitlines()]
    by_site = {site: [line for line in lines if line.get("domain") == site] for site in SITES}
    chosen = [
        {**by_site[site][n], "html": str(folder / by_site[site][n]["html"])}
        for n in range(PAGES_PER_SITE)
        for site in SITES
    ]
    alone = {key: value for key, value in chosen[0].items() if key != "domain"}
    chosen.insert(5, {**alone, "id": "no-site", "url": f"{alone['url']}?alone"})
    chosen.insert(9, {"id": "missing", "html": str(folder / "no-such-page.html")})
    path = tmp_path_factory.mktemp("workers") / "manifest.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in chosen), encoding="utf-8")
    return path


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def _undated(folder: Path) -> dict[str, bytes]:
    """The files of a rules folder without the moment each rule was learned."""
    return {name: re.sub(rb'validFrom="[^"]*"', b"", data) for name, data in _files(folder).items()}


def _batch(capsys: pytest.CaptureFixture[str], *argv: str) -> int:
    code = main(["batch", *argv, "--quiet"])
    capsys.readouterr()
    return code


@pytest.mark.parametrize("record_format", ["jsonl", "xml"])
def test_two_workers_write_the_files_of_one(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], record_format: str
) -> None:
    outs = {workers: tmp_path / f"out{workers}" for workers in (1, 2)}
    for workers, out in outs.items():
        argv = [str(manifest), "--out", str(out), "--format", record_format, "--with-headline"]
        assert _batch(capsys, *argv, "--workers", str(workers)) == 1  # the missing page
    one, two = _files(outs[1]), _files(outs[2])
    assert len(one) == 4 * PAGES_PER_SITE + 2 + 2  # a text file a page, records, errors
    assert two == one
    errors = [json.loads(line)["id"] for line in one["_errors.jsonl"].splitlines()]
    assert "missing" in errors and len(errors) < 4


def test_site_and_rules_modes_keep_the_order_of_one_worker(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Site mode learns each site's rules in one worker and writes site after site; rules
    mode reads them back and writes the pages in the manifest's order."""
    outs: dict[tuple[str, int], dict[str, bytes]] = {}
    for workers in (1, 2):
        rules = tmp_path / f"rules{workers}"
        for mode in ("site", "rules"):
            out = tmp_path / f"out-{mode}{workers}"
            argv = [str(manifest), "--out", str(out), "--mode", mode, "--rules-dir", str(rules)]
            assert _batch(capsys, *argv, "--workers", str(workers)) == 1
            outs[mode, workers] = _files(out)
        assert _undated(rules) == _undated(tmp_path / "rules1")  # the same rules learned
    assert outs["site", 2] == outs["site", 1]
    assert outs["rules", 2] == outs["rules", 1]
    urls = [json.loads(line).get("url") for line in manifest.read_text().splitlines()]
    written = [json.loads(line)["url"] for line in outs["rules", 1]["_articles.jsonl"].splitlines()]
    places = [urls.index(url) for url in written]
    assert len(written) > 2 * PAGES_PER_SITE and places == sorted(places)


def test_a_worker_that_dies_leaves_failure_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A worker killed (here: it exits in the middle of a page) ends the pool: every page of
    a unit not done yet is a failure record that says so, and none is lost."""
    original = runner.load_method

    def method(name: str) -> runner.PageMethod:
        combined = original(name)

        def dying(page: Page) -> runner.Extracted:
            if page.url and page.url.endswith("/40"):
                os._exit(3)  # in the worker: the workers are forked with this method
            return combined(page)

        return dying

    monkeypatch.setattr(runner, "load_method", method)
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "a.html").write_bytes(_article())
    lines = [{"id": f"p{n:02d}", "html": "a.html", "url": f"http://e.org/{n}"} for n in range(64)]
    (folder / "manifest.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "out"
    assert _batch(capsys, str(folder / "manifest.jsonl"), "--out", str(out), "--workers", "2") == 1
    errors = [json.loads(line) for line in (out / "_errors.jsonl").read_text().splitlines()]
    lines = (out / "_articles.jsonl").read_text().splitlines()
    written = [json.loads(line)["url"] for line in lines]
    assert len(errors) + len(written) == len(list(out.glob("*.txt"))) == 64
    assert "p40" in {error["id"] for error in errors}
    assert all(error["error"].startswith("worker failed: BrokenProcessPool") for error in errors)
    numbers = [int(url.rsplit("/", 1)[1]) for url in written]  # the units done before
    assert numbers == sorted(numbers) and 40 not in numbers


#: A pool whose worker is stopped while it sends its result: the length of the result is in
#: the pipe, the rest never comes. ``sys.argv[1]``: a file the worker creates once it has
#: written that much.
STOPPED_WHILE_SENDING = """
import inspect, os, struct, sys, time
from pathlib import Path
from newsextract.batch.workers import WorkerPool

class SendsPartOfItsResult:
    entries = ()
    mode = "single"

    def outcomes(self):
        frame = inspect.currentframe()
        while frame.f_code.co_name != "_process_worker":  # the pool's loop in the worker
            frame = frame.f_back
        writer = frame.f_locals["result_queue"]._writer
        os.write(writer.fileno(), struct.pack("!i", 1 << 20) + b"part")
        Path(sys.argv[1]).touch()
        time.sleep(600)
        return []

try:
    with WorkerPool(2) as pool:
        pool.outcomes([SendsPartOfItsResult(), SendsPartOfItsResult()])
        while not Path(sys.argv[1]).exists():
            time.sleep(0.01)
        time.sleep(0.5)  # the pool's thread is reading the rest
        raise KeyboardInterrupt  # as Ctrl-C does while the run waits for a result
except KeyboardInterrupt:
    print("stopped")
"""


def test_ctrl_c_ends_the_pool_while_a_worker_sends_its_result(tmp_path: Path) -> None:
    """The workers are stopped at once on Ctrl-C, one of them perhaps while it sends its
    result: the run still ends (it used to wait forever for the rest of that result)."""
    script = [sys.executable, "-c", STOPPED_WHILE_SENDING, str(tmp_path / "sending")]
    process = subprocess.Popen(script, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=60)
    finally:
        kill_group(process)
    assert process.returncode == 0 and out.strip() == "stopped"


def test_ctrl_c_while_a_worker_starts_waits_until_the_pool_knows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C just as a worker process has started, before the pool has noted it: the run
    stops once the unit is handed out, and no worker outlives the pool (one the pool did not
    know would never be stopped, and the run would wait for it at exit)."""
    start = multiprocessing.process.BaseProcess.start

    def start_then_ctrl_c(process: multiprocessing.process.BaseProcess) -> None:
        start(process)
        if process.name.startswith("ForkProcess"):  # the pool's workers (forked)
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", start_then_ctrl_c)
    unit = Unit("single", (), ())
    try:
        with (
            pytest.raises(KeyboardInterrupt),
            StopOnInterrupt() as stop,
            WorkerPool(2, stop.deferred) as pool,
        ):
            pool.outcomes([unit, unit])
        assert multiprocessing.active_children() == []
    finally:
        for orphan in multiprocessing.active_children():
            orphan.kill()
            orphan.join()


def _article() -> bytes:
    paragraphs = "".join(
        f"<p>Paragraph {n} of a story about the harbour, its boats and the people who fish "
        "there every morning of the year, whatever the weather.</p>"
        for n in range(8)
    )
    return f"<html><body><article><h1>Harbour</h1>{paragraphs}</article></body></html>".encode()


def test_sigint_with_two_workers_keeps_the_pages_written(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "a.html").write_bytes(_article())
    pages = 3000
    lines = [json.dumps({"id": f"p{n:04d}", "html": "a.html"}) for n in range(pages)]
    (folder / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "newsextract.cli", "batch", str(folder / "manifest.jsonl")]
    code, err = interrupted(
        [*command, "--out", str(out), "--format", "xml", "--quiet", "--workers", "2"],
        lambda: len(list(out.glob("*.txt"))) >= 40,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert code == 130, err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.strip()]
    assert line.startswith("newsextract batch: interrupted after ")
    done = int(line.split("interrupted after ")[1].split()[0])
    assert 40 <= done < pages
    assert len(list(out.glob("*.txt"))) == done
    root = etree.parse(str(out / "_articles.xml")).getroot()  # closed and well formed
    assert len(root.findall("item")) == done
    assert sorted(path.stem for path in out.glob("*.txt")) == [f"p{n:04d}" for n in range(done)]

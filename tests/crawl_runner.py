"""Run the local site server and the real ``scrapy crawl`` command as subprocesses.

Used by the end-to-end tests: a :class:`SiteProcess` serves a directory on 127.0.0.1
and logs every request, a :class:`CrawlRunner` runs ``python -m scrapy crawl`` from a
working directory with the project's settings and reads back what the crawl wrote.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SERVER_SCRIPT = Path(__file__).resolve().parent / "site_server.py"
#: Seconds to wait for the server's port line; it starts in well under one second.
SERVER_START_TIMEOUT = 20.0
#: The server outlives any test session by far, and then stops by itself.
SERVER_LIFETIME = 1800.0
#: A crawl of the whole mirror takes a few seconds; this only bounds a hung crawl.
CRAWL_TIMEOUT = 240.0
# Fast and deterministic on loopback: no throttling, short timeouts, one retry.
FAST_SETTINGS: dict[str, str] = {
    "AUTOTHROTTLE_ENABLED": "False",
    "DOWNLOAD_DELAY": "0",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "8",
    "DOWNLOAD_TIMEOUT": "6",  # generous: a loaded CI machine delays the reactor
    "RETRY_TIMES": "1",
    "HTTPCACHE_ENABLED": "False",
    "TELNETCONSOLE_ENABLED": "False",
    "LOG_LEVEL": "INFO",
}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Records of a JSONL file; a torn last line (a killed writer) is left out."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            if number != len(lines):
                raise
    return records


class SiteProcess:
    """``tests/site_server.py`` in a subprocess, with its access log."""

    def __init__(self, root: Path, log: Path) -> None:
        self.root = root
        self.log = log
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(SERVER_SCRIPT),
                str(root),
                "--log",
                str(log),
                "--lifetime",
                str(SERVER_LIFETIME),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.port = self._read_port()
        self.origin = f"http://127.0.0.1:{self.port}"

    def _read_port(self) -> int:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], SERVER_START_TIMEOUT)
        line = self.process.stdout.readline() if ready else ""
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError(f"site server did not report a port (got {line!r})")
        return int(line)

    def log_position(self) -> int:
        return self.log.stat().st_size if self.log.exists() else 0

    def requests_since(self, position: int) -> list[tuple[str, str, int]]:
        """(method, path, status) of every request logged after ``position``."""
        if not self.log.exists():
            return []
        with self.log.open(encoding="utf-8") as log:
            log.seek(position)
            rows = [line.split() for line in log.read().splitlines()]
        return [(row[0], row[1], int(row[2])) for row in rows if len(row) == 3]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


@dataclass(frozen=True)
class CrawlResult:
    """What one ``scrapy crawl`` run left behind."""

    returncode: int
    workdir: Path
    records: list[dict[str, Any]]
    failures: list[dict[str, Any]]
    listings: list[dict[str, Any]]
    requests: list[tuple[str, str, int]]  # the server's log for this run
    log: str = field(repr=False)

    def gets(self, path: str) -> int:
        """How many times this run fetched ``path``."""
        return sum(1 for method, p, _ in self.requests if method == "GET" and p == path)

    def record_urls(self) -> list[str]:
        return [str(record.get("url")) for record in self.records]


class CrawlRunner:
    """Runs ``scrapy crawl SPIDER`` against the site server from a working directory."""

    def __init__(self, server: SiteProcess) -> None:
        self.server = server

    def command(
        self,
        spider: str,
        args: Mapping[str, str],
        settings: Mapping[str, str],
        outputs: Sequence[str],
    ) -> list[str]:
        command = [sys.executable, "-m", "scrapy", "crawl", spider]
        for name, value in args.items():
            command += ["-a", f"{name}={value}"]
        for output in outputs:
            command += ["-O", output]
        merged = {
            **FAST_SETTINGS,
            "NEWSEXTRACT_FAILURES": "failures.jsonl",
            "NEWSEXTRACT_LISTINGS": "listings.jsonl",
            **settings,
        }
        for name, value in merged.items():
            command += ["-s", f"{name}={value}"]
        return command

    def environment(self, data_dir: Path) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            SCRAPY_SETTINGS_MODULE="newsextract.settings",
            NEWSEXTRACT_DATA_DIR=str(data_dir),
            NO_PROXY="127.0.0.1,localhost",
            no_proxy="127.0.0.1,localhost",
            PYTHONWARNINGS="ignore",
        )
        return env

    def start(
        self,
        workdir: Path,
        spider: str,
        args: Mapping[str, str],
        *,
        settings: Mapping[str, str] | None = None,
        data_dir: Path | None = None,
        outputs: Sequence[str] = ("out.jsonl",),
    ) -> subprocess.Popen[bytes]:
        """Start a crawl without waiting (the kill-and-resume test needs the process)."""
        workdir.mkdir(parents=True, exist_ok=True)
        with (workdir / "crawl.log").open("ab") as log:  # the child keeps its own descriptor
            return subprocess.Popen(
                self.command(spider, args, settings or {}, outputs),
                cwd=workdir,
                env=self.environment(data_dir or workdir / "data"),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def run(
        self,
        workdir: Path,
        spider: str,
        args: Mapping[str, str],
        *,
        settings: Mapping[str, str] | None = None,
        data_dir: Path | None = None,
        outputs: Sequence[str] = ("out.jsonl",),
    ) -> CrawlResult:
        position = self.server.log_position()
        process = self.start(
            workdir, spider, args, settings=settings, data_dir=data_dir, outputs=outputs
        )
        try:
            returncode = process.wait(timeout=CRAWL_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        return self.collect(workdir, returncode, position, outputs[0])

    def collect(self, workdir: Path, returncode: int, position: int, output: str) -> CrawlResult:
        return CrawlResult(
            returncode=returncode,
            workdir=workdir,
            records=read_jsonl(workdir / output),
            failures=read_jsonl(workdir / "failures.jsonl"),
            listings=read_jsonl(workdir / "listings.jsonl"),
            requests=self.server.requests_since(position),
            log=(workdir / "crawl.log").read_text(encoding="utf-8", errors="replace"),
        )


def kill_when(
    process: subprocess.Popen[bytes],
    server: SiteProcess,
    position: int,
    article_gets: int,
    timeout: float = 60.0,
) -> bool:
    """SIGKILL ``process`` once the server has answered ``article_gets`` article requests.

    Returns False if the crawl ended by itself first (then nothing was killed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        fetched = [p for m, p, s in server.requests_since(position) if p.startswith("/article/")]
        if len(fetched) >= article_gets:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            return True
        time.sleep(0.02)
    return False

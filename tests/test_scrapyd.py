"""Scrapyd end to end: ``scrapyd-deploy`` builds and uploads the project's egg to a real
Scrapyd on a loopback port, a crawl of the demo site is scheduled through its HTTP API, and
the job's items and log are read back.

The deploy runs in a temporary copy of the project, so the egg build (``build/``,
``*.egg-info``) never touches the work tree.
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import socket
import subprocess
import time
import tomllib
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from crawl_runner import SiteProcess

from newsextract.demo_server import ARTICLE_PATTERN, demo_site

REPO_ROOT = Path(__file__).resolve().parent.parent
PROJECT = "newsextract"
TARGET = "local"
VERSION = "e2e-1"
#: A profile only the deployed copy bundles: its spider is listed only if jobs import the
#: egg (not the work tree) and read its package data from inside the zip.
PROBE_PROFILE = "scrapydprobe"
INSTALL_HINT = "pip install -e '.[dev]' installs scrapyd and scrapyd-client"
#: What scrapyd-deploy needs to build the egg, copied from the work tree.
PROJECT_FILES = ("scrapy.cfg", "setup.py", "pyproject.toml", "README.md")
#: Scrapyd answers in about a second; the deploy (an egg build) takes two or three.
SCRAPYD_START_TIMEOUT = 30.0
DEPLOY_TIMEOUT = 120.0
#: The demo crawl is about 20 requests on loopback: a few seconds, plus Scrapyd's polling.
JOB_TIMEOUT = 90.0
POLL_SECONDS = 0.3
# Loopback needs no politeness delay; robots.txt is still obeyed.
CRAWL_SETTINGS = {
    "AUTOTHROTTLE_ENABLED": "False",
    "DOWNLOAD_DELAY": "0",
    "DOWNLOAD_TIMEOUT": "10",
    "LOG_LEVEL": "INFO",
}
_NO_PROXY = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
# Urllib without the environment's proxies: every request here goes to loopback.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _binary(name: str) -> str:
    """The path of a Scrapyd command; skips the test without it, or fails it under CI."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{name} not found under CI: {INSTALL_HINT}")
        pytest.skip(f"{name} not found: {INSTALL_HINT}")
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(data_dir: Path) -> dict[str, str]:
    env = {**os.environ, **_NO_PROXY, "NEWSEXTRACT_DATA_DIR": str(data_dir)}
    for name in ("SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT", "NEWSEXTRACT_PROFILES_DIR"):
        env.pop(name, None)  # the egg names its settings; the bundled profiles only
    return env


class Scrapyd:
    """One ``scrapyd`` process whose configuration, eggs, logs, items and databases all
    live in ``folder``."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.items_dir = folder / "items"
        self.logs_dir = folder / "logs"
        self.eggs_dir = folder / "eggs"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "scrapyd.conf").write_text(
            "[scrapyd]\n"
            "bind_address = 127.0.0.1\n"
            f"http_port = {self.port}\n"
            f"eggs_dir = {self.eggs_dir}\n"
            f"logs_dir = {self.logs_dir}\n"
            f"items_dir = {self.items_dir}\n"
            f"dbs_dir = {folder / 'dbs'}\n"
            "max_proc = 2\n"
            "poll_interval = 0.2\n",
            encoding="utf-8",
        )
        # Scrapyd reads ./scrapyd.conf: it runs (and its jobs run) in the folder.
        with (folder / "scrapyd.out").open("wb") as out:
            self.process = subprocess.Popen(
                [_binary("scrapyd")], cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        self._wait_until_up()

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + SCRAPYD_START_TIMEOUT
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if self.get("daemonstatus.json").get("status") == "ok":
                    return
            except OSError:
                time.sleep(POLL_SECONDS)
        self.stop()
        raise RuntimeError(f"scrapyd did not start on port {self.port}: {self.output()}")

    def get(self, endpoint: str, **query: str) -> dict[str, Any]:
        url = self.url + endpoint + ("?" + urllib.parse.urlencode(query) if query else "")
        with _OPENER.open(url, timeout=10) as response:
            return dict(json.loads(response.read()))

    def post(self, endpoint: str, fields: list[tuple[str, str]]) -> dict[str, Any]:
        body = urllib.parse.urlencode(fields).encode()
        with _OPENER.open(self.url + endpoint, data=body, timeout=10) as response:
            return dict(json.loads(response.read()))

    def output(self) -> str:
        return (self.folder / "scrapyd.out").read_text("utf-8", errors="replace")[-3000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def scrapyd(tmp_path: Path) -> Iterator[Scrapyd]:
    env = _environment(tmp_path / "data")
    try:
        server = Scrapyd(tmp_path / "scrapyd", env)
    except RuntimeError:  # the free port was taken before Scrapyd bound it: once more
        server = Scrapyd(tmp_path / "scrapyd-again", env)
    yield server
    server.stop()


@pytest.fixture
def demo_server(tmp_path: Path) -> Iterator[SiteProcess]:
    with demo_site() as site:
        server = SiteProcess(site, tmp_path / "site-access.log")
        yield server
        server.stop()


def _project_copy(folder: Path, deploy_url: str) -> Path:
    """The files scrapyd-deploy builds from, with the ``local`` target pointed at ``url``,
    and one bundled profile more than the work tree's."""
    shutil.copytree(
        REPO_ROOT / PROJECT, folder / PROJECT, ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in PROJECT_FILES:
        shutil.copy2(REPO_ROOT / name, folder / name)
    profiles = folder / PROJECT / "sites" / "profiles"
    bbc = (profiles / "bbc.toml").read_text(encoding="utf-8")
    probe = bbc.replace('name = "bbc"', f'name = "{PROBE_PROFILE}"')
    assert probe != bbc, "bbc.toml no longer names itself as the probe expects"
    (profiles / f"{PROBE_PROFILE}.toml").write_text(probe, encoding="utf-8")
    config = configparser.ConfigParser()
    config.read(folder / "scrapy.cfg", encoding="utf-8")
    config[f"deploy:{TARGET}"]["url"] = deploy_url
    with (folder / "scrapy.cfg").open("w", encoding="utf-8") as cfg:
        config.write(cfg)
    return folder


def _deploy(project: Path, env: dict[str, str]) -> None:
    finished = subprocess.run(
        [_binary("scrapyd-deploy"), TARGET, "--version", VERSION],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEPLOY_TIMEOUT,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert json.loads(finished.stdout)["status"] == "ok", finished.stdout


def _schedule(scrapyd: Scrapyd, origin: str, out: Path) -> str:
    """Schedule the demo crawl; its state store is where Scrapyd's environment says."""
    settings = {
        **CRAWL_SETTINGS,
        "NEWSEXTRACT_FAILURES": str(out / "failures.jsonl"),
        "NEWSEXTRACT_LISTINGS": str(out / "listings.jsonl"),
    }
    fields = [
        ("project", PROJECT),
        ("spider", "site"),
        ("start_url", f"{origin}/index.html"),
        ("allow", ARTICLE_PATTERN),
    ]
    fields += [("setting", f"{name}={value}") for name, value in settings.items()]
    answer = scrapyd.post("schedule.json", fields)
    assert answer["status"] == "ok", answer
    return str(answer["jobid"])


def _wait_for(scrapyd: Scrapyd, job: str) -> None:
    deadline = time.monotonic() + JOB_TIMEOUT
    while time.monotonic() < deadline:
        jobs = scrapyd.get("listjobs.json", project=PROJECT)
        if job in {entry["id"] for entry in jobs["finished"]}:
            return
        time.sleep(POLL_SECONDS)
    scrapyd.post("cancel.json", [("project", PROJECT), ("job", job)])
    pytest.fail(f"job {job} not finished after {JOB_TIMEOUT:.0f} s: {scrapyd.output()}")


def _article_paths() -> list[str]:
    with demo_site() as site:
        return sorted("/" + p.relative_to(site).as_posix() for p in site.glob("article/**/*.html"))


def test_scrapy_cfg_has_a_local_deploy_target() -> None:
    config = configparser.ConfigParser()
    config.read(REPO_ROOT / "scrapy.cfg", encoding="utf-8")
    assert config[f"deploy:{TARGET}"]["project"] == PROJECT
    assert config[f"deploy:{TARGET}"]["url"] == "http://localhost:6800/"
    # Scrapyd reads the deployed egg's settings module from this entry point.
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entry_points = pyproject["project"]["entry-points"]["scrapy"]
    assert entry_points["settings"] == config["settings"]["default"]


@pytest.mark.e2e
def test_scrapyd_runs_a_deployed_crawl(
    tmp_path: Path, scrapyd: Scrapyd, demo_server: SiteProcess
) -> None:
    env = _environment(tmp_path / "data")
    project = _project_copy(tmp_path / "project", scrapyd.url)
    _deploy(project, env)
    assert scrapyd.get("listprojects.json")["projects"] == [PROJECT]
    spiders = scrapyd.get("listspiders.json", project=PROJECT)["spiders"]
    assert {"site", "idrange", "asahi", PROBE_PROFILE} <= set(spiders), spiders

    # The egg Scrapyd stored holds the package data, read through importlib.resources.
    with zipfile.ZipFile(scrapyd.eggs_dir / PROJECT / f"{VERSION}.egg") as egg:
        names = set(egg.namelist())
        assert "newsextract/extraction/evidence/models/classifier.json" in names
        assert "newsextract/extraction/evidence/models/classifier.arrays" in names
        assert "newsextract/demo/site/index.html" in names
        bundled = {p.name for p in (REPO_ROOT / PROJECT / "sites" / "profiles").glob("*.toml")}
        assert {f"newsextract/sites/profiles/{name}" for name in bundled} <= names
        assert "settings = newsextract.settings" in egg.read("EGG-INFO/entry_points.txt").decode()

    job = _schedule(scrapyd, demo_server.origin, tmp_path)
    _wait_for(scrapyd, job)

    log = (scrapyd.logs_dir / PROJECT / "site" / f"{job}.log").read_text("utf-8", "replace")
    assert "Traceback" not in log, log[-3000:]
    assert "'finish_reason': 'finished'" in log, log[-3000:]
    items = scrapyd.items_dir / PROJECT / "site" / f"{job}.jl"
    records = [json.loads(line) for line in items.read_text("utf-8").splitlines() if line]
    paths = sorted(urllib.parse.urlsplit(record["url"]).path for record in records)
    assert paths == _article_paths()  # every article, each once
    assert all(record["headline"] and record["articleBody"] for record in records)
    assert any((tmp_path / "data").iterdir())  # NEWSEXTRACT_DATA_DIR, from Scrapyd's env

"""Shared fixtures: where the development data lives (read in place, never copied)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from crawl_runner import CrawlRunner, SiteProcess
from mirror import Mirror, build_mirror

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("NEWSEXTRACT_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "dragnet" / "manifest.jsonl").exists():
        pytest.fail(f"development data not found at {SHARED_DATA}; set NEWSEXTRACT_SHARED_DATA")
    return SHARED_DATA


# --- the offline test rig: a mirror site, its server and the scrapy runner ---------------


@pytest.fixture(scope="session")
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteProcess]:
    """The local site server (a subprocess on 127.0.0.1) over an initially empty root."""
    base = tmp_path_factory.mktemp("site")
    (base / "root").mkdir()
    server = SiteProcess(base / "root", base / "access.log")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def mirror_site(site_server: SiteProcess, shared_data: Path) -> Mirror:
    """The mirror news site built from the development data, served by ``site_server``."""
    return build_mirror(site_server.root, shared_data, site_server.origin)


@pytest.fixture(scope="session")
def crawl_runner(site_server: SiteProcess) -> CrawlRunner:
    return CrawlRunner(site_server)

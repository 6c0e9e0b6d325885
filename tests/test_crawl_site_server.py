"""The local site server: static files, fault routes, hidden files, the access log."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from crawl_runner import SiteProcess

from newsextract.demo_server import SiteServer, resolve_file, serve_in_thread


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[SiteServer]:
    root = tmp_path / "site"
    (root / "article").mkdir(parents=True)
    (root / "index.html").write_bytes(
        b"<html><body><a href='/article/1.html'>one</a></body></html>"
    )
    (root / "article" / "1.html").write_bytes("<p>caf\u00e9</p>".encode("cp1252"))
    (root / "_secret.txt").write_text("not served", encoding="utf-8")
    routes = {
        "/sjis.html": {"file": "article/1.html",
                       "headers": {"Content-Type": "text/html; charset=windows-1252"}},
        "/moved.html": {"status": 301, "location": "/article/1.html"},
        "/broken.html": {"status": 500},
        "/slow.html": {"delay": 0.3, "file": "index.html"},
    }  # fmt: skip
    (root / "_routes.json").write_text(json.dumps(routes), encoding="utf-8")
    with serve_in_thread(root, log=tmp_path / "access.log") as server:
        yield server


def _get(server: SiteServer, path: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_serves_files_and_directory_index(site: SiteServer) -> None:
    status, headers, body = _get(site, "/")
    assert (status, headers["Content-Type"]) == (200, "text/html")
    assert b"/article/1.html" in body
    assert _get(site, "/article/1.html")[2] == "<p>caf\u00e9</p>".encode("cp1252")


def test_missing_hidden_and_escaping_paths_are_404(site: SiteServer) -> None:
    for path in ("/article/2.html", "/_secret.txt", "/_routes.json", "/../site/index.html",
                 "/article/%2e%2e/index.html"):  # fmt: skip
        assert _get(site, path)[0] == 404, path


def test_routes_give_status_headers_redirects_and_delays(site: SiteServer) -> None:
    status, headers, body = _get(site, "/sjis.html")
    assert headers["Content-Type"] == "text/html; charset=windows-1252"
    assert body.decode("cp1252") == "<p>caf\u00e9</p>"
    status, headers, _ = _get(site, "/moved.html")
    assert (status, headers["Location"]) == (301, "/article/1.html")
    assert _get(site, "/broken.html")[0] == 500
    started = time.monotonic()
    assert _get(site, "/slow.html")[0] == 200
    assert time.monotonic() - started >= 0.3


def test_access_log_records_each_request(site: SiteServer) -> None:
    _get(site, "/index.html")
    _get(site, "/nothing.html")
    assert site.access_log is not None
    lines = site.access_log.read_text(encoding="utf-8").splitlines()
    assert lines == ["GET /index.html 200", "GET /nothing.html 404"]


def test_resolve_file_stays_inside_the_root(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text("x", encoding="utf-8")
    assert resolve_file(tmp_path, "/a/") == tmp_path / "a" / "index.html"
    assert resolve_file(tmp_path, "/a/../a/index.html") is None
    assert resolve_file(tmp_path, "/b.html") is None


def test_server_program_prints_its_port_and_stops_by_itself(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<p>hello</p>", encoding="utf-8")
    server = SiteProcess(tmp_path, tmp_path / "_access.log")
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/index.html")
        assert connection.getresponse().read() == b"<p>hello</p>"
        connection.close()
    finally:
        server.stop()
    program = Path(__file__).parent / "site_server.py"
    finished = subprocess.run(
        [sys.executable, str(program), str(tmp_path), "--lifetime", "0.2"],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    assert finished.stdout.strip().isdigit()

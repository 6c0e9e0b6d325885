"""A small static site server for offline crawls (the demo and the end-to-end tests use it),
and the bundled demo site (:func:`demo_site`).

It serves one directory on 127.0.0.1 plus a table of *fault routes* read from
``ROOT/_routes.json`` on every request, so a site can be written after the server
has started (its absolute URLs need the port). A route maps a path to a status,
a delay, extra headers, a redirect target or a file served under another URL:

    {"/article/901.html": {"status": 500},
     "/article/902.html": {"delay": 6, "file": "article/1.html"},
     "/article/903.html": {"status": 301, "location": "/article/77.html"},
     "/a.html": {"file": "a-sjis.html",
                 "headers": {"Content-Type": "text/html; charset=Shift_JIS"}}}

Files and directories whose name starts with ``_`` are never served. The server
stops by itself after ``lifetime`` seconds, so a forgotten process cannot linger.

Run it as a program (``python -m newsextract.demo_server ROOT``): it prints its port
on the first line of stdout.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

ROUTES_FILE = "_routes.json"
#: Seconds before the server shuts itself down; a test session or a demo takes far less.
LIFETIME_DEFAULT = 900.0
HOST_DEFAULT = "127.0.0.1"
# Types the guesser does not know or gets wrong for crawled sites; HTML is served with no
# charset on purpose, so pages declare it themselves (a route adds one when wanted).
_CONTENT_TYPES = {
    ".html": "text/html",
    ".htm": "text/html",
    ".xml": "application/xml",
    ".rss": "application/rss+xml",
    ".atom": "application/atom+xml",
    ".txt": "text/plain",
}

#: Which URLs of the demo site are articles (its listings use /section/ and /index.html).
ARTICLE_PATTERN = r"/article/\d{4}/\d{2}/[\w-]+"


@contextmanager
def demo_site() -> Iterator[Path]:
    """The bundled site as a directory (extracted to a temporary one if zipped)."""
    with resources.as_file(resources.files("newsextract") / "demo" / "site") as path:
        yield Path(path)


@dataclass(frozen=True)
class Route:
    """How the server answers one path instead of serving the file of the same name."""

    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    file: str | None = None  # relative to the root; default: the requested path
    location: str | None = None  # a redirect target (with a 3xx status)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Route:
        return cls(
            status=int(data.get("status", 200)),
            delay=float(data.get("delay", 0.0)),
            headers={str(k): str(v) for k, v in dict(data.get("headers", {})).items()},
            file=data.get("file"),
            location=data.get("location"),
        )


def load_routes(root: Path) -> dict[str, Route]:
    """The fault routes of a site; none if it has no routes file."""
    path = root / ROUTES_FILE
    if not path.exists():
        return {}
    table = json.loads(path.read_text(encoding="utf-8"))
    return {str(url_path): Route.from_json(spec) for url_path, spec in table.items()}


def resolve_file(root: Path, url_path: str) -> Path | None:
    """The file a URL path names under ``root``, or None (outside, hidden or missing)."""
    parts = [part for part in unquote(url_path).split("/") if part]
    if any(part in (".", "..") or part.startswith("_") for part in parts):
        return None
    candidate = root.joinpath(*parts)
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


def content_type_for(path: Path) -> str:
    known = _CONTENT_TYPES.get(path.suffix.lower())
    if known:
        return known
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


class SiteHandler(BaseHTTPRequestHandler):
    """Answers GET and HEAD from the site directory and its fault routes."""

    server: SiteServer
    server_version = "newsextract-site/1"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._answer(send_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(send_body=False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet: the access log file, when asked for, is the record of requests."""

    def _answer(self, send_body: bool) -> None:
        url_path = urlsplit(self.path).path
        route = self.server.routes().get(url_path, Route())
        if route.delay:
            time.sleep(route.delay)
        status, headers, body = self._response(url_path, route)
        self.server.log_request_line(self.command, url_path, status)
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer

    def _response(self, url_path: str, route: Route) -> tuple[int, dict[str, str], bytes]:
        if route.location is not None:
            return route.status, {"Location": route.location, **route.headers}, b""
        path = resolve_file(self.server.root, route.file or url_path)
        if path is None or route.status >= 400:
            # an error route needs no file; a missing file is a plain 404
            status = route.status if route.status >= 400 else 404
            body = f"<html><body><h1>Error {status}</h1></body></html>".encode()
            return status, {"Content-Type": "text/html", **route.headers}, body
        headers = {"Content-Type": content_type_for(path), **route.headers}
        return route.status, headers, path.read_bytes()


class SiteServer(ThreadingHTTPServer):
    """A threading HTTP server over one site directory, with an optional access log."""

    daemon_threads = True

    def __init__(self, root: Path, port: int = 0, log: Path | None = None) -> None:
        self.root = root.resolve()
        self.access_log = log
        self._log_lock = threading.Lock()
        super().__init__((HOST_DEFAULT, port), SiteHandler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://{HOST_DEFAULT}:{self.port}"

    def routes(self) -> dict[str, Route]:
        return load_routes(self.root)

    def log_request_line(self, method: str, url_path: str, status: int) -> None:
        if self.access_log is None:
            return
        with self._log_lock, self.access_log.open("a", encoding="utf-8") as log:
            log.write(f"{method} {url_path} {status}\n")


@contextmanager
def serve_in_thread(root: Path, port: int = 0, log: Path | None = None) -> Iterator[SiteServer]:
    """Serve ``root`` from a background thread for the duration of a ``with`` block."""
    server = SiteServer(root, port, log)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the site directory")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--log", type=Path, help="append 'METHOD PATH STATUS' lines here")
    parser.add_argument(
        "--lifetime", type=float, default=LIFETIME_DEFAULT, help="seconds before stopping"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.root.is_dir():
        print(f"not a directory: {args.root}", file=sys.stderr)
        return 2
    server = SiteServer(args.root, args.port, args.log)
    timer = threading.Timer(args.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    print(server.port, flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

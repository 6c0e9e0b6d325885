"""The page view in a real browser: headless Chromium (Debian's ``chromium``) via Playwright.

The view of a hostile page (a script that changes the document, ``onerror`` handlers,
``javascript:`` links, an iframe, external images and stylesheets pointing at a local HTTP
server) must open with its marks shown and nothing run or fetched: no script marker in the
document, no request but the view's own file, and an empty access log on the server.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from newsextract.extraction import parse_page
from newsextract.views.page_view import BODY_COLOUR, PANEL_ID, analyse_page, render_view
from tests.devdata import in_ci
from tests.test_views import hostile_page

pytestmark = pytest.mark.e2e

INSTALL = (
    "headless Chromium and Playwright are needed: apt-get install -y chromium; "
    "pip install -e '.[dev]' (Playwright drives the system browser: no browser download)"
)
#: A script the view must not run: it would mark the document and change its title.
PWN_SCRIPT = (
    "<script>document.title = 'pwned'; window.pwned = 1;"
    "document.body.insertAdjacentHTML('beforeend', '<p id=\"pwned\">pwned</p>')</script>"
)


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        path = None
    if path is None:
        if in_ci():
            pytest.fail(f"browser test cannot run: {INSTALL}")
        pytest.skip(INSTALL)
    return path


@dataclass
class AccessLog:
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def resource_server() -> Iterator[tuple[str, AccessLog]]:
    """A local HTTP server on a free port that logs every request it gets."""
    log = AccessLog()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server API)
            log.requests.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", log
    finally:
        server.shutdown()
        server.server_close()


def test_view_opens_marked_and_inert(
    tmp_path: Path, resource_server: tuple[str, AccessLog]
) -> None:
    chromium = _chromium()
    from playwright.sync_api import Route, sync_playwright

    host, access_log = resource_server
    html = hostile_page(host).replace("</body>", PWN_SCRIPT + "</body>")
    html = html.replace("<p>", '<p><img src="x" onerror="window.pwned = 2">', 1)
    view = tmp_path / "view.html"
    analysis = analyse_page(parse_page(html, f"http://{host}/ferry.html"))
    view.write_text(render_view(analysis, {"headline": analysis.article.headline}), "utf-8")

    requested: list[str] = []
    blocked: list[str] = []

    def route(route: Route) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.route("**/*", route)
            page = context.new_page()
            page.on("request", lambda request: requested.append(request.url))
            page.goto(view.as_uri(), wait_until="load")
            page.wait_for_timeout(500)  # time for anything deferred to try
            screenshot = page.screenshot(full_page=False)
            marked = page.locator("[data-nx-blocks].nx-body").first
            background = marked.evaluate("el => getComputedStyle(el).backgroundColor")
            panel_visible = page.locator(f"#{PANEL_ID}").is_visible()
            legend_visible = page.locator("#nx-legend").is_visible()
            title = page.title()
            pwned = page.evaluate(
                "() => [window.pwned === undefined ? null : window.pwned,"
                " document.getElementById('pwned') === null ? null : 'element',"
                " document.documentElement.getAttribute('data-pwned'),"
                " document.body.getAttribute('data-pwned')]"
            )
            links = page.evaluate(
                "() => [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))"
            )
        finally:
            browser.close()

    assert screenshot[:8] == b"\x89PNG\r\n\x1a\n" and len(screenshot) > 1000
    red, green, blue = (int(BODY_COLOUR[i : i + 2], 16) for i in (1, 3, 5))
    assert background == f"rgb({red}, {green}, {blue})"
    assert panel_visible and legend_visible
    assert title.startswith("view: ") and "pwned" not in title
    assert pwned == [None, None, None, None]
    assert not any(link.lower().lstrip().startswith("javascript:") for link in links)
    assert [url for url in requested if not url.startswith("file:")] == []
    assert blocked == []
    assert access_log.requests == []

"""``scrapy crawl`` as a cron job runs it: a bad argument is one clear line and exit code 2
before any request, a hostile pattern cannot stall the crawl, and a broken user profile
does not take the other spiders down. Every crawl runs as a subprocess against the local
site server, with a bound on its time."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from crawl_runner import CrawlResult, CrawlRunner, SiteProcess

from newsextract.extensions.outcome import DOWNLOAD_FAILED_STAT as DOWNLOAD_FAILED
from newsextract.extensions.outcome import FIRST_DOWNLOAD_STAT as FIRST_DOWNLOAD

pytestmark = pytest.mark.e2e

#: A refused crawl only starts Python and Scrapy (2-3 s here); the bound is generous.
REFUSAL_SECONDS = 60.0
#: The hostile crawl fetches three pages (about 5 s here). With Python's re its near-miss
#: link alone would take days, so the bound separates the two by far.
CRAWL_SECONDS = 90.0
#: The pattern and link shape that froze a crawl for 58 s (31 characters after /news/ then).
BACKTRACKING = r"/news/(\w+-?)+\.html"
NEAR_MISS = "/news/" + "a" * 40
LONG_ARTICLE = "/news/" + "x" * 2100 + ".html"
PARAGRAPH = (
    "The harbour authority said on Tuesday that the new quay would open to ferries in the "
    "spring, after two years of work that closed the old pier to traffic and moved the "
    "fish market to a temporary hall on the eastern side of the bay. "
)
ARTICLE = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>New quay opens in spring</title></head><body>
<header><a href="/index.html">Home</a></header>
<article><h1>New quay opens in spring</h1>
{"".join(f"<p>{PARAGRAPH * 2} Part {n}.</p>" for n in range(6))}
</article><footer>Harbour News</footer></body></html>"""
INDEX = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbour News</title>
</head><body><h1>Harbour News</h1><ul>
<li><a href="/news/new-quay-opens.html">New quay opens in spring</a></li>
<li><a href="{NEAR_MISS}">A link that almost matches</a></li>
<li><a href="{LONG_ARTICLE}">A link longer than any request</a></li>
</ul></body></html>"""
PROFILE = r"""name = "harbour"
site = "harbour.example"
language = "en"
allowed_domains = ["www.harbour.example"]
start_urls = ["https://www.harbour.example/"]

[patterns]
article = ['^https://www\.harbour\.example/news/[a-z-]+\.html$']

[examples]
articles = ["https://www.harbour.example/news/new-quay.html"]
non_articles = ["https://www.harbour.example/"]
"""


@pytest.fixture(scope="module")
def harbour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrawlRunner]:
    """A three-page news site on its own server."""
    base = tmp_path_factory.mktemp("harbour")
    root = base / "root"
    (root / "news").mkdir(parents=True)
    (root / "index.html").write_text(INDEX, encoding="utf-8")
    (root / "news" / "new-quay-opens.html").write_text(ARTICLE, encoding="utf-8")
    server = SiteProcess(root, base / "access.log")
    yield CrawlRunner(server)
    server.stop()


@dataclass(frozen=True)
class Refusal:
    returncode: int
    seconds: float
    output: str
    requests: int  # made to the site server meanwhile

    def errors(self) -> list[str]:
        return [line for line in self.output.splitlines() if " ERROR: " in line]


def refused(runner: CrawlRunner, workdir: Path, spider: str, args: dict[str, str]) -> Refusal:
    position = runner.server.log_position()
    command = runner.command(spider, args, {}, ["out.jsonl"])
    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        command,
        cwd=workdir,
        env=runner.environment(workdir / "data"),
        capture_output=True,
        text=True,
        timeout=REFUSAL_SECONDS * 2,
    )
    seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    return Refusal(done.returncode, seconds, output, len(runner.server.requests_since(position)))


@pytest.mark.parametrize(
    ("spider", "arguments", "expected"),
    [
        ("site", {"max_pages": "ten"}, "-a max_pages: expected a whole number, 1 or more"),
        ("site", {"since": "yesterday"}, "-a since: expected YYYY-MM-DD or an ISO 8601 time"),
        ("site", {"allow": r"/news/(\d+)/\1"}, "-a allow: '/news/(\\d+)/\\1' needs a feature"),
        ("site", {"deny": "/news/("}, "-a deny: bad regex '/news/(': missing )"),
        ("site", {"start_url": "ftp://127.0.0.1/"}, "-a start_url: expected absolute http://"),
        ("site", {"allow": ""}, "-a allow: required with start_url alone"),
        ("idrange", {"ids": "1000..1010"}, "-a ids: expected START-END[:STEP], START-[:STEP]"),
        ("asahi", {"max_pages": "-5"}, "-a max_pages: expected a whole number, 1 or more"),
    ],
)
def test_a_bad_argument_is_one_line_and_exit_code_2(
    harbour: CrawlRunner, tmp_path: Path, spider: str, arguments: dict[str, str], expected: str
) -> None:
    origin = harbour.server.origin
    given = {"start_url": f"{origin}/index.html", "allow": r"/news/[a-z-]+\.html"}
    if spider == "idrange":
        given = {"url_template": origin + "/news/{id}.html", "ids": "1-10"}
    elif spider != "site":
        given = {}
    refusal = refused(harbour, tmp_path, spider, {**given, **arguments})
    assert refusal.returncode == 2, refusal.output[-3000:]
    assert refusal.seconds < REFUSAL_SECONDS
    assert "Traceback" not in refusal.output, refusal.output[-3000:]
    (error,) = refusal.errors()
    assert f" ERROR: scrapy crawl {spider}: {expected}" in error, error
    assert refusal.requests == 0


@pytest.fixture(scope="module")
def hostile_crawl(harbour: CrawlRunner, tmp_path_factory: pytest.TempPathFactory) -> CrawlResult:
    """The site crawled with the pattern that froze a crawl, and a misspelt argument."""
    workdir = tmp_path_factory.mktemp("hostile-crawl")
    args = {
        "start_url": harbour.server.origin + "/index.html",
        "allow": BACKTRACKING,
        "alow": "/news/",
    }
    position = harbour.server.log_position()
    process = harbour.start(workdir, "site", args, settings={"ROBOTSTXT_OBEY": "False"})
    started = time.monotonic()
    try:
        returncode = process.wait(timeout=CRAWL_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail(f"the crawl was still running after {CRAWL_SECONDS:.0f} s")
    assert time.monotonic() - started < CRAWL_SECONDS
    return harbour.collect(workdir, returncode, position, "out.jsonl")


def test_a_backtracking_pattern_does_not_stall_the_crawl(hostile_crawl: CrawlResult) -> None:
    assert hostile_crawl.returncode == 0, hostile_crawl.log[-3000:]
    assert [url.rsplit("/", 1)[-1] for url in hostile_crawl.record_urls()] == [
        "new-quay-opens.html"
    ]


def test_every_url_the_hostile_crawl_fetched_ends_as_a_record(
    hostile_crawl: CrawlResult, harbour: CrawlRunner
) -> None:
    fetched = {harbour.server.origin + path for method, path, _ in hostile_crawl.requests}
    recorded = set(hostile_crawl.record_urls())
    recorded |= {str(r["url"]) for r in hostile_crawl.failures + hostile_crawl.listings}
    assert fetched and fetched <= recorded, (fetched - recorded, hostile_crawl.log[-3000:])
    assert hostile_crawl.gets(NEAR_MISS) == 1  # read as a listing page: a 404, recorded
    assert {f["url"].rsplit("/", 1)[-1]: f["status"] for f in hostile_crawl.failures} == {
        NEAR_MISS.rsplit("/", 1)[-1]: 404
    }


def test_a_link_longer_than_the_url_limit_is_never_requested(hostile_crawl: CrawlResult) -> None:
    assert hostile_crawl.gets(LONG_ARTICLE) == 0
    assert "'newsextract/links/too_long': 1" in hostile_crawl.log


def test_a_misspelt_argument_is_warned_about(hostile_crawl: CrawlResult) -> None:
    warnings = [line for line in hostile_crawl.log.splitlines() if "-a alow" in line]
    assert len(warnings) == 1 and " WARNING: " in warnings[0], warnings
    assert "(did you mean 'allow'?)" in warnings[0]


# --- user profiles --------------------------------------------------------------------------


def scrapy(
    runner: CrawlRunner, workdir: Path, profiles: Path, *command: str
) -> subprocess.CompletedProcess[str]:
    env = runner.environment(workdir / "data") | {"NEWSEXTRACT_PROFILES_DIR": str(profiles)}
    return subprocess.run(
        [sys.executable, "-m", "scrapy", *command],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=REFUSAL_SECONDS * 2,
    )


def test_a_broken_user_profile_leaves_the_other_spiders(
    harbour: CrawlRunner, tmp_path: Path
) -> None:
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "harbour.toml").write_text(PROFILE, encoding="utf-8")
    (profiles / "broken.toml").write_text(PROFILE.replace("[examples]", "[examples"), "utf-8")
    started = time.monotonic()
    listed = scrapy(harbour, tmp_path, profiles, "list")
    assert time.monotonic() - started < REFUSAL_SECONDS
    assert listed.returncode == 0, listed.stderr[-3000:]
    names = set(listed.stdout.split())
    assert {"harbour", "asahi", "cnn", "site", "idrange"} <= names and "broken" not in names
    errors = [line for line in listed.stderr.splitlines() if "broken.toml" in line]
    assert errors and str(profiles / "broken.toml") in errors[0], listed.stderr[-3000:]


def test_the_profiles_directory_as_a_setting_is_refused(
    harbour: CrawlRunner, tmp_path: Path
) -> None:
    position = harbour.server.log_position()
    command = harbour.command("harbour", {}, {"NEWSEXTRACT_PROFILES_DIR": "profiles"}, [])
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env=harbour.environment(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=REFUSAL_SECONDS * 2,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2, output[-3000:]
    (error,) = [line for line in output.splitlines() if " ERROR: " in line]
    assert "NEWSEXTRACT_PROFILES_DIR is an environment variable, not a setting" in error
    assert harbour.server.requests_since(position) == []


# --- nothing fetched ------------------------------------------------------------------------


def test_the_one_line_of_a_crawl_that_fetched_nothing() -> None:
    import doctest

    from newsextract.extensions import outcome

    failures, tried = doctest.testmod(outcome)
    assert tried >= 4 and failures == 0
    stats = {DOWNLOAD_FAILED: 1, FIRST_DOWNLOAD: "http://a.invalid/: timeout"}
    assert outcome.crawl_failure(stats) == (
        "nothing could be fetched: 1 request failed at download, the first "
        "http://a.invalid/: timeout"
    )
    assert outcome.crawl_failure({**stats, "response_received_count": 1}) is None
    assert outcome.crawl_failure({}) is None  # no request at all: nothing went wrong


def test_a_crawl_that_fetched_nothing_exits_1_saying_why(
    harbour: CrawlRunner, tmp_path: Path
) -> None:
    """Network down: the host cannot be resolved, so no request gets a response."""
    args = {"start_url": "http://nonexistent.invalid/", "allow": r"/news/[a-z-]+\.html"}
    result = harbour.run(tmp_path, "site", args)
    assert result.returncode == 1, result.log[-3000:]
    (line,) = [line for line in result.log.splitlines() if "exit status 1" in line]
    assert " ERROR: exit status 1: nothing could be fetched: " in line, line
    assert "request failed at download, the first http://nonexistent.invalid/" in line, line
    assert "DNS lookup failed" in line, line
    assert result.records == [] and {f["stage"] for f in result.failures} == {"download"}


def test_a_rerun_that_finds_nothing_new_exits_0(harbour: CrawlRunner, tmp_path: Path) -> None:
    args = {"start_url": harbour.server.origin + "/index.html", "allow": r"/news/[a-z-]+\.html"}
    settings = {"ROBOTSTXT_OBEY": "False"}
    first = harbour.run(tmp_path / "first", "site", args, settings=settings, data_dir=tmp_path)
    assert first.returncode == 0 and len(first.records) == 1, first.log[-3000:]
    again = harbour.run(tmp_path / "again", "site", args, settings=settings, data_dir=tmp_path)
    assert again.returncode == 0, again.log[-3000:]
    assert again.records == [] and again.gets("/index.html") == 1
    assert "nothing could be fetched" not in again.log

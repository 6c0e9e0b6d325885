"""End to end: the real ``scrapy crawl`` command against a mirror site on 127.0.0.1.

The mirror (tests/mirror.py) is built from page groups of the development data and
served by tests/site_server.py; every crawl runs as a subprocess, from its own working
directory, with ``SCRAPY_SETTINGS_MODULE=newsextract.settings``.
"""

from __future__ import annotations

import html
import string
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from crawl_runner import FAST_SETTINGS, CrawlResult, CrawlRunner, kill_when, read_jsonl
from lxml import etree
from mirror import CONTROL_PAGE, NEWS_GAPS, NEWS_IDS, SINCE_SPLIT, Mirror, MirrorArticle, feed_items

from newsextract.evaluation.metric import score_page, summarise

pytestmark = pytest.mark.e2e

ALLOW = r"/article/\d+\.html"
#: Mean F1 of the crawl's bodies against the gold text (82 mirror articles), pinned a little
#: below the measured figure so a regression fails: 0.982-0.985 over three crawls with the
#: classifier combiner and the template stage (2026-11-29); the first, link-density-only
#: extractor reached 0.864.
MIN_MEAN_F1 = 0.95
#: A re-encoded page decoded wrong scores near 0; decoded right, 0.94-1.0 (2026-11-29). The
#: gate sits well below, so it tracks decoding, not the extractor's small ups and downs.
MIN_ENCODED_PAGE_F1 = 0.85
ARTICLE_FIELDS = (
    "url", "canonicalUrl", "headline", "articleBody", "datePublished", "authors",
    "inLanguage", "site", "fetchedAt", "extraction",
)  # fmt: skip


@pytest.fixture(scope="module")
def site_crawl(
    mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path_factory: pytest.TempPathFactory
) -> CrawlResult:
    """One polite-but-fast crawl of the whole mirror, exported as JSONL and XML."""
    return crawl_runner.run(
        tmp_path_factory.mktemp("site-crawl"),
        "site",
        {"start_url": mirror_site.url("/index.html"), "allow": ALLOW},
        settings={"ROBOTSTXT_OBEY": "True"},
        outputs=("out.jsonl", "out.xml"),
    )


def _by_url(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(record["url"]): record for record in records}


def _explain(result: CrawlResult) -> str:
    return f"crawl exit {result.returncode}; log tail:\n{result.log[-3000:]}"


# --- the main crawl -----------------------------------------------------------------


def test_every_article_reached_exactly_once(site_crawl: CrawlResult, mirror_site: Mirror) -> None:
    assert site_crawl.returncode == 0, _explain(site_crawl)
    urls = site_crawl.record_urls()
    assert [url for url, n in Counter(urls).items() if n > 1] == []
    assert set(urls) == set(mirror_site.article_by_url()), _explain(site_crawl)
    fetched_twice = [a.path for a in mirror_site.articles if site_crawl.gets(a.path) > 1]
    assert fetched_twice == []


def test_only_article_records_in_the_output(site_crawl: CrawlResult) -> None:
    assert site_crawl.records, _explain(site_crawl)
    for record in site_crawl.records:
        missing = [name for name in ARTICLE_FIELDS if name not in record]
        assert missing == [], f"{record.get('url')}: missing {missing}"
        assert record["articleBody"].strip(), record["url"]
        assert record["extraction"].get("method"), record["url"]


def test_bodies_match_the_gold_text(site_crawl: CrawlResult, mirror_site: Mirror) -> None:
    records = _by_url(site_crawl.records)
    scores = [
        score_page(records[url]["articleBody"] if url in records else "", a.gold, a.lang)
        for url, a in mirror_site.article_by_url().items()
    ]
    summary = summarise(scores)
    assert summary.f1 >= MIN_MEAN_F1, summary.as_dict()


def test_redirect_is_followed_to_its_article(site_crawl: CrawlResult, mirror_site: Mirror) -> None:
    assert site_crawl.gets(mirror_site.redirect_from) >= 1
    assert mirror_site.url(mirror_site.redirect_to) in site_crawl.record_urls()


def test_a_failure_record_for_each_injected_fault(
    site_crawl: CrawlResult, mirror_site: Mirror
) -> None:
    failures = _by_url(site_crawl.failures)
    for failure in site_crawl.failures:
        assert {"url", "stage", "reason", "status"} <= set(failure), failure
    for fault in mirror_site.faults:
        candidates = [mirror_site.url(fault.path)]
        if fault.kind == "redirect-loop":
            candidates.append(mirror_site.url("/loop/a.html"))
        found = [failures[url] for url in candidates if url in failures]
        assert found, f"no failure record for the {fault.kind} at {fault.path}"
        assert found[0]["stage"] and found[0]["reason"], found[0]
        if fault.status in (404, 500):
            assert found[0]["status"] == fault.status, found[0]


def test_no_failure_record_for_an_article(site_crawl: CrawlResult, mirror_site: Mirror) -> None:
    articles = set(mirror_site.article_by_url())
    assert [f for f in site_crawl.failures if f["url"] in articles] == []


def test_reencoded_pages_decode_right(site_crawl: CrawlResult, mirror_site: Mirror) -> None:
    records = _by_url(site_crawl.records)
    encoded = [a for a in mirror_site.articles if a.encoding != "original"]
    assert {a.encoding for a in encoded} == {"gb18030", "shift_jis", "euc_jp", "cp1252"}
    problems = [
        f"{article.path} ({article.encoding}, declared: {article.declared}): {problem}"
        for article in encoded
        if (
            problem := _decoding_problem(
                records.get(mirror_site.url(article.path)), article, mirror_site
            )
        )  # fmt: skip
    ]
    assert problems == []


def _decoding_problem(record: dict[str, Any] | None, article: MirrorArticle, mirror: Mirror) -> str:
    """Why a record shows its page was decoded wrong: characters the page does not hold
    (mojibake or replacement characters), or a body far from the gold text."""
    if record is None:
        return "no record"
    body = str(record["articleBody"])
    served = (mirror.root / article.path.lstrip("/")).read_bytes()
    true_characters = set(html.unescape(served.decode(article.encoding)))
    foreign = set(body) - true_characters - set(string.whitespace) - {"\u00a0"}
    if foreign:
        return f"characters the page does not hold: {''.join(sorted(foreign))[:40]!r}"
    f1 = score_page(body, article.gold, article.lang).f1
    return f"F1 {f1:.3f}" if f1 < MIN_ENCODED_PAGE_F1 else ""


def test_japanese_record_language(site_crawl: CrawlResult, mirror_site: Mirror) -> None:
    records = _by_url(site_crawl.records)
    japanese = [a for a in mirror_site.articles if a.lang == "ja"]
    assert [records[mirror_site.url(a.path)]["inLanguage"] for a in japanese] == ["ja"] * 3


def test_listing_pages_are_recorded(site_crawl: CrawlResult, mirror_site: Mirror) -> None:
    listed = {str(record.get("url")) for record in site_crawl.listings}
    missing = [path for path in mirror_site.listings if mirror_site.url(path) not in listed]
    assert missing == []


def test_xml_export_is_well_formed_despite_control_characters(
    site_crawl: CrawlResult, mirror_site: Mirror
) -> None:
    raw = (site_crawl.workdir / "out.xml").read_bytes()
    tree = etree.fromstring(raw, etree.XMLParser(recover=False, huge_tree=True))
    items = tree.findall("item")
    assert len(items) == len(site_crawl.records) > 0
    control_page = next(a for a in mirror_site.articles if a.source.endswith(CONTROL_PAGE))
    urls = [item.findtext("url") for item in items]
    assert mirror_site.url(control_page.path) in urls


@pytest.fixture(scope="module")
def second_run(
    site_crawl: CrawlResult, mirror_site: Mirror, crawl_runner: CrawlRunner
) -> CrawlResult:
    """The same crawl again with the same state store, as the next scheduled run would."""
    assert site_crawl.records, _explain(site_crawl)
    return crawl_runner.run(
        site_crawl.workdir / "again",
        "site",
        {"start_url": mirror_site.url("/index.html"), "allow": ALLOW},
        settings={"ROBOTSTXT_OBEY": "True"},
        data_dir=site_crawl.workdir / "data",
    )


def test_second_scheduled_run_fetches_nothing_new(
    site_crawl: CrawlResult, second_run: CrawlResult, mirror_site: Mirror
) -> None:
    assert second_run.returncode == 0, _explain(second_run)
    assert second_run.records == []
    harvested = {url.removeprefix(mirror_site.origin) for url in site_crawl.record_urls()}
    linked = harvested - {mirror_site.redirect_to}  # see the next test for that one
    assert sorted(path for path in linked if second_run.gets(path)) == []
    assert second_run.gets("/index.html") == 1  # it did read the listings again


def test_second_run_does_not_follow_a_known_redirect_again(
    second_run: CrawlResult, mirror_site: Mirror
) -> None:
    """A URL that redirected to a harvested article is known too: re-runs of a site full of
    redirecting links (short links, http to https) must not download their targets again."""
    assert second_run.gets(mirror_site.redirect_to) == 0


# --- pause, kill and resume ----------------------------------------------------------


def test_killed_crawl_resumes_without_loss_or_duplicates(
    mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path
) -> None:
    args = {"start_url": mirror_site.url("/index.html"), "allow": ALLOW}
    # One request at a time with a small delay, so the kill lands mid-crawl.
    slow = {"CONCURRENT_REQUESTS_PER_DOMAIN": "1", "DOWNLOAD_DELAY": "0.05", "JOBDIR": "../job"}
    position = crawl_runner.server.log_position()
    first = crawl_runner.start(tmp_path / "first", "site", args, settings=slow,
                               data_dir=tmp_path / "data")  # fmt: skip
    assert kill_when(first, crawl_runner.server, position, article_gets=25), "crawl ended early"
    before = read_jsonl(tmp_path / "first" / "out.jsonl")
    second = crawl_runner.run(tmp_path / "second", "site", args, settings=slow,
                              data_dir=tmp_path / "data")  # fmt: skip
    assert second.returncode == 0, _explain(second)
    urls = [str(r["url"]) for r in before] + second.record_urls()
    twice = [url for url, n in Counter(urls).items() if n > 1]
    assert twice == [], _resume_story(twice, before, tmp_path / "first", second)
    lost = set(mirror_site.article_by_url()) - set(urls)
    assert lost == set(), _resume_story(sorted(lost), before, tmp_path / "first", second)


def _resume_story(
    urls: list[str], before: list[dict[str, Any]], first: Path, second: CrawlResult
) -> str:
    """What each run did with each URL, for a failure of the kill-and-resume test."""
    exported = {str(record["url"]) for record in before}
    failures = read_jsonl(first / "failures.jsonl") + second.failures
    lines = [f"{len(before)} records before the kill, {len(second.records)} after"]
    for url in urls:
        path = "/" + url.split("/", 3)[-1]
        reasons = [f"{f.get('stage')}: {f.get('reason')}" for f in failures if f.get("url") == url]
        lines.append(
            f"{url}: exported by the first run {url in exported}, fetched by the second "
            f"{second.gets(path)}x, failure records {reasons}"
        )
    return "\n".join(lines) + "\n" + _explain(second)


# --- sitemaps and feeds ----------------------------------------------------------------


@pytest.mark.parametrize("sitemap", ["/sitemap.xml", "/sitemap_index.xml", "/robots.txt"])
def test_sitemap_crawl_since_a_date(
    sitemap: str, mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path
) -> None:
    result = crawl_runner.run(
        tmp_path,
        "site",
        {"sitemap": mirror_site.url(sitemap), "since": SINCE_SPLIT, "allow": ALLOW},
    )
    assert result.returncode == 0, _explain(result)
    expected = {mirror_site.url(a.path) for a in mirror_site.articles if a.published >= SINCE_SPLIT}
    assert 0 < len(expected) < len(mirror_site.articles)
    urls = result.record_urls()
    assert sorted(urls) == sorted(expected)
    old = [
        a.path for a in mirror_site.articles if a.published < SINCE_SPLIT and result.gets(a.path)
    ]
    assert old == []  # filtered from the sitemap's dates, before any fetch


@pytest.mark.parametrize("feed, cut", [("/feed.xml", 0), ("/atom.xml", 5)])
def test_feed_crawl(
    feed: str, cut: int, mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path
) -> None:
    items = feed_items(mirror_site)
    args = {"feed": mirror_site.url(feed), "allow": ALLOW}
    if cut:
        args["since"] = items[cut].published
    result = crawl_runner.run(tmp_path, "site", args)
    assert result.returncode == 0, _explain(result)
    assert sorted(result.record_urls()) == sorted(mirror_site.url(a.path) for a in items[cut:])


# --- id ranges -----------------------------------------------------------------------------


def _news_url(mirror: Mirror, news_id: int) -> str:
    return mirror.url(f"/news/{news_id}.html")


def _idrange_args(mirror: Mirror, ids: str, max_misses: int = 5) -> dict[str, str]:
    template = mirror.url("/news/{id}.html")
    return {"url_template": template, "ids": ids, "max_misses": str(max_misses)}


def test_idrange_with_gaps(mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path) -> None:
    result = crawl_runner.run(tmp_path, "idrange", _idrange_args(mirror_site, "1-40"))
    assert result.returncode == 0, _explain(result)
    urls = result.record_urls()
    assert sorted(urls) == sorted(_news_url(mirror_site, i) for i in mirror_site.news_ids)
    assert len(urls) == len(set(urls))
    gaps = {_news_url(mirror_site, i): 404 for i in NEWS_GAPS}
    assert {f["url"]: f["status"] for f in result.failures if f["url"] in gaps} == gaps


def test_idrange_resumes_after_the_last_id_seen(
    mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    first = crawl_runner.run(tmp_path / "a", "idrange", _idrange_args(mirror_site, "1-20"),
                             data_dir=data)  # fmt: skip
    second = crawl_runner.run(tmp_path / "b", "idrange", _idrange_args(mirror_site, "1-40"),
                              data_dir=data)  # fmt: skip
    assert first.returncode == second.returncode == 0, _explain(second)
    assert sorted(first.record_urls()) == sorted(
        _news_url(mirror_site, i) for i in mirror_site.news_ids if i <= 20
    )
    assert sorted(second.record_urls()) == sorted(
        _news_url(mirror_site, i) for i in mirror_site.news_ids if i > 20
    )
    assert [i for i in mirror_site.news_ids if i <= 20 and second.gets(f"/news/{i}.html")] == []


def test_idrange_stops_after_a_run_of_misses(
    mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path
) -> None:
    result = crawl_runner.run(tmp_path, "idrange", _idrange_args(mirror_site, "1-400", 4))
    assert result.returncode == 0, _explain(result)
    assert len(result.records) == len(mirror_site.news_ids)
    requested = [int(p[6:-5]) for m, p, s in result.requests if p.startswith("/news/")]
    # The last id served is 40; a few requests may be in flight when the misses pile up.
    slack = 2 * int(FAST_SETTINGS["CONCURRENT_REQUESTS_PER_DOMAIN"])
    assert max(requested) <= max(NEWS_IDS) + 4 + slack


# --- the bundled profiles ----------------------------------------------------------------


def test_scrapy_list_shows_the_bundled_profiles(crawl_runner: CrawlRunner, tmp_path: Path) -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "scrapy", "list"],
        cwd=tmp_path,
        env=crawl_runner.environment(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split()
    assert {"site", "idrange", "asahi", "mainichi", "yomiuri", "cnn"} <= set(listed)
    assert len(set(listed) - {"site", "idrange"}) >= 12  # four named sites and eight more

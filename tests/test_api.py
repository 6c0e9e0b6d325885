"""The Python API: ``newsextract.extract`` and ``newsextract.Site`` give the records the
commands and the crawl write, say why a page gave none, and never raise on a page."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest

import newsextract
from newsextract import Article, Outcome, Site, extract, extract_outcome
from newsextract.cli import main
from newsextract.demo_server import demo_site
from newsextract.evaluation.dataset import ManifestEntry
from newsextract.exporters import record_dict
from newsextract.templates.sitemode import extract_site_mode

PARAGRAPH = (
    "The harbour authority said on Tuesday that the new quay would open to ferries in the "
    "spring, after two years of work that closed the old pier to traffic and moved the "
    "fish market to a temporary hall on the eastern side of the bay."
)
URL = "https://news.example.org/2026/harbour.html"


def page(lang: str = ' lang="en"', paragraphs: int = 4) -> str:
    body = "".join(f"<p>{PARAGRAPH} Part {n}.</p>" for n in range(paragraphs))
    return (
        f'<!doctype html><html{lang}><head><meta charset="utf-8"><title>New quay</title>'
        '<meta property="article:published_time" content="2026-11-03T08:00:00Z"></head>'
        '<body><nav><a href="/">Home</a> <a href="/news">News</a></nav>'
        f"<article><h1>New quay opens in spring</h1>{body}</article>"
        "<footer>Harbour News</footer></body></html>"
    )


# --- one page -------------------------------------------------------------------------------


def test_an_article_is_the_record_extract_json_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "page.html"
    saved.write_text(page(), encoding="utf-8")
    assert main(["extract", str(saved), "--url", URL, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    article = extract(saved.read_bytes(), URL)
    assert isinstance(article, Article)
    assert article.to_dict() == printed
    assert article.to_dict() == record_dict(article.item())  # as the feeds write it
    assert (article.headline, article.language, article.site) == (
        "New quay opens in spring",
        "en",
        "news.example.org",
    )
    assert article.body.count("\n") == 3 and article.date_published.startswith("2026-11-03")


def test_text_and_bytes_give_the_same_article() -> None:
    assert extract(page(), URL) == extract(page().encode("utf-8"), URL)


def test_the_language_hint_fills_a_page_that_does_not_say_its_own() -> None:
    unsaid = extract(page(lang=""), URL, language="de")
    said = extract(page(), URL, language="de")
    assert unsaid is not None and unsaid.to_dict()["inLanguage"] == "de"
    assert said is not None and said.language == "en"


@pytest.mark.parametrize(
    ("html", "stage", "reason"),
    [
        (b"", "decode", "empty page"),
        ("  \n ", "decode", "empty page"),
        (b"\x89PNG\r\n\x1a\n" + bytes(300), "decode", "not a document: "),
        ("<p>" * 100_001, "too-complex", "page too complex: 100,001 tags"),
        ("<html><body><a href='/'>Home</a></body></html>", "extraction", "no main text found"),
    ],
)
def test_a_page_without_an_article_says_why_and_raises_nothing(
    html: bytes | str, stage: str, reason: str
) -> None:
    outcome = extract_outcome(html, URL)
    assert outcome.article is None and extract(html, URL) is None
    assert outcome.stage == stage and outcome.reason.startswith(reason), outcome


def test_an_article_and_an_outcome_pickle() -> None:
    outcome = extract_outcome(page(), URL)
    assert outcome.article is not None
    assert pickle.loads(pickle.dumps(outcome)) == outcome
    assert pickle.loads(pickle.dumps(outcome.article)).to_dict() == outcome.article.to_dict()


def test_extract_gives_the_same_answers_from_several_threads() -> None:
    pages = [page(paragraphs=n) for n in range(1, 7)] * 2
    alone = [extract(html, URL) for html in pages]
    with ThreadPoolExecutor(max_workers=2) as pool:
        assert list(pool.map(lambda html: extract(html, URL), pages)) == alone


# --- the package ----------------------------------------------------------------------------


def test_every_exported_name_is_there() -> None:
    for name in newsextract.__all__:
        assert getattr(newsextract, name) is not None
    assert set(newsextract.__all__) <= set(dir(newsextract))
    assert isinstance(extract_outcome(""), Outcome)
    with pytest.raises(AttributeError):
        newsextract.nothing_of_the_kind  # noqa: B018


def test_importing_the_package_imports_nothing_heavy() -> None:
    code = (
        "import sys, newsextract; print(sorted(m for m in sys.modules if m.startswith("
        "('scrapy', 'lxml', 'numpy', 'newsextract.'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


# --- a site ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_pages() -> Iterator[list[tuple[str, bytes]]]:
    """The demo site's eight articles, as (URL, HTML)."""
    with demo_site() as root:
        files = sorted((root / "article").rglob("*.html"))
        yield [
            (f"https://demo.example/{p.relative_to(root).as_posix()}", p.read_bytes())
            for p in files
        ]


def test_a_site_gives_the_answers_of_batch_site_mode(
    demo_pages: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    site = Site("demo.example")
    outcomes = site.extract_all(demo_pages)
    with demo_site() as root:
        files = sorted((root / "article").rglob("*.html"))
        entries = [
            ManifestEntry(str(n), url, path, None, "", {"site": "demo.example"})
            for n, ((url, _), path) in enumerate(zip(demo_pages, files, strict=True))
        ]
        batch, _ = extract_site_mode(entries, group_by="site")
    assert [o.article.body if o.article else "" for o in outcomes] == [b.body for b in batch]
    assert {o.article.method for o in outcomes if o.article} == {"template+single"}
    assert site.has_rules and site.rule_version == "demo.example/article/v1"


def test_a_sites_rules_are_saved_to_and_loaded_from_a_folder(
    demo_pages: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    learner = Site("demo.example", tmp_path / "rules")
    assert learner.learn(demo_pages[:4])
    assert (tmp_path / "rules" / "demo.example.rules.xml").exists()
    later = Site.load(tmp_path / "rules", "demo.example")
    url, html = demo_pages[5]
    article = later.extract(html, url)
    assert article is not None and article.method == "rules" and article.site == "demo.example"
    assert article.rule_version == later.rule_version == "demo.example/article/v1"
    other = Site("demo.example")
    assert not other.has_rules and other.extract(html, url) is not None  # single-page
    with pytest.raises(ValueError, match="no folder"):
        other.save()


def test_a_site_learned_in_memory_pickles_with_its_rules(
    demo_pages: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    site = Site("demo.example")
    assert site.learn(demo_pages)
    copy = pickle.loads(pickle.dumps(site))
    url, html = demo_pages[2]
    assert copy.extract(html, url) == site.extract(html, url)
    saved = copy.save(tmp_path / "saved")
    assert saved.name == "demo.example.rules.xml"
    assert Site.load(tmp_path / "saved", "demo.example").rule_version == site.rule_version


def read_with(site: Site, url: str, html: bytes) -> Article | None:
    return site.extract(html, url)


def test_a_process_pool_reads_pages_with_a_site_and_returns_articles(
    demo_pages: list[tuple[str, bytes]],
) -> None:
    site = Site("demo.example")
    assert site.learn(demo_pages[:4])
    url, html = demo_pages[6]
    with ProcessPoolExecutor(max_workers=1) as pool:
        article = pool.submit(read_with, site, url, html).result(timeout=120)
    assert article is not None and article == site.extract(html, url)
    assert article.method == "rules"


def test_a_site_reads_bad_pages_as_failures_in_their_place(
    demo_pages: list[tuple[str, bytes]],
) -> None:
    pages = [*demo_pages[:3], ("https://demo.example/x.pdf", b"%PDF-1.7\x00\x01"), *demo_pages[3:]]
    outcomes = Site("demo.example").extract_all(pages)
    assert [o.stage for o in outcomes] == [""] * 3 + ["decode"] + [""] * 5
    assert [o.article.url for o in outcomes if o.article] == [u for u, _ in demo_pages]


def test_doctests_pass() -> None:
    import doctest

    from newsextract import article

    failures, tried = doctest.testmod(article)
    assert tried >= 2 and failures == 0

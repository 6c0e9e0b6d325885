"""Web archives: a crawl keeps its responses as WARC, and ``batch --warc`` reads them back."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from crawl_runner import CrawlRunner, read_jsonl
from interrupting import interrupted
from lxml import etree
from mirror import Mirror
from scrapy import Request, Spider
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.test import get_crawler

from newsextract.downloadermiddlewares.warc import WarcArchive
from newsextract.spiders.site import SiteSpider
from newsextract.warc.reader import WarcReader
from newsextract.warc.writer import (
    KIND_FIELD,
    LANGUAGE_FIELD,
    SITE_FIELD,
    WarcWriter,
    http_block,
)

ARTICLE = (
    b"<html><head><title>A story</title></head><body><article>"
    + b"".join(
        b"<p>Paragraph %d of a long enough story about the harbour, its boats and "
        b"the people who fish there every morning of the year.</p>" % n
        for n in range(8)
    )
    + b"</article></body></html>"
)


#: Bytes after which the crawl's archive goes on in a new file, so a small crawl rotates.
ROTATE_AT = 100_000


def _archive(folder: Path, pages: int, extra: bool = True) -> Path:
    writer = WarcWriter(folder, "test")
    html = [(b"Content-Type", b"text/html; charset=utf-8"), (b"Content-Encoding", b"gzip")]
    for number in range(pages):
        block = http_block(200, html, ARTICLE)
        writer.write_response(f"http://example.org/story/{number}.html", block)
    if extra:
        text = [(b"Content-Type", b"text/plain")]
        writer.write_response("http://example.org/robots.txt", http_block(200, text, b"ok"))
    writer.close()
    return writer.files[0]


_WORDS = ("harbour", "boats", "nets", "tide", "market", "gulls", "rope", "quay")


def _story(number: int) -> bytes:
    """An article of a site's one template: header, related links and footer around it."""
    lines = "".join(
        f"<p>Story {number} line {k}: the {_WORDS[(number * 3 + k) % len(_WORDS)]} and the "
        f"{_WORDS[(number * 5 + k * 7) % len(_WORDS)]} were seen by {number * k} people near the "
        f"{_WORDS[(k + number) % len(_WORDS)]} today, said the council.</p>"
        for k in range(6)
    )
    return (
        f"<html><head><title>Story {number}</title></head><body><header><a href='/'>Harbour "
        "News</a> <a href='/sport'>Sport</a> <a href='/weather'>Weather</a></header>"
        f"<div class='main'><h1>Story {number}</h1>{lines}</div><div class='related'><h2>More "
        "news</h2><ul><li><a href='/story/a.html'>The ferry timetable changes next month for "
        "the summer season</a></li><li><a href='/story/b.html'>New lighthouse keeper named "
        "after a long search</a></li></ul></div><footer>Copyright Harbour News. All rights "
        "reserved. Contact the newsroom with tips and corrections.</footer></body></html>"
    ).encode()


def _crawl_archive(folder: Path, info: list[tuple[str, str]], stories: int = 6) -> Path:
    """An archive as a crawl of example.org writes it: each record says what it was."""
    writer = WarcWriter(folder, "site", software="newsextract", info=info)
    html = [(b"Content-Type", b"text/html; charset=utf-8")]

    def write(url: str, kind: str, body: bytes, status: int = 200) -> None:
        fields = [(KIND_FIELD, kind), (SITE_FIELD, "example.org"), (LANGUAGE_FIELD, "en")]
        writer.write_response(url, http_block(status, html, body), fields=fields)

    write("http://example.org/", "listing", b"<html><body><a href='/story/0.html'>0</a></body>")
    write("http://example.org/story/900.html", "article", b"<html><p>Server error</p>", 500)
    write("http://example.org/story/901.html", "article", b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    for number in range(stories):
        write(f"http://www.example.org/story/{number}.html", "article", _story(number))
    writer.close()
    return writer.files[0]


def _batch(
    archive: Path | list[Path], out: Path, *options: str
) -> subprocess.CompletedProcess[str]:
    archives = archive if isinstance(archive, list) else [archive]
    command = [sys.executable, "-m", "newsextract.cli", "batch", "--warc", *map(str, archives)]
    command += ["--out", str(out), "--quiet", *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def _failures(out: Path) -> list[dict[str, Any]]:
    return read_jsonl(out.with_name(out.name.split(".")[0] + ".failures.jsonl"))


def test_writer_keeps_headers_consistent_with_the_decoded_body(tmp_path: Path) -> None:
    responses = list(WarcReader(_archive(tmp_path, 2)))
    assert [r.url for r in responses][:2] == [
        "http://example.org/story/0.html",
        "http://example.org/story/1.html",
    ]
    assert responses[0].body == ARTICLE  # Content-Encoding kept as X-Crawler-Content-Encoding
    assert responses[0].is_html and not responses[2].is_html
    assert all(r.record_id.startswith("<urn:uuid:") for r in responses)


def test_writer_rotates_files_by_size(tmp_path: Path) -> None:
    writer = WarcWriter(tmp_path, "spider", max_size=1)
    for number in range(3):
        writer.write_response(f"http://example.org/{number}", http_block(200, [], b"x"))
    writer.close()
    assert all(path.name.endswith(f"-{n:05d}.warc.gz") for n, path in enumerate(writer.files, 1))
    assert len(writer.files) == 3


@pytest.mark.parametrize("plain", [False, True], ids=["gzip", "plain"])
def test_batch_reads_gzip_and_plain_archives(tmp_path: Path, plain: bool) -> None:
    archive = _archive(tmp_path / "warc", 3)
    if plain:
        plain_path = tmp_path / "plain.warc"
        plain_path.write_bytes(gzip.decompress(archive.read_bytes()))
        archive = plain_path
    out = tmp_path / "out" / "articles.jsonl"
    result = _batch(archive, out)
    assert result.returncode == 0, result.stderr
    records = read_jsonl(out)
    assert len(records) == 3
    assert all("harbour" in record["articleBody"] for record in records)
    assert all(record["warcRecordId"].startswith("<urn:uuid:") for record in records)
    assert records[0]["url"] == "http://example.org/story/0.html"
    assert records[0]["site"] == "example.org"
    failures = _failures(out)
    assert [(f["url"], f["stage"]) for f in failures] == [
        ("http://example.org/robots.txt", "content-type")
    ]
    assert failures[0]["warcRecordId"].startswith("<urn:uuid:")
    assert "not HTML" in failures[0]["reason"]


@pytest.mark.parametrize("plain", [False, True], ids=["gzip", "plain"])
def test_a_truncated_archive_keeps_the_records_before_the_cut(tmp_path: Path, plain: bool) -> None:
    data = _archive(tmp_path / "warc", 4, extra=False).read_bytes()
    data = gzip.decompress(data) if plain else data
    archive = tmp_path / ("cut.warc" if plain else "cut.warc.gz")
    archive.write_bytes(data[: len(data) - 200])  # into the last record
    out = tmp_path / "out.jsonl"
    result = _batch(archive, out)
    assert result.returncode == 0, result.stderr
    assert len(read_jsonl(out)) == 3
    damage = [line for line in result.stderr.splitlines() if "damaged" in line]
    assert len(damage) == 1 and "cut short at offset" in damage[0], result.stderr
    assert [f["stage"] for f in _failures(out)] == ["archive"]


def test_not_an_archive_is_reported_with_no_articles(tmp_path: Path) -> None:
    archive = tmp_path / "junk.warc"
    archive.write_bytes(b"this is not a web archive\n" * 10)
    result = _batch(archive, tmp_path / "out.jsonl")
    assert result.returncode == 1
    assert "damaged" in result.stderr and "offset 0" in result.stderr


@pytest.mark.parametrize("templates", [True, False], ids=["templates", "templates-off"])
def test_site_mode_replays_the_crawl_on_its_article_pages(tmp_path: Path, templates: bool) -> None:
    """Only the records the crawl's spider read as articles are pages, with the crawl's site
    and language; the template stage runs with the settings the archive recorded."""
    info = [] if templates else [("NEWSEXTRACT_TEMPLATES_ENABLED", "False")]
    out = tmp_path / "out.jsonl"
    result = _batch(_crawl_archive(tmp_path / "warc", info), out, "--mode", "site")
    assert result.returncode == 0, result.stderr
    assert "1 listings, sitemaps or feeds left out" in result.stderr
    records = read_jsonl(out)
    assert sorted(r["url"] for r in records) == [
        f"http://www.example.org/story/{n}.html" for n in range(6)
    ]
    assert {(r["site"], r["inLanguage"]) for r in records} == {("example.org", "en")}
    for record in records:
        number = record["url"].rsplit("/", 1)[-1].removesuffix(".html")
        assert f"Story {number} line 5" in record["articleBody"]
    methods = {record["extraction"]["method"] for record in records}
    assert methods == ({"rules"} if templates else {"single:classifier"})
    assert [(f["url"].rsplit("/", 1)[-1], f["stage"]) for f in _failures(out)] == [
        ("900.html", "http"),
        ("901.html", "content-type"),
    ]


def test_two_workers_write_the_records_of_one(tmp_path: Path) -> None:
    """Single mode reads the archive as it goes, a run of pages a worker; the records and
    failures come out in archive order, byte for byte those of one worker."""
    archive = _crawl_archive(tmp_path / "warc", [], stories=40)
    written = {}
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}.jsonl"
        result = _batch(archive, out, "--workers", workers)
        assert result.returncode == 0, result.stderr
        written[workers] = (out.read_bytes(), _failures(out))
    assert written["2"] == written["1"]
    urls = [str(record["url"]) for record in read_jsonl(tmp_path / "out1.jsonl")]
    assert urls == [f"http://www.example.org/story/{n}.html" for n in range(40)]


def test_ctrl_c_keeps_the_records_written_and_a_well_formed_file(tmp_path: Path) -> None:
    """Ctrl-C in the middle of an archive: the record being written is finished, the XML
    file is closed, and the run says how many it wrote (it used to leave the file cut
    off in the middle of a record)."""
    archive = _archive(tmp_path / "warc", 3000)
    out = tmp_path / "out.xml"
    command = [sys.executable, "-m", "newsextract.cli", "batch", "--warc", str(archive)]
    command += ["--out", str(out), "--format", "xml", "--quiet", "--workers", "2"]
    code, err = interrupted(command, lambda: _size(out) >= 100_000)
    assert code == 130, err
    (line,) = [line for line in err.splitlines() if line.strip()]
    match = re.fullmatch(
        r"newsextract batch: interrupted after (\d+) articles, (\d+) failures -> .*", line
    )
    assert match, line
    written = int(match[1])
    assert 0 < written < 3000
    assert len(etree.parse(str(out)).getroot().findall("item")) == written
    assert len(_failures(out)) == int(match[2])


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


@pytest.mark.e2e
def test_a_crawl_archive_gives_the_crawl_s_bodies_again(
    mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path
) -> None:
    """Read offline in site mode, the crawl's archive gives every article record of the crawl
    again, the same body from the same stage: the pages the crawl read alone and those its
    template stage read with rules learned as pages arrived. The replay hands the template
    stage the archive's article pages in archive order, which is the order the crawl's
    pipeline got them, with the crawl's settings (newsextract.warc.replay); so the same rules
    are learned at the same pages, whatever the crawl's order was this time."""
    crawl = crawl_runner.run(
        tmp_path / "crawl",
        "site",
        {"start_url": mirror_site.url("/index.html"), "allow": r"/article/\d+\.html"},
        settings={
            "NEWSEXTRACT_WARC_DIR": "warc",
            "NEWSEXTRACT_WARC_MAX_SIZE": str(ROTATE_AT),
            "NEWSEXTRACT_STATE": "off",
        },
    )
    assert crawl.returncode == 0, crawl.log[-3000:]
    archives = sorted((tmp_path / "crawl" / "warc").glob("site-*.warc.gz"))
    assert len(archives) >= 3  # rotated: the files are read as one, in their order
    out = tmp_path / "again.jsonl"
    result = _batch(archives, out, "--mode", "site")
    assert result.returncode == 0, result.stderr
    assert "damaged" not in result.stderr
    again = {str(r["url"]): r for r in read_jsonl(out)}
    methods = [str(r["extraction"]["method"]) for r in crawl.records]
    assert methods.count("rules") >= 10, methods  # 16-43 of 82 in 13 crawls (2026-12-01)
    assert sum(m.startswith("single") for m in methods) >= 10, methods
    assert set(again) == set(crawl.record_urls())  # listing pages are not read as articles
    # The whole record is the crawl's (body, headline, rule version, confidence...) but for
    # fetchedAt: the archive's WARC-Date, not the moment the spider read the page.
    different = [
        (url, record["extraction"], again[url]["extraction"])
        for url, record in ((str(r["url"]), r) for r in crawl.records)
        if _without(again[url], "fetchedAt", "warcRecordId") != _without(record, "fetchedAt")
    ]
    assert different == [], json.dumps(different[:5])


def _without(record: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: value for name, value in record.items() if name not in names}


def test_the_middleware_is_off_unless_a_folder_is_set(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured):
        WarcArchive.from_crawler(get_crawler(Spider, {"NEWSEXTRACT_WARC_DIR": ""}))
    crawler = get_crawler(Spider, {"NEWSEXTRACT_WARC_DIR": str(tmp_path)})
    archive = WarcArchive.from_crawler(crawler)
    archive.spider_opened(Spider("news"))
    headers = {"Content-Type": "text/html", "Content-Encoding": "gzip", "Content-Length": "9"}
    response = HtmlResponse("http://example.org/a.html", body=ARTICLE, headers=headers)
    assert archive.process_response(Request(response.url), response) is response
    archive.spider_closed(Spider("news"))
    [path] = tmp_path.glob("news-*-00001.warc.gz")
    [record] = WarcReader(path)
    assert (record.url, record.body, record.status) == (response.url, ARTICLE, 200)
    assert (record.kind, record.site) == ("", "")  # not one of the project's spiders


def test_the_middleware_says_what_the_crawl_made_of_each_response(tmp_path: Path) -> None:
    settings = {"NEWSEXTRACT_WARC_DIR": str(tmp_path), "NEWSEXTRACT_STATE": "off"}
    crawler = get_crawler(SiteSpider, {**settings, "NEWSEXTRACT_TEMPLATE_MIN_PAGES": "4"})
    spider = SiteSpider.from_crawler(
        crawler, start_url="http://example.org/", allow=r"/story/", language="en"
    )
    archive = WarcArchive.from_crawler(crawler)
    archive.spider_opened(spider)
    requests = [
        Request("http://example.org/story/1.html", callback=spider.parse_article),
        Request("http://example.org/news/", callback=spider.parse_listing),
        Request("http://example.org/story/2.html", callback=spider.parse),  # a start page
        Request("http://example.org/", callback=spider.parse),
        Request("http://example.org/sitemap.xml", callback=spider.parse_sitemap),
        Request("http://example.org/robots.txt", callback=NO_CALLBACK),
    ]
    for request in requests:
        archive.process_response(request, HtmlResponse(request.url, body=ARTICLE))
    archive.spider_closed(spider)
    reader = WarcReader(next(tmp_path.glob("site-*.warc.gz")))
    records = list(reader)
    kinds = ["article", "listing", "article", "listing", "sitemap", "other"]
    assert [record.kind for record in records] == kinds
    assert {(record.site, record.language) for record in records} == {("example.org", "en")}
    assert reader.info["software"] == "newsextract"
    assert reader.info["NEWSEXTRACT_TEMPLATE_MIN_PAGES"] == "4"

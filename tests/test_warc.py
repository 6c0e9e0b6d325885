"""Web archives: a crawl keeps its responses as WARC, and ``batch --warc`` reads them back."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from crawl_runner import CrawlRunner, read_jsonl
from mirror import Mirror
from scrapy import Request, Spider
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from newsextract.downloadermiddlewares.warc import WarcArchive
from newsextract.warc.reader import WarcReader
from newsextract.warc.writer import WarcWriter, http_block

ARTICLE = (
    b"<html><head><title>A story</title></head><body><article>"
    + b"".join(
        b"<p>Paragraph %d of a long enough story about the harbour, its boats and "
        b"the people who fish there every morning of the year.</p>" % n
        for n in range(8)
    )
    + b"</article></body></html>"
)


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


def _batch(archive: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "newsextract.cli", "batch", "--warc", str(archive)]
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


@pytest.mark.e2e
def test_a_crawl_archive_gives_the_crawl_s_bodies_again(
    mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path
) -> None:
    """Every page the crawl recorded is in the archive; read offline, each page the crawl read
    alone (single-page methods) gives the very same body. The pages its template stage read
    are left out of the comparison: the crawl learns rules per URL pattern as pages arrive,
    so which page got which rule version depends on the crawl's order."""
    crawl = crawl_runner.run(
        tmp_path / "crawl",
        "site",
        {"start_url": mirror_site.url("/index.html"), "allow": r"/article/\d+\.html"},
        settings={"NEWSEXTRACT_WARC_DIR": "warc", "NEWSEXTRACT_STATE": "off"},
    )
    assert crawl.returncode == 0, crawl.log[-3000:]
    archives = sorted((tmp_path / "crawl" / "warc").glob("site-*.warc.gz"))
    assert archives, crawl.log[-3000:]
    bodies: dict[str, str] = {}
    for number, archive in enumerate(archives):
        out = tmp_path / f"again-{number}.jsonl"
        result = _batch(archive, out)
        assert result.returncode == 0, result.stderr
        assert "damaged" not in result.stderr
        bodies.update({str(r["url"]): str(r["articleBody"]) for r in read_jsonl(out)})
    single = [r for r in crawl.records if str(r["extraction"]["method"]).startswith("single")]
    assert len(single) >= 10  # 37-65 of 82 in five crawls (2026-12-01): the order varies
    assert {str(r["url"]) for r in crawl.records} <= set(bodies)
    different = [str(r["url"]) for r in single if bodies[str(r["url"])] != r["articleBody"]]
    assert different == [], json.dumps(different[:5])


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

"""HTML or not (by header and by bytes), links of a page, sites and URL filters."""

from __future__ import annotations

import pytest

from newsextract.spiders.content import extract_links, is_html, looks_binary
from newsextract.spiders.urls import looks_like_page, registrable_domain, site_of

PAGE = b"<!DOCTYPE html><html><head><title>t</title></head><body><p>x</p></body></html>"


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("text/html; charset=utf-8", PAGE, True),
        ("application/xhtml+xml", PAGE, True),
        ("text/plain", PAGE, True),  # mislabelled article: sniffed
        ("", PAGE, True),  # no header at all
        ("application/octet-stream", b"\n  <html lang='ja'><body>x</body></html>", True),
        ("text/plain", b"just some words, no markup at all", False),
        ("text/html", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3 binary", False),  # a PDF served as HTML
        ("text/html", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", False),
        ("", b"PK\x03\x04\x14\x00\x00\x00", False),  # a zip, no header
        ("image/jpeg", PAGE, False),  # the declared type says no
        ("application/pdf", PAGE, False),
        ("application/json", b'{"html": "<html>"}', False),
        ("text/html", b"   ", False),  # empty
    ],
)
def test_is_html(content_type: str, body: bytes, expected: bool) -> None:
    assert is_html(content_type, body) is expected


def test_utf16_with_a_bom_is_not_binary() -> None:
    body = "\ufeff<html><body>記事</body></html>".encode("utf-16")
    assert not looks_binary(body)
    assert is_html("text/html", body)


def test_shift_jis_html_is_html() -> None:
    body = "<html><head><meta charset='shift_jis'></head><body>朝日新聞の記事</body></html>"
    assert is_html("text/html", body.encode("cp932"))


def test_extract_links_resolves_dedupes_and_drops_what_cannot_be_fetched() -> None:
    body = b"""<html><head><base href="https://www.a.jp/news/"></head><body>
      <a href="1.html">one</a> <a href="1.html#comments">again</a>
      <a href="/top/">top</a> <a href="mailto:x@a.jp">mail</a> <a href="javascript:void(0)">js</a>
      <a href="https://other.com/x">other</a> <a>no href</a>
      <map><area href="/map.html"></map></body></html>"""
    links = extract_links(body, "text/html", "https://www.a.jp/index.html")
    assert links == [
        "https://www.a.jp/news/1.html",
        "https://www.a.jp/top/",
        "https://other.com/x",
        "https://www.a.jp/map.html",
    ]


def test_extract_links_decodes_the_page_itself() -> None:
    body = "<html><body><a href='/記事/1.html'>記事</a></body></html>".encode("euc_jp")
    links = extract_links(body, "text/html; charset=EUC-JP", "http://a.jp/")
    assert links == ["http://a.jp/記事/1.html"]


def test_extract_links_of_an_empty_page() -> None:
    assert extract_links(b"", "text/html", "http://a.jp/") == []


@pytest.mark.parametrize(
    ("host", "site"),
    [
        ("www.asahi.com", "asahi.com"),
        ("digital.asahi.com", "asahi.com"),
        ("mainichi.jp", "mainichi.jp"),
        ("www.yomiuri.co.jp", "yomiuri.co.jp"),
        ("news.bbc.co.uk", "bbc.co.uk"),
        ("world.people.com.cn", "people.com.cn"),
        ("edition.cnn.com", "cnn.com"),
        ("127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost"),
        ("WWW.Example.ORG.", "example.org"),
    ],
)
def test_registrable_domain(host: str, site: str) -> None:
    assert registrable_domain(host) == site


def test_site_of_ignores_the_port() -> None:
    assert site_of("http://127.0.0.1:8080/index.html") == "127.0.0.1"


@pytest.mark.parametrize(
    ("url", "page"),
    [
        ("https://a.jp/news/123.html", True),
        ("https://a.jp/news/", True),
        ("https://a.jp/articles/2026/11/29/story", True),
        ("https://a.jp/img/photo.JPG", False),
        ("https://a.jp/doc/report.pdf", False),
        ("https://a.jp/rss/index.rss", False),
        ("https://a.jp/v.mp4?x=1", False),
    ],
)
def test_looks_like_page(url: str, page: bool) -> None:
    assert looks_like_page(url) is page

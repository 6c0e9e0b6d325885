"""Sitemaps (index, urlset, Google News, robots.txt) and feeds (RSS 2.0, RSS 1.0, Atom)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from newsextract.spiders.dates import is_recent, parse_date, parse_since
from newsextract.spiders.feeds import parse_feed
from newsextract.spiders.sitemaps import parse_sitemap, sitemaps_from_robots

INDEX = b"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://www.a.jp/sitemap-2026-11.xml.gz</loc><lastmod>2026-11-28</lastmod></sitemap>
  <sitemap><loc>https://www.a.jp/sitemap-2019-01.xml</loc><lastmod>2019-01-31T10:00:00Z</lastmod></sitemap>
  <sitemap><loc>  </loc></sitemap>
</sitemapindex>"""

NEWS = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url><loc>https://www.a.jp/articles/1.html</loc><lastmod>2026-11-29T08:00:00+09:00</lastmod>
    <news:news><news:publication><news:name>A</news:name><news:language>ja</news:language>
      </news:publication><news:publication_date>2026-10-01T09:00:00+09:00</news:publication_date>
      <news:title>One</news:title></news:news></url>
  <url><loc>/articles/2.html</loc></url>
</urlset>"""


def test_a_sitemap_index_lists_its_sitemaps_with_dates() -> None:
    sitemap = parse_sitemap(INDEX)
    assert sitemap.kind == "index"
    assert [entry.url for entry in sitemap.entries] == [
        "https://www.a.jp/sitemap-2026-11.xml.gz",
        "https://www.a.jp/sitemap-2019-01.xml",
    ]
    assert sitemap.entries[1].modified == datetime(2019, 1, 31, 10, tzinfo=UTC)


def test_a_news_sitemap_dates_entries_by_publication() -> None:
    sitemap = parse_sitemap(NEWS, "https://www.a.jp/sitemap.xml")
    assert sitemap.kind == "urlset"
    first, second = sitemap.entries
    assert first.modified == datetime(2026, 10, 1, 0, tzinfo=UTC)  # not the lastmod
    assert second.url == "https://www.a.jp/articles/2.html"  # relative loc resolved
    assert second.modified is None


def test_a_damaged_or_foreign_document_is_unknown() -> None:
    assert parse_sitemap(b"<html><body>404</body></html>").kind == "unknown"
    assert parse_sitemap(b"").kind == "unknown"
    assert parse_sitemap(b"\x00\x01garbage").entries == ()


def test_entities_are_not_expanded() -> None:
    body = b"""<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x SYSTEM "file:///etc/passwd">]>
    <urlset><url><loc>https://a.jp/&x;</loc></url></urlset>"""
    sitemap = parse_sitemap(body)
    assert all("root:" not in entry.url for entry in sitemap.entries)


def test_sitemaps_from_robots() -> None:
    robots = "User-agent: *\nDisallow: /private/\nSitemap: https://a.jp/news.xml\nsitemap:/s2.xml\n"
    assert sitemaps_from_robots(robots, "https://a.jp/robots.txt") == [
        "https://a.jp/news.xml",
        "https://a.jp/s2.xml",
    ]


RSS2 = b"""<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>A</title>
<item><title>One</title><link>https://a.jp/news/1.html</link>
  <pubDate>Sun, 29 Nov 2026 09:00:00 +0900</pubDate></item>
<item><title>Two</title><guid isPermaLink="true">https://a.jp/news/2.html</guid></item>
<item><title>Three</title><guid isPermaLink="false">tag:a.jp,2026:3</guid></item>
</channel></rss>"""

RSS1 = """<?xml version="1.0" encoding="Shift_JIS"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
         xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://a.jp/"><title>速報</title></channel>
<item rdf:about="https://a.jp/news/10.html"><title>記事</title>
  <link>https://a.jp/news/10.html</link><dc:date>2026-11-28T23:00:00+09:00</dc:date></item>
<item rdf:about="https://a.jp/news/11.html"><title>二つ目</title></item>
</rdf:RDF>""".encode("cp932")

ATOM = b"""<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title>A</title><link href="https://a.jp/"/>
<entry><title>One</title><link rel="alternate" href="https://a.jp/a/1"/>
  <link rel="edit" href="https://a.jp/edit/1"/><published>2026-11-01T00:00:00Z</published>
  <updated>2026-11-20T00:00:00Z</updated></entry>
<entry><title>Two</title><link href="/a/2"/></entry>
</feed>"""


def test_rss2_items_with_links_guids_and_dates() -> None:
    entries = parse_feed(RSS2)
    assert [entry.url for entry in entries] == [
        "https://a.jp/news/1.html",
        "https://a.jp/news/2.html",
    ]
    assert entries[0].title == "One"
    assert entries[0].modified == datetime(2026, 11, 29, 0, tzinfo=UTC)


def test_rss1_rdf_items_in_shift_jis() -> None:
    entries = parse_feed(RSS1)
    assert [entry.url for entry in entries] == [
        "https://a.jp/news/10.html",
        "https://a.jp/news/11.html",
    ]
    assert entries[0].title == "記事"
    assert entries[0].modified == datetime(2026, 11, 28, 14, tzinfo=UTC)


def test_atom_entries_take_the_alternate_link_and_the_latest_date() -> None:
    entries = parse_feed(ATOM, "https://a.jp/feed.atom")
    assert [entry.url for entry in entries] == ["https://a.jp/a/1", "https://a.jp/a/2"]
    assert entries[0].modified == datetime(2026, 11, 20, tzinfo=UTC)


def test_not_a_feed() -> None:
    assert parse_feed(b"<html><body>x</body></html>") == ()
    assert parse_feed(b"") == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11-01T09:00:00+09:00", datetime(2026, 11, 1, 0, tzinfo=UTC)),
        ("2026-11-01T00:00:00Z", datetime(2026, 11, 1, tzinfo=UTC)),
        ("Sun, 01 Nov 2026 00:00:00 GMT", datetime(2026, 11, 1, tzinfo=UTC)),
        ("not a date", None),
        ("", None),
    ],
)
def test_parse_date(text: str, expected: datetime | None) -> None:
    assert parse_date(text) == expected


def test_the_since_filter_keeps_undated_entries_and_the_boundary() -> None:
    since = parse_since("2026-11-01")
    assert is_recent(datetime(2026, 11, 1, tzinfo=UTC), since)
    assert not is_recent(datetime(2026, 10, 31, 23, 59, tzinfo=UTC), since)
    assert is_recent(None, since)
    assert is_recent(datetime(2001, 1, 1, tzinfo=UTC), None)


def test_since_must_be_a_date() -> None:
    with pytest.raises(ValueError, match="since"):
        parse_since("last week")

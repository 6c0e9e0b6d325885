"""Hostile documents: entity bombs, external entities, binary junk and odd encodings must
neither expand nor crash the sitemap, feed and link readers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from newsextract.spiders.content import extract_links, is_html
from newsextract.spiders.feeds import parse_feed
from newsextract.spiders.sitemaps import parse_sitemap

LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>"""


def test_an_entity_bomb_in_a_sitemap_is_not_expanded() -> None:
    body = LAUGHS + b"<urlset><url><loc>https://a.jp/&lol9;</loc></url></urlset>"
    for entry in parse_sitemap(body).entries:
        assert len(entry.url) < 1000


def test_an_entity_bomb_in_a_feed_is_not_expanded() -> None:
    body = LAUGHS + b"<rss><channel><item><title>&lol9;</title><link>https://a.jp/1</link>"
    body += b"</item></channel></rss>"
    for entry in parse_feed(body):
        assert len(entry.title) < 1000


def test_an_external_entity_in_a_feed_is_not_read() -> None:
    body = b"""<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/hostname">]>
    <rss><channel><item><title>&x;</title><link>https://a.jp/1</link></item></channel></rss>"""
    (entry,) = parse_feed(body)
    assert entry.title == ""


def test_a_sitemap_in_utf16_is_read() -> None:
    text = '<?xml version="1.0" encoding="UTF-16"?><urlset><url><loc>https://a.jp/記事/1</loc>'
    body = (text + "</url></urlset>").encode("utf-16")
    assert [entry.url for entry in parse_sitemap(body).entries] == ["https://a.jp/記事/1"]


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=3000))
def test_arbitrary_bytes_never_crash_the_readers(body: bytes) -> None:
    parse_sitemap(body)
    parse_feed(body)
    extract_links(body, "text/html", "http://a.jp/")
    is_html("", body)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_links_stay_fetchable(href: str) -> None:
    body = f"<html><body><a href='{href}'>x</a></body></html>".encode("utf-8", "replace")
    for link in extract_links(body, "text/html; charset=utf-8", "http://a.jp/x/"):
        assert link.startswith(("http://", "https://")) and "#" not in link

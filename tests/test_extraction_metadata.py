"""Metadata: headline, date, authors, language and canonical URL from every kind of source."""

from __future__ import annotations

import json

import pytest

from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.extraction.record.metadata import (
    MAX_AUTHOR_CHARS_DEFAULT,
    clean_text,
    guess_language,
    normalise_language,
    parse_date,
    read_metadata,
    split_authors,
)


def _page(head: str = "", body: str = "", html_attrs: str = "", url: str | None = None) -> Page:
    html = f"<html {html_attrs}><head>{head}</head><body>{body}</body></html>"
    return parse_page(html, url=url)


def _json_ld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def test_json_ld_article_wins_over_meta_tags() -> None:
    head = _json_ld(
        {
            "@context": "https://schema.org",
            "@type": "NewsArticle",
            "headline": "Ferry resumes after storm",
            "datePublished": "2026-11-20T08:30:00Z",
            "author": [{"@type": "Person", "name": "Mika Sato"}, {"name": "Ken Ito"}],
            "inLanguage": "en-GB",
        }
    )
    head += '<meta property="og:title" content="Ferry | The Daily">'
    meta = read_metadata(_page(head))
    assert meta.headline == "Ferry resumes after storm"
    assert meta.date_published == "2026-11-20T08:30:00+00:00"
    assert meta.date_published_raw == "2026-11-20T08:30:00Z"
    assert meta.authors == ("Mika Sato", "Ken Ito")


def test_json_ld_in_a_graph_and_webpage_ranked_last() -> None:
    head = _json_ld(
        {
            "@graph": [
                {"@type": "WebPage", "headline": "Site front"},
                {"@type": ["Article"], "headline": "The real story", "author": "Jo Park"},
            ]
        }
    )
    meta = read_metadata(_page(head))
    assert meta.headline == "The real story"
    assert meta.authors == ("Jo Park",)


def test_meta_tags_when_there_is_no_json_ld() -> None:
    head = (
        '<meta property="og:title" content="Night buses extended">'
        '<meta property="article:published_time" content="2026-11-02">'
        '<meta name="author" content="By Ann Lee and Bo Chan">'
        '<meta property="og:url" content="https://example.org/a/1">'
    )
    meta = read_metadata(_page(head))
    assert meta.headline == "Night buses extended"
    assert meta.date_published == "2026-11-02"
    assert meta.authors == ("Ann Lee", "Bo Chan")
    assert meta.canonical_url == "https://example.org/a/1"


def test_visible_page_is_the_last_resort() -> None:
    body = (
        '<h1>First frost expected</h1><time datetime="2026-11-03T06:00:00+09:00">3 Nov</time>'
        '<span itemprop="author">Yuki Mori</span><p>Text.</p>'
    )
    meta = read_metadata(_page("<title>Frost - Weather</title>", body))
    assert meta.headline == "First frost expected"
    assert meta.date_published == "2026-11-03T06:00:00+09:00"
    assert meta.authors == ("Yuki Mori",)


def test_title_is_used_when_nothing_else_names_the_page() -> None:
    assert read_metadata(_page("<title> Plain  title </title>")).headline == "Plain title"


def test_date_from_the_url_when_the_page_has_none() -> None:
    meta = read_metadata(_page(url="https://example.org/2012/07/24/story.html"))
    assert meta.date_published == "2012-07-24"
    assert meta.date_published_raw == "2012/07/24"


@pytest.mark.parametrize(
    ("raw", "iso"),
    [
        ("2012-07-24T00:11:00-04:00", "2012-07-24T00:11:00-04:00"),
        ("2012-07-24T00:11:00-0400", "2012-07-24T00:11:00-04:00"),
        ("2012-07-24", "2012-07-24"),
        ("Tue, 24 Jul 2012 04:11:00 GMT", "2012-07-24T04:11:00+00:00"),
        ("July 24, 2012 12:11 AM", "2012-07-24"),
        ("24 July 2012", "2012-07-24"),
        ("Posted 24.07.2012", "2012-07-24"),
        ("2012年7月24日", "2012-07-24"),
        ("2012/7/24", "2012-07-24"),
        ("2012-13-45", ""),
        ("1850-01-01", ""),
        ("yesterday", ""),
        ("", ""),
    ],
)
def test_parse_date(raw: str, iso: str) -> None:
    assert parse_date(raw) == iso


def test_authors_are_sanitised() -> None:
    assert split_authors("https://example.org/staff/ann") == ()
    assert split_authors("@handle") == ()
    assert split_authors("by   Ann <b>Lee</b>") == ("Ann Lee",)
    assert split_authors("Ann Lee, ann lee; Bo") == ("Ann Lee", "Bo")
    long_name = "x" * (MAX_AUTHOR_CHARS_DEFAULT + 1)
    assert split_authors(long_name) == ()
    assert split_authors("x" * MAX_AUTHOR_CHARS_DEFAULT) == ("x" * MAX_AUTHOR_CHARS_DEFAULT,)


def test_clean_text_folds_markup_entities_and_control_characters() -> None:
    assert clean_text("A\x07 &lt;b&gt; <i>c</i>\n d") == "A c d"
    assert clean_text(None) == ""
    assert clean_text("y" * 401) == ""


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("en_us", "en-US"),
        ("ja", "ja"),
        ("zh-hans-cn", "zh-Hans-CN"),
        ("EN", "en"),
        ("not a language", ""),
        ("", ""),
    ],
)
def test_normalise_language(value: str, code: str) -> None:
    assert normalise_language(value) == code


def test_language_from_html_then_body_script() -> None:
    assert read_metadata(_page(html_attrs='lang="en-gb"')).language == "en-GB"
    assert read_metadata(_page(), body="今日は晴れです。").language == "ja"
    assert read_metadata(_page(), body="Plain English text").language == ""
    assert guess_language("한국어 기사") == "ko"
    chinese = "这是一个关于天气的很长的新闻报道内容，今天北京的天气非常好，阳光明媚。"
    assert guess_language(chinese) == "zh"


def test_canonical_url_is_absolute_and_only_http() -> None:
    page = _page('<link rel="canonical" href="/news/1">', url="https://example.org/x?utm=1")
    assert read_metadata(page).canonical_url == "https://example.org/news/1"
    page = _page('<link rel="canonical" href="javascript:alert(1)">')
    assert read_metadata(page).canonical_url == ""


def test_a_canonical_url_with_a_bracketed_host_that_is_no_address_is_none() -> None:
    # urlsplit raises ValueError on it: the fuzz found one in a mutated page.
    page = _page('<link rel="canonical" href="http://[CDATA[ x ]/a">', url="https://example.org/x")
    assert read_metadata(page).canonical_url == ""


def test_hostile_json_ld_values_never_crash() -> None:
    head = _json_ld(
        {
            "@type": "NewsArticle",
            "headline": ["a", "list"],
            "author": {"name": 42},
            "datePublished": {"oops": 1},
            "mainEntityOfPage": 7,
        }
    )
    meta = read_metadata(_page(head + "<title>T</title>"))
    assert meta.headline == "T"
    assert meta.authors == ()
    assert meta.date_published == ""


def test_the_first_h1_with_text_names_a_page_without_declared_headline() -> None:
    body = "<h1> </h1><h1>Second <b>heading</b></h1><h1>Third</h1>"
    assert read_metadata(_page("<title>T</title>", body)).headline == "Second heading"
    declared = '<meta property="og:title" content="Declared">'
    assert read_metadata(_page(declared + "<title>T</title>", body)).headline == "Declared"
    assert read_metadata(_page("<title>T</title>", "<h1> </h1>")).headline == "T"


def test_the_heading_the_title_names_beats_a_site_name_in_h1() -> None:
    head = "<title>The Dangerous Hubris of the Startup World \u00ab Rand's Blog</title>"
    body = "<h1>Rand's Blog</h1><h2>The Dangerous Hubris of the Startup World</h2><h2>Comments</h2>"
    assert read_metadata(_page(head, body)).headline == "The Dangerous Hubris of the Startup World"


def test_a_declared_headline_that_is_the_site_name_is_passed_over() -> None:
    head = '<meta property="og:title" content="Daily News">'
    head += '<meta property="og:site_name" content="Daily News">'
    head += "<title>Ferry resumes after storm | Daily News</title>"
    body = "<h1>Daily News</h1><h2>Ferry resumes after storm</h2>"
    assert read_metadata(_page(head, body)).headline == "Ferry resumes after storm"


def test_a_title_alone_gives_its_longest_part() -> None:
    head = "<title>News | Ferry resumes after the storm | Daily</title>"
    assert read_metadata(_page(head)).headline == "Ferry resumes after the storm"
    assert read_metadata(_page("<title>Reform: a year on</title>")).headline == "Reform: a year on"


def test_a_declared_headline_loses_the_site_part_the_page_does_not_show() -> None:
    head = '<meta property="og:title" content="SEC may require more disclosure \u2014 MSNBC">'
    body = "<h1>SEC may require more disclosure</h1>"
    assert read_metadata(_page(head, body)).headline == "SEC may require more disclosure"
    shown = "<h1>SEC may require more disclosure \u2014 MSNBC</h1>"
    assert read_metadata(_page(head, shown)).headline.endswith("MSNBC")

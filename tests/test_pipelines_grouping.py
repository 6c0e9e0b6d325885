"""URL-pattern groups, near-duplicate pages and bounded samples of the template stage."""

from __future__ import annotations

import doctest
import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from newsextract.evaluation.dataset import read_manifest
from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.pipelines.grouping import (
    GroupTable,
    PageGroup,
    fingerprint,
    is_near_duplicate,
    similarity,
    url_pattern,
)

# --- URL patterns -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "pattern"),
    [
        ("https://www.asahi.com/articles/ASS5X3JQ.html", "asahi.com/articles/*.html"),
        (
            "https://edition.cnn.com/2024/01/01/us/storm-hits-the-coast/index.html",
            "edition.cnn.com/D/D/D/*/index.html",
        ),
        ("http://bbc.co.uk/news/business-21302969", "bbc.co.uk/news/*"),
        (
            "https://www.yomiuri.co.jp/national/20240101-OYT1T50001/",
            "yomiuri.co.jp/national/*/",
        ),
        ("http://127.0.0.1:8080/article/17.html", "127.0.0.1/article/D.html"),
        ("http://example.com/news.htm?id=644961&utm_source=feed", "example.com/news.htm?id"),
        ("http://example.com/", "example.com/"),
        ("http://example.com", "example.com/"),
        ("http://[::1", "/"),
        ("http://example.com/news/a%20story-about-x", "example.com/news/*"),
    ],
)
def test_url_pattern_generalises_ids_numbers_and_slugs(url: str, pattern: str) -> None:
    assert url_pattern(url) == pattern


URL_TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), max_size=80)


@given(URL_TEXT, st.sampled_from(["", "?utm_source=x", "?fbclid=1&utm_medium=y"]))
def test_any_text_has_a_kind_and_tracking_never_changes_it(text: str, tracking: str) -> None:
    url = f"http://example.com/{text.replace('?', '').replace('#', '')}"
    assert url_pattern(url) == url_pattern(url + tracking)


def test_articles_of_one_kind_share_a_pattern_and_listings_do_not() -> None:
    first = url_pattern("https://www.asahi.com/articles/ASS5X3JQ.html")
    second = url_pattern("https://www.asahi.com/articles/ASR7Y2KLM.html?ref=rss")
    listing = url_pattern("https://www.asahi.com/news/")
    assert first == second
    assert listing != first


def test_sections_below_a_date_are_one_kind() -> None:
    politics = "https://edition.cnn.com/2024/02/11/politics/vote-count-delayed/index.html"
    world = "https://edition.cnn.com/2024/03/05/world/summit-opens-today/index.html"
    assert url_pattern(politics) == url_pattern(world)


def test_sections_of_any_depth_below_the_first_are_one_kind() -> None:
    deep = "http://www.latimes.com/news/nationworld/world/middleeast/la-fg-talks-20130101.story"
    shallow = "http://www.latimes.com/news/politics/la-na-vote-counted-again.story"
    other = "http://www.latimes.com/business/la-fi-rates-rise-again.story"
    assert url_pattern(deep) == url_pattern(shallow) == "latimes.com/news/*/*.story"
    assert url_pattern(other) == "latimes.com/business/*.story"


def test_a_section_page_keeps_its_path_as_its_kind() -> None:
    assert url_pattern("https://www.bbc.co.uk/news/world/") == "bbc.co.uk/news/world/"
    assert url_pattern("https://www.bbc.co.uk/news/world/99") == "bbc.co.uk/news/*/D"


def test_tracking_parameters_do_not_change_the_kind() -> None:
    plain = url_pattern("http://example.com/story/12.html")
    tracked = url_pattern("http://example.com/story/12.html?utm_medium=x&fbclid=y&ns_campaign=z")
    assert plain == tracked


@pytest.mark.parametrize(
    ("segment", "shape"),
    [
        ("world-news", "world-news"),  # two words: a section name
        ("world-news-today", "*"),  # three words: a slug
        ("k00", "kD"),  # a short code keeps its letters
        ("ab12c", "abDc"),  # five characters: still a code
        ("ab12cd", "*"),  # six characters mixing letters and digits: an id
        ("a" * 24, "a" * 24),  # at the length bound: a literal segment
        ("a" * 25, "*"),  # above it: an id or a slug
    ],
)
def test_segment_shapes_on_both_sides_of_each_bound(segment: str, shape: str) -> None:
    assert url_pattern(f"http://example.com/{segment}/") == f"example.com/{shape}/"


# --- near-duplicates --------------------------------------------------------------------

ARTICLE = """<html><head><title>{title}</title></head><body>
<div class="nav"><a href="/">Home</a> <a href="/news">News</a></div>
<div class="body">{paragraphs}</div>
<div class="related">{related}</div>
<p>Copyright the example news company, all rights reserved, since many years now.</p>
</body></html>"""


def _page(title: str, paragraphs: list[str], related: str = "", url: str = "") -> Page:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    html = ARTICLE.format(title=title, paragraphs=body, related=related)
    return parse_page(html, url or None)


STORY = [
    "The council approved the new budget for the harbour district on Monday evening.",
    "Residents had asked for more money for the ferry service and the old market hall.",
    "The mayor said that work on the quay would start in the spring of next year.",
]
OTHER = [
    "A storm closed the mountain pass for two days and stranded dozens of travellers.",
    "Rescue teams brought blankets and food to the hut where the travellers sheltered.",
    "The road reopened on Thursday after snowploughs cleared the drifts near the top.",
]


def test_the_same_article_under_two_urls_is_a_duplicate() -> None:
    first = _page("Budget approved", STORY, url="http://e.com/a/1.html")
    second = _page("Budget approved", STORY, url="http://e.com/a/1.html?utm_source=x")
    assert is_near_duplicate(fingerprint(first), fingerprint(second))


def test_a_changed_related_box_does_not_hide_a_duplicate() -> None:
    links = '<a href="/1">Five more stories about the harbour town and its ferry service</a>'
    other = '<a href="/2">Other readers looked at these stories today, and at the weather</a>'
    first = fingerprint(_page("Budget approved", STORY, related=links))
    second = fingerprint(_page("Budget approved", STORY + ["Updated at 10:42."], related=other))
    assert first.digest != second.digest
    assert is_near_duplicate(first, second)


def test_two_articles_sharing_the_template_are_not_duplicates() -> None:
    first, second = _page("Budget approved", STORY), _page("Storm closes pass", OTHER)
    assert not is_near_duplicate(fingerprint(first), fingerprint(second))


def test_pages_whose_own_text_is_short_are_told_apart_by_title() -> None:
    # A photo blog: every long block is the site's sidebar, the posts differ in short text.
    first = _page("Summertime", ["Photos by Eirik"] + STORY)
    second = _page("Velvet and shine", ["Photos in Paris"] + STORY)
    assert similarity(fingerprint(first), fingerprint(second)) == 1.0
    assert not is_near_duplicate(fingerprint(first), fingerprint(second))


def test_pages_without_long_blocks_are_duplicates_only_when_identical() -> None:
    first = parse_page("<html><body><p>Short one.</p></body></html>")
    again = parse_page("<html><body><p>Short one.</p></body></html>")
    other = parse_page("<html><body><p>Short two.</p></body></html>")
    assert is_near_duplicate(fingerprint(first), fingerprint(again))
    assert not is_near_duplicate(fingerprint(first), fingerprint(other))


def test_no_two_different_articles_of_a_real_site_look_like_duplicates(shared_data: Path) -> None:
    entries = [
        entry
        for entry in read_manifest(shared_data / "cleanportaleval")
        if entry.fields.get("site_group") == "bbc.co.uk_news"
    ][:8]
    prints = [fingerprint(parse_page(entry.read_html(), entry.url)) for entry in entries]
    assert len(prints) == 8
    for first, second in itertools.combinations(prints, 2):
        assert not is_near_duplicate(first, second)
    copy = fingerprint(parse_page(entries[0].read_html(), (entries[0].url or "") + "?ref=x"))
    assert is_near_duplicate(prints[0], copy)


# --- bounded samples --------------------------------------------------------------------


def test_a_group_keeps_at_most_its_limit_newest_first() -> None:
    group = PageGroup(("e.com", "e.com/a/D.html"), limit=2)
    pages = [_page(f"Story {n}", [f"{line} Number {n}." for line in STORY]) for n in range(3)]
    assert all(group.add(page) for page in pages)
    assert group.samples == pages[1:]


def test_a_duplicate_does_not_count_as_a_sample() -> None:
    group = PageGroup(("e.com", "kind"), limit=4)
    assert group.add(_page("Budget approved", STORY))
    assert not group.add(_page("Budget approved", STORY, related="Something else entirely"))
    assert len(group) == 1
    assert group.duplicates == 1


def test_the_group_table_forgets_the_least_recently_seen_group() -> None:
    table = GroupTable(samples=2, max_groups=2)
    table.get(("s", "a"))
    table.get(("s", "b"))
    table.get(("s", "a"))  # a is now the most recent
    table.get(("s", "c"))
    assert list(table.evict()) == [("s", "b")]
    assert ("s", "a") in table and ("s", "c") in table
    assert len(table) == 2


def test_the_group_table_bounds_the_samples_of_all_groups() -> None:
    table = GroupTable(samples=3, max_groups=10, max_samples=3)
    for n, kind in enumerate("abc"):
        table.get(("s", kind)).add(_page(f"Story {n}", [f"{line} Number {n}." for line in STORY]))
    assert list(table.evict()) == []  # three samples: at the bound
    table.get(("s", "c")).add(_page("Storm", OTHER))
    assert list(table.evict()) == [("s", "a")]


def test_the_examples_in_the_docstrings_hold() -> None:
    from newsextract.pipelines import grouping

    assert doctest.testmod(grouping).failed == 0

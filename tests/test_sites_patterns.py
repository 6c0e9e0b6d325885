"""URL patterns run on RE2: a pattern that backtracks for minutes in Python's ``re`` is
matched at once, and a pattern RE2 cannot run is refused with a message saying why."""

from __future__ import annotations

import time

import pytest

from newsextract.sites.patterns import PatternError, UrlPattern, compile_pattern

#: The pattern of the report: Python's ``re`` takes about 2 s on the URL below (24 letters
#: after /news/), doubling with each letter more; 58 s were seen with 31 characters.
BACKTRACKING = r"/news/(\w+-?)+\.html"
NEAR_MISS = "http://127.0.0.1:8000/news/" + "a" * 25 + "!"
#: Generous: RE2 answers in well under a millisecond; the old engine took seconds.
MATCH_SECONDS = 0.5


def test_a_backtracking_pattern_is_matched_in_bounded_time() -> None:
    pattern = compile_pattern(BACKTRACKING)
    started = time.monotonic()
    assert not pattern.search(NEAR_MISS)
    assert not pattern.search("http://a.jp/news/" + "a-" * 50_000 + "!")
    assert time.monotonic() - started < MATCH_SECONDS
    assert pattern.search("http://a.jp/news/a-good-story.html")


@pytest.mark.parametrize(
    ("source", "url", "expected"),
    [
        (r"^https?://www\.example\.org/\d{4}/", "https://www.example.org/2024/x", True),
        (r"/articles/[A-Z0-9]+\.html(?:[?#]|$)", "https://a.jp/articles/AB1.html?ref=x", True),
        (r"/articles/[A-Z0-9]+\.html(?:[?#]|$)", "https://a.jp/articles/AB1.html/more", False),
        (r"(?i)/NEWS/", "https://a.jp/news/1", True),
        (r"/記事/\d+", "https://a.jp/記事/12", True),
    ],
)
def test_patterns_search_as_re_does(source: str, url: str, expected: bool) -> None:
    assert compile_pattern(source).search(url) is expected


@pytest.mark.parametrize(
    "source",
    [r"/(\d+)/\1", r"/news/(?!video)", r"(?<=/)x", r"/(?P<id>\d+)/(?P=id)", r"\.html\Z"],
)
def test_a_pattern_that_needs_backtracking_is_refused_saying_why(source: str) -> None:
    with pytest.raises(PatternError, match=r"needs a feature .* \(RE2\) does not have"):
        compile_pattern(source)


def test_a_pattern_that_is_no_regex_gets_pythons_message() -> None:
    with pytest.raises(PatternError, match=r"^bad regex '/news/\(': missing \), unterminated"):
        compile_pattern("/news/(")


def test_patterns_are_equal_by_their_source() -> None:
    assert compile_pattern("/a/") == compile_pattern("/a/")
    assert compile_pattern("/a/") != compile_pattern("/b/")
    assert isinstance(compile_pattern("/a/"), UrlPattern)
    assert compile_pattern("/a/").pattern == "/a/"

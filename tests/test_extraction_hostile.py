"""Hostile input: every body gives a Page and a result, or a typed error; never a crash or hang.

Property tests (hypothesis, small example counts so the file stays fast) and fixed cases:
broken and truncated HTML, binary and empty bodies, NUL bytes, invalid and mixed encodings,
enormous attributes, deep nesting, a 20 MB page, element bombs (measured in a subprocess).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newsextract.exceptions import NewsExtractError, PageTooComplexError
from newsextract.extraction.evidence.fft import fft_interval
from newsextract.extraction.evidence.method import MethodResult
from newsextract.extraction.evidence.punctuation import punctuation_density
from newsextract.extraction.pagemodel.page import (
    MAX_ELEMENTS_DEFAULT,
    Page,
    PageLimits,
    count_tags,
    parse_page,
)
from newsextract.extraction.record.article import extract_article

METHODS: tuple[Callable[[Page], MethodResult], ...] = (fft_interval, punctuation_density)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(body: bytes | str, content_type: str | None = None) -> Page | None:
    """Parse, run methods C and D and the combiner; a typed error is an acceptable answer."""
    try:
        page = parse_page(body, "http://example.org/x", content_type)
    except NewsExtractError:
        return None
    for block in page.blocks:
        assert block.text and block.text == block.text.strip()
        assert "\x00" not in block.text
    for method in METHODS:
        result = method(page)
        assert all(0 <= index < len(page.blocks) for index in result.kept)
        assert list(result.kept) == sorted(set(result.kept))
        assert len(result.scores) in (0, len(page.blocks))
    article = extract_article(page)
    assert isinstance(article.body, str)
    return page


TAGS = st.sampled_from(["div", "p", "span", "a", "table", "td", "li", "b", "br", "script", "x-y"])
FRAGMENT = st.one_of(
    st.text(max_size=40),
    TAGS.map(lambda tag: f"<{tag}>"),
    TAGS.map(lambda tag: f"</{tag}>"),
    TAGS.map(lambda tag: f'<{tag} title="t" style="display:none" hidden>'),
    st.sampled_from(["<!--", "-->", "<![CDATA[", "]]>", "&amp", "&#0;", "&#xD800;", "<", ">"]),
    st.sampled_from(["<?xml version='1.0' encoding='latin-1'?>", "<meta charset='utf-16'>"]),
)


@FAST
@given(st.lists(FRAGMENT, max_size=60).map("".join))
def test_random_markup_as_text(html: str) -> None:
    check(html)


@FAST
@given(st.lists(FRAGMENT, max_size=60).map("".join), st.sampled_from(["utf-8", "utf-16", "cp1252"]))
def test_random_markup_as_bytes(html: str, codec: str) -> None:
    check(html.encode(codec, "replace"))


@FAST
@given(st.binary(max_size=3000))
def test_random_bytes(body: bytes) -> None:
    check(body)


@FAST
@given(
    st.binary(max_size=500), st.sampled_from([None, "text/html; charset=bogus", "charset=utf-8"])
)
def test_random_bytes_inside_a_document(noise: bytes, content_type: str | None) -> None:
    check(b"<html><body><p>before</p>" + noise + b"<p>after</p></body></html>", content_type)


@FAST
@given(st.integers(min_value=0, max_value=len(b"x") * 0 + 400))
def test_truncated_documents(cut: int) -> None:
    document = (
        '<html><head><meta charset="utf-8"><title>T</title></head><body>'
        '<div class="a"><p>One, two. <a href="/x">three</a></p><table><tr><td>4</td></tr>'
        "</table><ul><li>five</li></ul><p>日本語の文章です。</p></div></body></html>"
    ).encode()
    check(document[:cut])


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"   \n\t ",
        b"\x00" * 100,
        b"<p>a\x00b</p>",
        b"\xef\xbb\xbf",  # a BOM and nothing else
        b"\xff\xfe",  # a UTF-16 BOM and nothing else
        b"<html>",
        b"</html></body></p>",
        b"<<<<>>>>",
        b"<p>unclosed <b>bold <i>italic",
        b"<table><td><tr><li>misnested</table></li>",
        b"<!-- never closed comment <p>text</p>",
        b"<script>never closed script <p>text</p>",
        b'<?xml version="1.0" encoding="utf-8"?><p>declared</p>',
        b"<\x00p>nul in a tag</p>",
        b"&#0;&#xD800;&#x110000;&nonsense;",
        "<p>lone surrogate \ud800 here</p>".encode("utf-8", "surrogatepass"),
        "<p>mixed</p>".encode("utf-16-le") + b"<p>encodings</p>",
        "<p>\u65e5\u672c</p>".encode("shift_jis") + "<p>caf\xe9</p>".encode("cp1252"),
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj",
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)),
        gzip.compress(b"<p>still compressed</p>"),
        zlib.compress(b"<p>deflated</p>" * 50),
    ],
)
def test_fixed_hostile_bodies(body: bytes) -> None:
    check(body)


@pytest.mark.parametrize("text", ["", "\ufffe\uffff", "<p>\ud800</p>", "<p>a\x0bb\x0cc</p>"])
def test_hostile_str_bodies(text: str) -> None:
    check(text)


def test_binary_bodies_are_a_typed_error() -> None:
    with pytest.raises(NewsExtractError):
        parse_page(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20)


def test_enormous_attributes() -> None:
    value = "x" * 3_000_000  # two of them: 6 MB, under the 8 MB cut
    page = check(f'<html><body><p title="{value}" class="{value}">text</p></body></html>')
    assert page is not None
    assert [block.text for block in page.blocks] == ["text"]


def test_a_huge_number_of_attributes() -> None:
    attributes = " ".join(f'a{i}="{i}"' for i in range(100_000))
    page = check(f"<html><body><div {attributes}>text</div></body></html>")
    assert page is not None and [block.text for block in page.blocks] == ["text"]


@pytest.mark.parametrize("tag", ["div", "span", "b", "section"])
def test_nesting_50000_levels_deep_keeps_the_text(tag: str) -> None:
    depth = 50_000  # libxml2 stops at 256 levels; 100,000 tags are over MAX_ELEMENTS_DEFAULT
    html = (
        "<html><body>"
        + f"<{tag}>level " * depth
        + "DEEPEST"
        + f"</{tag}>" * depth
        + "<p>AFTER</p></body></html>"
    )
    page = check(html)
    assert page is not None
    text = " ".join(block.text for block in page.blocks)
    assert "DEEPEST" in text and text.endswith("AFTER")
    assert text.count("level") == depth


def test_unclosed_nesting_100000_levels_deep() -> None:
    page = check("<div>" * 100_000 + "bottom")
    assert page is not None
    assert page.blocks[-1].text == "bottom"


def test_a_20_mb_page_is_cut_and_parsed() -> None:
    paragraph = "<div><p>" + "Some words, in a sentence. " * 40 + "</p></div>\n"
    body = ("<html><body>" + paragraph * (20_000_000 // len(paragraph)) + "</body></html>").encode()
    assert len(body) >= 19_000_000
    page = check(body)
    assert page is not None
    assert len(page.html) <= 8_000_000
    assert len(page.blocks) > 1000


# --- element bombs: bounded by elements and blocks, not only by characters ----------------

#: ``<p>a`` two million times is 8 MB (8 kB gzipped): it took a crawl to 6.8 GB and 40 s.
BOMBS = {
    "p": "<p>a",
    "br": "a<br>",
    "td": "<table><tr>" + "<td>a" * 10,
    "table": "<table><tr><td>a</td></tr></table>",
}
#: The measurement runs in a child with its address space capped, so that a regression fails
#: the test with a MemoryError instead of taking the machine's memory.
_BOMB_SCRIPT = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.record.article import extract_article
from newsextract.extraction.pagemodel.page import parse_page
piece = sys.argv[1]
body = ("<html><body>" + piece * (8_000_000 // len(piece))).encode()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
try:
    extract_article(parse_page(body, "http://example.org/bomb"))
    error = ""
except NewsExtractError as caught:
    error = type(caught).__name__ + ": " + str(caught)
except MemoryError:
    error = "MemoryError"
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"error": error, "seconds": time.monotonic() - started, "mb": grown / 1024}))
"""


@pytest.mark.parametrize("piece", list(BOMBS.values()), ids=list(BOMBS))
def test_element_bombs_are_refused_in_bounded_time_and_memory(piece: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _BOMB_SCRIPT, piece],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    measured = json.loads(done.stdout.splitlines()[-1])
    assert measured["error"].startswith("PageTooComplexError: "), measured
    assert "tags, more than the limit of 100,000" in measured["error"]
    assert measured["seconds"] < 5, measured
    assert measured["mb"] < 400, measured


def test_a_page_at_the_element_limit_is_parsed_and_one_more_is_refused() -> None:
    limits = PageLimits(max_elements=40)
    page = parse_page("<html><body>" + "<p>a" * 38, limits=limits)  # 40 tags
    assert len(page.blocks) == 38
    with pytest.raises(PageTooComplexError) as refused:
        parse_page("<html><body>" + "<p>a" * 39, limits=limits)  # 41
    assert (refused.value.what, refused.value.count, refused.value.limit) == ("tags", 41, 40)
    parse_page("<html><body>" + "<p>a" * 37 + "</p>" * 37 + "<!-- c -->", limits=limits)


def test_a_page_at_the_block_limit_is_parsed_and_one_more_block_is_refused() -> None:
    limits = PageLimits(max_blocks=10)
    assert len(parse_page("<div>" + "<p>a</p>" * 10, limits=limits).blocks) == 10
    with pytest.raises(PageTooComplexError, match="11 blocks, more than the limit of 10"):
        parse_page("<div>" + "<p>a</p>" * 11, limits=limits)


def test_the_default_limits_keep_far_from_real_pages() -> None:
    # the largest development page holds 15,793 tags (see MAX_ELEMENTS_DEFAULT)
    assert MAX_ELEMENTS_DEFAULT >= 5 * 15_793
    page = parse_page("<html><body>" + "<p>word <b>x</b> <i>y</i></p>" * 10_000)
    assert len(page.blocks) == 10_000


@pytest.mark.parametrize("codec", ["utf-8", "utf-16", "shift_jis", "gb18030", "big5"])
def test_tags_counted_in_bytes_are_never_fewer_than_in_the_text(codec: str) -> None:
    text = "<p>日本語の文章<br>と</p><!-- x -->" * 50 + "<td>表<td>格" * 30
    assert count_tags(text.encode(codec)) >= count_tags(text) == 50 * 2 + 60

"""The page model: blocks, cleaning, structured data, depth limits and the doctests."""

from __future__ import annotations

import codecs
import doctest
import json
import re
import unicodedata
from dataclasses import FrozenInstanceError, fields, replace
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import etree

from newsextract.exceptions import NotHTMLError
from newsextract.extraction.evidence import fft, punctuation
from newsextract.extraction.pagemodel import encoding, page
from newsextract.extraction.pagemodel.blocks import BLOCK_TAGS, Block, normalise_text, split_blocks
from newsextract.extraction.pagemodel.compiled import (
    is_hidden,
    source_counts,
    text_counts,
    without_overlong_tags,
)
from newsextract.extraction.pagemodel.page import flatten_nesting, parse_page


def texts(html: str) -> list[str]:
    return [block.text for block in parse_page(html).blocks]


@pytest.mark.parametrize("module", [encoding, fft, page, punctuation])
def test_doctests_pass(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0
    assert failures == 0


def test_blocks_follow_document_order_and_split_around_nested_blocks() -> None:
    html = "<html><body><div>before<p>inner <b>bold</b> text</p>after</div></body></html>"
    assert texts(html) == ["before", "inner bold text", "after"]


def test_an_empty_nested_block_still_splits_its_parent_text() -> None:
    assert texts("<body><div>left<p></p>right</div></body>") == ["left", "right"]


def test_inline_markup_does_not_split_and_spaces_fold() -> None:
    html = "<body><p>  one\n\t<span>two</span>\u00a0 <i>three</i>four </p></body>"
    assert texts(html) == ["one two threefour"]


def test_br_becomes_a_line_break_inside_the_block() -> None:
    assert texts("<body><p>first<br>second<br><br> third</p></body>") == ["first\nsecond\nthird"]


def test_block_features_link_chars_inline_tags_attributes_and_depth() -> None:
    html = (
        '<body><div><p>Read <a href="/x" title="more">the story</a> '
        '<img alt="photo" src="p.jpg"> now</p></div></body>'
    )
    (block,) = parse_page(html).blocks
    assert block.text == "Read the story now"
    assert block.link_chars == len("the story")
    assert block.inline_tags == ("a", "img")
    assert block.attr_texts == ("more", "photo")
    assert block.depth == 3  # html > body > div > p
    assert block.tag == "p"
    assert block.link_density == pytest.approx(9 / 18)
    assert block.words == 4


def test_tail_of_a_link_is_not_link_text() -> None:
    (block,) = parse_page('<body><p><a href="#">ab</a>cdef</p></body>').blocks
    assert block.link_chars == 2


def test_block_indexes_count_only_blocks_with_text() -> None:
    page = parse_page("<body><div> </div><p>a</p><div>\n</div><p>b</p></body>")
    assert [(b.index, b.text) for b in page.blocks] == [(0, "a"), (1, "b")]


@pytest.mark.parametrize(
    "hidden",
    [
        '<span style="display: none">secret</span>',
        '<span style="visibility:hidden">secret</span>',
        "<span hidden>secret</span>",
        '<span aria-hidden="true">secret</span>',
        "<script>secret()</script>",
        "<style>.secret{}</style>",
        "<noscript>secret</noscript>",
    ],
)
def test_noise_and_hidden_elements_are_removed_but_their_tail_is_kept(hidden: str) -> None:
    page = parse_page(f"<body><p>visible {hidden} tail</p></body>")
    assert [b.text for b in page.blocks] == ["visible tail"]


ARTICLE_PARAGRAPH = "A paragraph of the article that is long enough to count as text. " * 3


@pytest.mark.parametrize("paragraphs", [8, 20])
def test_a_noscript_that_swallowed_the_page_is_kept(paragraphs: int) -> None:
    # An element left open inside <noscript> puts the rest of the page in it.
    article = "".join(f"<p>{ARTICLE_PARAGRAPH}</p>" for _ in range(paragraphs))
    html = f"<body><p>menu</p><noscript><div id=x></noscript>{article}</body>"
    assert texts(html).count(ARTICLE_PARAGRAPH.strip()) == paragraphs
    root = parse_page(html).root
    assert all(not page.removed_by_cleaning(p) for p in root.iter("p"))


def test_a_long_noscript_beside_the_article_is_still_dropped() -> None:
    article = "".join(f"<p>{ARTICLE_PARAGRAPH}</p>" for _ in range(12))
    notice = "Please enable JavaScript to read the comments on this page. " * 12
    html = f"<body>{article}<noscript><p>{notice}</p></noscript></body>"
    assert texts(html) == [ARTICLE_PARAGRAPH.strip()] * 12


@pytest.mark.parametrize(
    "opening",
    [
        'div style="display:none"',
        "section hidden",
        'div aria-hidden="true"',
        'ul style="visibility: hidden"',
    ],
)
def test_hidden_blocks_stay_flagged_for_the_classifier(opening: str) -> None:
    # Tabs, accordions and menus hide real content until a click: the classifier judges them.
    tag = opening.split()[0]
    inner = "<li>tab text</li>" if tag == "ul" else "<p>tab text</p>"
    page = parse_page(f"<body><p>shown</p><{opening}>{inner}</{tag}><p>after</p></body>")
    assert [(b.text, b.hidden) for b in page.blocks] == [
        ("shown", False),
        ("tab text", True),
        ("after", False),
    ]


def test_streamed_parts_of_a_react_page_are_not_hidden() -> None:
    page = parse_page('<body><div hidden id="S:0"><p>streamed article text</p></div></body>')
    assert [(b.text, b.hidden) for b in page.blocks] == [("streamed article text", False)]


def test_a_button_that_swallowed_the_page_is_kept() -> None:
    # A menu <button> left open by libxml2 holds everything after it.
    article = "".join(f"<p>{ARTICLE_PARAGRAPH}</p>" for _ in range(8))
    html = f"<body><button class=menu><div>Menu</div>{article}</body>"
    assert texts(html).count(ARTICLE_PARAGRAPH.strip()) == 8
    assert texts("<body><p>text</p><button>Subscribe now</button></body>") == ["text"]


def test_content_after_a_stray_end_of_document_is_read() -> None:
    # After "</body></html>" and more markup libxml2 starts a second top-level element.
    html = "<html><body><p>first</p></body></html><div><p>second</p></div>after"
    assert texts(html) == ["first", "second", "after"]


_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def hidden_by_python(element: etree._Element) -> bool:
    """What the compiled ``is_hidden`` must give: the first of the three attributes that
    hides the element decides."""
    for name in ("style", "hidden", "aria-hidden"):
        value = element.get(name)
        if value is None:
            continue
        if name == "hidden":
            return re.match(r"S:\d+$", element.get("id") or "") is None
        hides = _HIDDEN_STYLE.search(value) if name == "style" else value == "true"
        if hides:
            return True
    return False


_STYLE_PIECES = st.sampled_from(
    ["display", "DISPLAY", "di\u017fplay", "d\u0131splay", "visib\u0130lity", "visibility"]
    + [":", " ", "\u3000", "\n", "none", "NONE", "hidden", "h\u0131dden", ";", "block", "x"]
)
_IDS = st.sampled_from(["", "S:0", "S:12\n", "S:\n", "S:1\n\n", "S:\u0661", "s:1", "S:1a"])


@given(
    st.one_of(st.none(), st.just("true"), st.lists(_STYLE_PIECES, max_size=8).map("".join)),
    st.one_of(st.none(), st.sampled_from(["", "hidden"])),
    st.one_of(st.none(), st.sampled_from(["true", "True", "false"])),
    st.one_of(st.none(), _IDS),
)
def test_hiding_attributes_are_read_as_the_patterns_read_them(
    style: str | None, hidden: str | None, aria: str | None, ident: str | None
) -> None:
    values = {"style": style, "hidden": hidden, "aria-hidden": aria, "id": ident}
    element = etree.Element("div", {k: v for k, v in values.items() if v is not None})
    assert is_hidden(element) is hidden_by_python(element)


def test_aria_hidden_false_and_other_styles_are_kept() -> None:
    html = '<body><div aria-hidden="false">a</div><div style="color: red">b</div></body>'
    assert texts(html) == ["a", "b"]


def test_body_is_never_removed_even_if_marked_hidden() -> None:
    assert texts('<html><body style="display:none"><p>still here</p></body></html>') == [
        "still here"
    ]


def test_structured_data_is_read_before_cleaning() -> None:
    ld = {"@graph": [{"@type": "NewsArticle", "headline": "H"}, {"@type": "Person"}]}
    html = (
        '<html lang="en-GB"><head><title> The title </title>'
        '<meta property="og:title" content=" OG "><meta name="Author" content="A. Writer">'
        '<link rel="canonical" href="http://example.org/a">'
        f'<script type="application/ld+json">{json.dumps(ld)}</script>'
        '<script type="application/ld+json">{broken</script>'
        "</head><body><p>x</p></body></html>"
    )
    structured = parse_page(html).structured
    assert structured.title == "The title"
    assert structured.lang == "en-GB"
    assert structured.canonical == "http://example.org/a"
    assert structured.meta == {"og:title": "OG", "author": "A. Writer"}
    assert [item.get("@type") for item in structured.json_ld] == [None, "NewsArticle", "Person"]


def test_a_page_with_an_xml_encoding_declaration_is_parsed() -> None:
    body = '<?xml version="1.0" encoding="utf-8"?><html><body><p>café</p></body></html>'
    assert texts(body) == ["café"]
    assert [b.text for b in parse_page(body.encode("utf-8")).blocks] == ["café"]


def test_bytes_are_decoded_with_the_declared_charset() -> None:
    body = '<meta charset="shift_jis"><p>日本語の記事</p>'.encode("shift_jis")
    result = parse_page(body)
    assert result.encoding == "cp932"
    assert [b.text for b in result.blocks] == ["日本語の記事"]


def test_binary_body_raises_not_html() -> None:
    with pytest.raises(NotHTMLError):
        parse_page(bytes(range(256)) * 20)


def test_empty_and_blank_bodies_give_a_page_without_blocks() -> None:
    for body in (b"", b"   \n", ""):
        result = parse_page(body)
        assert result.blocks == ()
        assert result.root.find("body") is not None


def test_long_pages_are_cut_at_max_chars() -> None:
    html = "<body><p>" + "word " * 1000 + "</p><p>END</p></body>"
    assert "END" not in " ".join(b.text for b in parse_page(html, max_chars=2000).blocks)
    assert "END" in " ".join(b.text for b in parse_page(html).blocks)


def test_text_below_libxml2_depth_limit_survives() -> None:
    depth = 5000
    html = "<html><body>" + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p>"
    found = texts(html + "</body></html>")
    assert "deep text" in found
    assert found[-1] == "after"


def test_flatten_nesting_keeps_text_and_tags_within_the_limit() -> None:
    html = "<div><div><div>x</div>y</div>z</div>"
    assert flatten_nesting(html, max_nesting=2) == "<div><div> x y</div>z</div>"
    assert flatten_nesting(html, max_nesting=3) == html


def test_flatten_nesting_ignores_void_and_self_closing_tags() -> None:
    html = "<div><br><img src=x><span/>a</div>"
    assert flatten_nesting(html, max_nesting=1) == html


def test_split_blocks_works_on_any_tree_with_comments() -> None:
    from lxml import etree

    root = etree.fromstring("<html><body><p>a<!-- c -->b<?pi x?>c</p></body></html>")
    assert [b.text for b in split_blocks(root)] == ["abc"]


def test_normalise_text_keeps_single_line_breaks() -> None:
    assert normalise_text("a\u2028\u2028\u2028b") == "a\nb"
    assert normalise_text("\u2028 a \u2028") == "a"
    assert normalise_text("a\u200bb\x00c") == "a bc"


# --- the one-pass walk against the definition of a block --------------------------------


def reference_blocks(root: etree._Element) -> list[tuple[object, ...]]:
    """Blocks as defined, written plainly (recursive, every run kept, normalised at the end)
    so that the flat one-pass walk of :func:`split_blocks` can be checked against it."""
    runs: list[list[Any]] = []

    def open_run(owner: etree._Element, depth: int) -> None:
        runs.append([owner, depth, [], 0, [], []])

    def add_text(text: str | None, in_link: bool) -> None:
        if text:
            runs[-1][2].append(text)
            runs[-1][3] += len(text.strip()) if in_link else 0

    def visit(element: etree._Element, owner: etree._Element, depth: int, link: bool) -> None:
        for child in element:
            if not isinstance(child.tag, str):  # a comment or processing instruction
                add_text(child.tail, link)
                continue
            if child.tag in BLOCK_TAGS:
                open_run(child, depth + 1)
                add_text(child.text, link)
                visit(child, child, depth + 1, link)
                open_run(owner, depth)
            else:
                runs[-1][4].append(child.tag)
                runs[-1][5] += [
                    child.get(name, "").strip()
                    for name in ("title", "alt")
                    if child.get(name, "").strip()
                ]
                inner_link = link or child.tag == "a"
                add_text(child.text, inner_link)
                visit(child, owner, depth, inner_link)
                if child.tag == "br":
                    runs[-1][2].append("\u2028")
            add_text(child.tail, link)

    open_run(root, 0)
    add_text(root.text, False)
    visit(root, root, 0, False)
    add_text(root.tail, False)
    found: list[tuple[object, ...]] = []
    for owner, depth, pieces, link_chars, tags, attrs in runs:
        text = normalise_text("".join(pieces))
        if text:
            found.append(
                (owner, depth, text, min(link_chars, len(text)), tuple(tags), tuple(attrs))
            )
    return found


WORDS = st.sampled_from([" ", "\n  ", "\u00a0", "\u2028", "\u200b", "word", "two words", ". "])
VOID = st.sampled_from(["<img alt=photo>", "<img alt=' '>", "<br>", "<!-- c -->", ""])
OPEN = st.sampled_from(["div", "p", "li", "h2", "a href=x", "b", "span title=' t '", "i"])


def _element(opening: str, children: list[str]) -> str:
    return f"<{opening}>{''.join(children)}</{opening.split()[0]}>"


# Nested elements (any mix of blocks and inline elements, links holding blocks), plus loose
# tag soup that libxml2 repairs in its own way.
TREES = st.recursive(
    st.one_of(WORDS, VOID),
    lambda children: st.builds(_element, OPEN, st.lists(children, max_size=5)),
    max_leaves=40,
)
SOUP = st.lists(
    st.one_of(WORDS, VOID, st.sampled_from(["<div>", "</div>", "<p>", "<a href=x>", "</a>"])),
    max_size=30,
).map("".join)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(TREES, SOUP))
@example("<a href=x>link<div>inner</div>tail</a>more<br><i>x</i>")
@example("<p> \u2028<br> </p><div><span title=t> </span></div>x")
def test_split_blocks_matches_the_definition(markup: str) -> None:
    root = etree.fromstring(f"<html><body>{markup}</body></html>", etree.HTMLParser())
    found = [
        (b.element, b.depth, b.text, b.link_chars, b.inline_tags, b.attr_texts)
        for b in split_blocks(root)
    ]
    assert found == reference_blocks(root)
    for piece in root.iter("p", "span", "a"):  # any element can be the root (the fast path)
        assert [
            (b.element, b.depth, b.text, b.link_chars, b.inline_tags, b.attr_texts)
            for b in split_blocks(piece)
        ] == reference_blocks(piece)


def test_blocks_are_complete_block_instances() -> None:
    (block,) = parse_page('<body><p>Read <a href="/x">this</a></p></body>').blocks
    assert isinstance(block, Block)
    assert set(vars(block)) == {field.name for field in fields(Block)}
    assert Block(**vars(block)) is not block
    assert replace(block, text="x").text == "x"
    with pytest.raises(FrozenInstanceError):
        block.text = "changed"  # type: ignore[misc]


@given(st.text(alphabet="<>ab \u00e9", max_size=300), st.integers(min_value=1, max_value=40))
def test_long_tags_are_found_as_the_regex_finds_them(html: str, length: int) -> None:
    expected = re.search(f"<[A-Za-z][^<>]{{{length}}}", html) is not None
    assert page.has_long_tag(html, length) is expected


@given(
    st.text(alphabet="ab<>\n\r\t\x00\x01\x0b\x1f\ufffe\uffff\u00e9\u4e2d\U0001f600", max_size=5000)
)
def test_char_counts_give_the_text_checks_answers(html: str) -> None:
    counts = page.CharCounts(*source_counts(html.encode()))
    forbidden = [c for c in html if c in page._XML_ILLEGAL_CHARS[:-2]]
    nonchars = "\ufffe" in html or "\uffff" in html
    assert counts == page.CharCounts(html.count("<"), len(forbidden), nonchars)
    assert page.CharCounts(*text_counts(html)) == counts
    assert page._has_illegal_chars(html, counts) is page._has_illegal_chars(html)
    assert page._looks_binary(html, counts.forbidden) is page._looks_binary(html)


@given(
    st.text(alphabet="<>ab/= \t\u00a0\u3000\u00e9\u4e2dZ\U0001f600", max_size=200),
    st.integers(min_value=1, max_value=30),
)
def test_overlong_tags_lose_what_the_regex_takes(html: str, length: int) -> None:
    expected = re.sub(rf"<([A-Za-z][^\s/<>]*)[^<>]{{{length},}}", r"<\1", html)
    assert without_overlong_tags(html, length) == expected


def test_overlong_tags_are_found_anywhere_in_a_long_page() -> None:
    filler = "<p>x</p>" * 5000
    for where in (0, 1, len(filler) // 2 + 3, len(filler)):
        html = filler[:where] + '<p title="' + "y" * 25_000 + '">kept</p>' + filler[where:]
        assert "y" * 100 not in page.drop_overlong_attributes(html)
        assert "kept" in page.drop_overlong_attributes(html)


_PROSE = "<html><body><p>" + "Some ordinary words of a paragraph. " * 4 + "%s</p></body></html>"


@pytest.mark.parametrize(
    "body",
    [
        (_PROSE % "caf\u00e9 \u201cquoted\u201d").encode(),
        codecs.BOM_UTF8 + (_PROSE % "caf\u00e9").encode(),
        (_PROSE % "a\x01b\x0bc\x1fd").encode(),  # control characters XML forbids
        (_PROSE % "a\ufffeb\uffffc").encode(),  # noncharacters XML forbids
        (_PROSE % "a\ufffdb").encode(),  # a replacement character, valid UTF-8
        (_PROSE % "caf\u00e9").encode("cp1252"),
        b'<meta charset="utf-8">' + (_PROSE % "\u00e9t\u00e9 \xff").encode()[:-20] + b"\xff",
    ],
)
def test_parsing_the_bytes_gives_what_parsing_their_text_gives(body: bytes) -> None:
    # UTF-8 bodies go to libxml2 as they are; everything must be as if the decoded text had
    # been encoded again.
    from_bytes = page.parse_html(body)
    from_text = page.parse_html(encoding.decode_html(body).text)
    assert from_bytes.html == from_text.html
    assert etree.tostring(from_bytes.root) == etree.tostring(from_text.root)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_any_utf8_text_parses_from_its_bytes_as_from_the_text(text: str) -> None:
    body = (_PROSE % text).encode()
    try:
        from_text = page.parse_html(encoding.decode_html(body).text)
    except NotHTMLError:
        with pytest.raises(NotHTMLError):
            page.parse_html(body)
        return
    from_bytes = page.parse_html(body)
    assert from_bytes.html == from_text.html
    assert etree.tostring(from_bytes.root) == etree.tostring(from_text.root)


def test_a_web_archive_toolbar_is_never_text() -> None:
    toolbar = (
        '<div id="wm-ipp-base"><div id="wm-ipp" style="display:none">'
        "<p>These crawls are part of an effort to archive pages as they are created.</p>"
        "</div></div>"
    )
    page = parse_page(f"<html><body>{toolbar}<p>The ferry runs again.</p></body></html>")
    assert [block.text for block in page.blocks] == ["The ferry runs again."]


def test_block_text_is_composed_as_unicode_nfc() -> None:
    decomposed = "Cafe\u0301 \u09b8\u09be\u09dc\u09c7"  # Bengali U+09DC decomposes under NFC
    page = parse_page(f"<html><body><p>{decomposed}</p></body></html>")
    assert page.blocks[0].text == unicodedata.normalize("NFC", decomposed)
    assert page.blocks[0].text.startswith("Caf\u00e9 ")

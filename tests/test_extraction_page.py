"""The page model: blocks, cleaning, structured data, depth limits and the doctests."""

from __future__ import annotations

import doctest
import json
from types import ModuleType

import pytest

from newsextract.exceptions import NotHTMLError
from newsextract.extraction import blocks, encoding, fft, page, punctuation
from newsextract.extraction.blocks import normalise_text, split_blocks
from newsextract.extraction.page import flatten_nesting, parse_page


def texts(html: str) -> list[str]:
    return [block.text for block in parse_page(html).blocks]


@pytest.mark.parametrize("module", [blocks, encoding, fft, page, punctuation])
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

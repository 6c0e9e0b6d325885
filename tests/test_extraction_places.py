"""The places of a page's blocks: second copies of the article's text placed elsewhere are left
out, paragraphs placed as confidently kept ones are kept."""

from __future__ import annotations

import random
import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.decision.places import (
    MIN_COPY_CHARS,
    PLACE_CONFIDENT_SCORE,
    PLACE_PROSE_MIN_CHARS,
    with_its_places,
    without_copies,
)
from newsextract.extraction.pagemodel.compiled import Places

PARAGRAPHS = [
    "Ferry services to the islands resumed on Monday morning after three days of storms kept "
    "every boat in harbour, the operator said.",
    "Engineers checked the piers overnight and found no lasting damage, although one landing "
    "stage will stay closed until Friday while its timbers are replaced.",
    "Passengers with tickets for the cancelled sailings can travel on any boat this week or ask "
    "for their money back at the harbour office, which opens an hour early.",
]


def _copy(attributes: str, paragraphs: list[str]) -> str:
    return f"<div {attributes}>" + "".join(f"<p>{text}</p>" for text in paragraphs) + "</div>"


def _kept_texts(html: str) -> list[str]:
    page = parse_page(html.encode(), "https://news.example.com/2026/ferries")
    kept = tuple(range(len(page.blocks)))
    return [page.blocks[i].text for i in without_copies(kept, page.blocks)]


def test_a_copy_under_another_element_is_left_out() -> None:
    html = _copy('class="desktop"', PARAGRAPHS) + _copy('class="mobile"', PARAGRAPHS)
    assert _kept_texts(f"<html><body>{html}</body></html>") == PARAGRAPHS


def test_a_copy_under_an_element_of_another_id_is_left_out() -> None:
    html = _copy('id="panel-article"', PARAGRAPHS) + _copy('id="panel-video"', PARAGRAPHS[:2])
    assert _kept_texts(f"<html><body>{html}</body></html>") == PARAGRAPHS


def test_a_text_repeated_in_the_same_place_stays() -> None:
    html = _copy('class="main"', PARAGRAPHS) + _copy('class="main"', PARAGRAPHS[:1])
    assert _kept_texts(f"<html><body>{html}</body></html>") == PARAGRAPHS + PARAGRAPHS[:1]


def test_ids_that_differ_only_in_their_numbers_are_the_same_place() -> None:
    html = _copy('id="control_7376888"', PARAGRAPHS) + _copy('id="control_7881585"', PARAGRAPHS)
    assert _kept_texts(f"<html><body>{html}</body></html>") == PARAGRAPHS * 2


def test_a_short_repeated_line_stays() -> None:
    line = "Read the full story"
    assert len(line) < MIN_COPY_CHARS
    html = _copy('class="a"', [line, *PARAGRAPHS]) + _copy('class="b"', [line])
    assert _kept_texts(f"<html><body>{html}</body></html>") == [line, *PARAGRAPHS, line]


def test_places_tell_tag_class_and_id_apart_up_to_the_root() -> None:
    html = (
        '<div class="x" id="a1"><p>one</p></div><div class="x" id="a2"><p>two</p></div>'
        '<div class="y" id="a3"><p>three</p></div><section class="x"><p>four</p></section>'
        '<div class="x" id="b4"><p>five</p></div>'
    )
    page = parse_page(f"<html><body>{html}</body></html>".encode())
    place = Places()
    numbers = [place(block.element) for block in page.blocks]
    assert numbers[0] == numbers[1]
    assert len(set(numbers)) == 4


class ReferencePlaces:
    """Places as Python reads them: the compiled walk must number elements the same way."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[str, str, str, int], int] = {}

    def __call__(self, element: etree._Element) -> int:
        parent = element.getparent()
        number = -1 if parent is None else self(parent)
        key = (
            str(element.tag),
            element.get("class", ""),
            re.sub(r"\d+", "", element.get("id", "")),
        )
        return self.numbers.setdefault((*key, number), len(self.numbers))


_NAMES = st.sampled_from(["", "x", "a1", "a2", "\u0661b", "b\u0662\u0663", "{urn:x}n"])


@given(
    st.lists(
        st.tuples(st.sampled_from(["div", "p", "{urn:x}div"]), _NAMES, _NAMES, st.integers(0, 9)),
        max_size=30,
    ),
    st.randoms(),
)
def test_places_are_numbered_as_python_reads_them(
    elements: list[tuple[str, str, str, int]], order: random.Random
) -> None:
    root = etree.Element("body")
    made = [root]
    for tag, classes, ident, parent in elements:
        child = etree.SubElement(made[parent % len(made)], tag)
        for name, value in (("class", classes), ("id", ident)):
            if value:
                child.set(name, value)
        made.append(child)
    order.shuffle(made)
    place, reference = Places(), ReferencePlaces()
    assert [place(element) for element in made] == [reference(element) for element in made]


def test_places_of_a_deeply_nested_page_are_read_in_one_pass() -> None:
    html = "<div>" * 5000 + "<p>deep</p>" + "</div>" * 5000
    page = parse_page(f"<html><body>{html}</body></html>".encode())
    place = Places()
    assert all(place(block.element) >= 0 for block in page.blocks)


def test_an_article_rendered_for_two_screen_sizes_comes_out_once() -> None:
    header = "<header><h1>Ferries run again after the storms</h1></header>"
    copies = _copy('class="wide"', PARAGRAPHS) + _copy('class="narrow"', PARAGRAPHS)
    html = f"<html><head><title>Ferries</title></head><body>{header}{copies}</body></html>"
    body = extract_article(parse_page(html.encode(), "https://news.example.com/2026/ferries")).body
    assert body.count(PARAGRAPHS[1]) == 1
    assert all(text in body for text in PARAGRAPHS)


def _scored(html: str, scores: list[float]) -> tuple[list[str], tuple[int, ...]]:
    page = parse_page(f"<html><body>{html}</body></html>".encode())
    values = np.array(scores)
    kept = tuple(int(i) for i in np.flatnonzero(values >= 0.5))
    chosen = with_its_places(kept, page.blocks, values)
    return [block.text for block in page.blocks], chosen


CARD = '<div class="card"><h3>Pick</h3><p class="why">{}</p></div>'
LONG = [text for text in PARAGRAPHS if len(text) >= PLACE_PROSE_MIN_CHARS]


def test_a_paragraph_placed_as_a_confident_one_is_kept_whatever_its_score() -> None:
    html = "".join(CARD.format(text) for text in LONG)
    texts, chosen = _scored(html, [0.3, PLACE_CONFIDENT_SCORE, 0.3, 0.15, 0.3, 0.12])
    assert [texts[i] for i in chosen] == LONG


def test_a_paragraph_in_another_place_is_not_kept() -> None:
    html = CARD.format(LONG[0]) + f'<div class="sidebar"><p class="why">{LONG[1]}</p></div>'
    texts, chosen = _scored(html, [0.3, 0.95, 0.15])
    assert [texts[i] for i in chosen] == [LONG[0]]


def test_a_place_kept_with_less_confidence_vouches_for_nothing() -> None:
    html = "".join(CARD.format(text) for text in LONG[:2])
    _, chosen = _scored(html, [0.3, PLACE_CONFIDENT_SCORE - 0.05, 0.3, 0.15])
    assert chosen == (1,)


def test_a_short_line_or_a_link_in_the_place_is_not_kept() -> None:
    link = f'<a href="/more">{LONG[1]}</a>'
    html = CARD.format(LONG[0]) + CARD.format("Buy it now") + CARD.format(link)
    _, chosen = _scored(html, [0.3, 0.95, 0.3, 0.1, 0.3, 0.1])
    assert chosen == (1,)


def test_a_hidden_copy_of_the_whole_article_in_one_block_is_left_out() -> None:
    article = _copy('class="article"', PARAGRAPHS * 2)
    markdown = "# Ferries resume\n\n" + "\n\n".join(PARAGRAPHS * 2)
    html = f"<html><body>{article}<pre hidden>{markdown}</pre></body></html>"
    assert _kept_texts(html) == PARAGRAPHS * 2
    shown = f"<html><body>{article}<pre>{markdown}</pre></body></html>"
    assert len(_kept_texts(shown)) == 7  # a visible one stays: a forum post quoting posts

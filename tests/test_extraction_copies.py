"""Second copies of the article's text: left out when placed elsewhere, kept when repeated in
the same place."""

from __future__ import annotations

from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.copies import MIN_COPY_CHARS, place, without_copies

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


def test_place_reads_tag_class_and_id_up_to_the_root() -> None:
    page = parse_page(b'<html><body><div class="x" id="a1"><p>text</p></div></body></html>')
    assert place(page.blocks[0].element) == (
        ("p", "", ""),
        ("div", "x", "a"),
        ("body", "", ""),
        ("html", "", ""),
    )


def test_an_article_rendered_for_two_screen_sizes_comes_out_once() -> None:
    header = "<header><h1>Ferries run again after the storms</h1></header>"
    copies = _copy('class="wide"', PARAGRAPHS) + _copy('class="narrow"', PARAGRAPHS)
    html = f"<html><head><title>Ferries</title></head><body>{header}{copies}</body></html>"
    body = extract_article(parse_page(html.encode(), "https://news.example.com/2026/ferries")).body
    assert body.count(PARAGRAPHS[1]) == 1
    assert all(text in body for text in PARAGRAPHS)

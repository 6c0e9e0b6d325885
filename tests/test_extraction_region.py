"""The article as a region: the gaps between kept blocks inside the article's container."""

from __future__ import annotations

import numpy as np

from newsextract.extraction.features import read_blocks
from newsextract.extraction.page import parse_page
from newsextract.extraction.region import RegionConfig, gaps_filled

PARAGRAPH = "<p>The council met on Tuesday and agreed to open the new ferry line in May.</p>"


def _kept_after_filling(article: str, kept_paragraphs: tuple[int, ...]) -> list[str]:
    page = parse_page(f"<html><body><article>{article}</article><p>Footer</p></body></html>")
    texts = [block.text for block in page.blocks]
    scores = np.full(len(texts), 0.2)
    scores[list(kept_paragraphs)] = 0.9
    kept = gaps_filled(kept_paragraphs, read_blocks(page), scores, texts, RegionConfig())
    return [texts[i] for i in kept]


def test_a_subheading_and_short_lines_between_kept_paragraphs_are_the_article() -> None:
    article = PARAGRAPH + "<h3>Timetable</h3><p>Mon 9:00</p><p>Tue 10:00</p>"
    kept = _kept_after_filling(article + PARAGRAPH, (0, 4))
    assert kept[1:4] == ["Timetable", "Mon 9:00", "Tue 10:00"]
    assert "Footer" not in kept


def test_a_gallery_nested_deeper_and_link_lists_stay_out() -> None:
    gallery = (
        "<div class='gallery'><div><div><p>Photo 1 of 3</p><p>Photo 2 of 3</p></div></div></div>"
    )
    links = "<p><a href='/a'>Read more: the ferry timetable in full</a></p>"
    kept = _kept_after_filling(PARAGRAPH + gallery + links + PARAGRAPH, (0, 4))
    assert len(kept) == 2


def test_repeated_labels_stay_out() -> None:
    label = "<p>Buy Photo</p>"
    kept = _kept_after_filling(PARAGRAPH + label + "<p>Fullscreen</p>" + label + PARAGRAPH, (0, 4))
    assert "Buy Photo" not in kept
    assert "Fullscreen" in kept


def test_a_list_between_kept_paragraphs_is_the_article_but_a_nested_list_is_not() -> None:
    steps = "<ul><li>Buy a ticket at the pier</li><li>Board ten minutes early</li></ul>"
    kept = _kept_after_filling(PARAGRAPH + steps + PARAGRAPH, (0, 3))
    assert kept[1:3] == ["Buy a ticket at the pier", "Board ten minutes early"]
    boxed = "<div><ul><li>Most read: the new bridge</li></ul></div>"
    assert len(_kept_after_filling(PARAGRAPH + boxed + PARAGRAPH, (0, 2))) == 2

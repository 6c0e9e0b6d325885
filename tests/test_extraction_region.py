"""The article as a region: the gaps between kept blocks in its container, its lead, its tail."""

from __future__ import annotations

import numpy as np

from newsextract.extraction.decision.region import (
    TAIL_MAX_SCORE_DEFAULT,
    TAIL_MIN_DISTANCE_DEFAULT,
    RegionConfig,
    gaps_filled,
    lead_filled,
    prose_paragraphs,
    prose_runs,
    region_kept,
    without_tail,
)
from newsextract.extraction.evidence.classifier import title_blocks
from newsextract.extraction.pagemodel.blocktable import read_blocks
from newsextract.extraction.pagemodel.page import parse_page

PARAGRAPH = "<p>The council met on Tuesday and agreed to open the new ferry line in May.</p>"


def _kept_after_filling(
    article: str, kept_paragraphs: tuple[int, ...], gap_score: float = 0.2
) -> list[str]:
    page = parse_page(f"<html><body><article>{article}</article><p>Footer</p></body></html>")
    texts = [block.text for block in page.blocks]
    scores = np.full(len(texts), gap_score)
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


def test_paragraphs_in_list_items_and_a_sublist_are_the_article() -> None:
    steps = "<ul><li><p>Buy a ticket at the pier</p></li><li><p>Board early</p></li></ul>"
    kept = _kept_after_filling(PARAGRAPH + steps + PARAGRAPH, (0, 3))
    assert kept[1:3] == ["Buy a ticket at the pier", "Board early"]
    items = "<ul><li>Board early<ul><li>Ten minutes before the ferry leaves</li></ul></li></ul>"
    kept = _kept_after_filling(PARAGRAPH + items + PARAGRAPH, (0, 3))
    assert kept[1:3] == ["Board early", "Ten minutes before the ferry leaves"]


def test_a_list_between_kept_paragraphs_is_the_article_however_low_it_scored() -> None:
    steps = "<ul><li>Buy a ticket at the pier</li><li>Board ten minutes early</li></ul>"
    kept = _kept_after_filling(PARAGRAPH + steps + PARAGRAPH, (0, 3), gap_score=0.02)
    assert kept[1:3] == ["Buy a ticket at the pier", "Board ten minutes early"]
    lines = "<p>Mon 9:00</p><p>Tue 10:00</p>"
    assert len(_kept_after_filling(PARAGRAPH + lines + PARAGRAPH, (0, 3), gap_score=0.02)) == 2


def _kept_beside_an_essay(first: str) -> list[str]:
    # An essay in one <p> that the classifier left out; only the block above it was kept.
    essay = " ".join(["The council met on Tuesday and agreed to open the ferry line in May."] * 30)
    page = parse_page(f"<html><body><p>{first}</p><div><p>{essay}</p></div></body></html>")
    table = read_blocks(page)
    texts = [block.text for block in page.blocks]
    scores = np.array([0.9, 0.3])
    kept = region_kept((0,), table, np.zeros(2), RegionConfig(), scores, texts)
    return [texts[i][:10] for i in kept]


def test_a_long_paragraph_is_the_article_when_the_body_is_a_title_line() -> None:
    assert _kept_beside_an_essay("Roads (II)") == ["Roads (II)", "The counci"]
    post = "I have two invites to give away: drop me a short note on how you help others."
    assert _kept_beside_an_essay(post) == [post[:10]]


def _kept_after_lead(page_html: str, kept_paragraphs: tuple[int, ...]) -> list[str]:
    page = parse_page(page_html)
    table = read_blocks(page)
    texts = [block.text for block in page.blocks]
    scores = np.full(len(texts), 0.2)
    scores[list(kept_paragraphs)] = 0.9
    config = RegionConfig()
    prose = prose_paragraphs(table, np.zeros(len(texts)), config)
    kept = lead_filled(kept_paragraphs, table, prose, scores, texts, title_blocks(page), config)
    return [texts[i] for i in kept]


LEAD = (
    "<div class='teaser'><p>Thousands of travellers cross the old station every day, and from"
    " May they will pass a tower of wishes built by the zoo.</p></div>"
)


def test_the_lead_between_the_headline_and_the_body_is_the_article() -> None:
    html = (
        "<html><head><title>A tower of wishes</title></head><body><article>"
        f"<h1>A tower of wishes</h1><p>12 May 2022</p>{LEAD}"
        f"<div class='body'>{PARAGRAPH}{PARAGRAPH}</div></article><p>Footer</p></body></html>"
    )
    kept = _kept_after_lead(html, (3, 4))
    assert kept[0].startswith("Thousands of travellers")
    assert "12 May 2022" not in kept  # a dateline is no prose


def test_a_teaser_link_between_the_headline_and_the_body_is_no_lead() -> None:
    teaser = (
        "<p><a href='/other'>Also read: the council met on Monday and agreed to close the old"
        " ferry line in June, after twelve years of service.</a></p>"
    )
    html = (
        "<html><head><title>A tower of wishes</title></head><body><article>"
        f"<h1>A tower of wishes</h1>{teaser}"
        f"<div class='body'>{PARAGRAPH}{PARAGRAPH}</div></article></body></html>"
    )
    assert len(_kept_after_lead(html, (2, 3))) == 2


def _kept_without_tail(distance: int, tail_score: float) -> list[str]:
    filler = "".join(f"<p>Share {i}</p>" for i in range(distance))
    popular = "".join(
        f"<li><p>Most read {i}: the council met again and agreed to close the old ferry"
        f" line in June after twelve years of service.</p></li>"
        for i in range(3)
    )
    page = parse_page(
        f"<html><body><article>{PARAGRAPH * 9}</article>{filler}<ul>{popular}</ul></body></html>"
    )
    table = read_blocks(page)
    texts = [block.text for block in page.blocks]
    scores = np.full(len(texts), 0.05)
    scores[:9] = 0.95  # a run of prose: 9 paragraphs, 600 characters and more
    scores[-3:] = tail_score
    kept = tuple(int(i) for i in np.flatnonzero(scores >= 0.5))
    config = RegionConfig()
    runs = prose_runs(table, prose_paragraphs(table, np.zeros(len(texts)), config), config)
    return [texts[i] for i in without_tail(kept, table, runs, scores, config)]


def test_a_low_scored_box_far_after_the_article_is_left_out() -> None:
    assert len(_kept_without_tail(TAIL_MIN_DISTANCE_DEFAULT + 1, 0.55)) == 9


def test_a_tail_near_the_article_or_scored_high_stays() -> None:
    assert len(_kept_without_tail(TAIL_MIN_DISTANCE_DEFAULT - 1, 0.55)) == 12
    assert len(_kept_without_tail(TAIL_MIN_DISTANCE_DEFAULT + 1, TAIL_MAX_SCORE_DEFAULT)) == 12

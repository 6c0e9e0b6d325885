"""The combiner: the product's single-page answer, its thresholds and its hostile inputs."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newsextract.exceptions import NotHTMLError
from newsextract.extraction import Page, extract_article, parse_page
from newsextract.extraction.decision.combiner import (
    ARTICLE_BODY_CONFIRM_DEFAULT,
    ARTICLE_BODY_DEMOTION_DEFAULT,
    DEFAULT,
    MAX_KEPT_LINK_SHARE_DEFAULT,
    MIN_ARTICLE_BODY_OVERLAP_DEFAULT,
    MIN_BODY_CHARS_DEFAULT,
    NOT_FOUND_MAX_CHARS_DEFAULT,
    ArticleBodyText,
    CombinerConfig,
    article_body_text,
    combined_scores,
    keep_blocks,
)
from newsextract.extraction.decision.region import RegionConfig
from newsextract.extraction.evidence.classifier import block_evidence
from newsextract.extraction.pagemodel.blocks import Block

PARAGRAPH = (
    "Ferry services to the islands resumed on Monday morning after three days of storms kept "
    "every boat in harbour, the operator said. Engineers checked the piers overnight and found "
    "no lasting damage, although one landing stage will stay closed until Friday."
)
NAV = '<ul id="menu">' + "".join(f'<li><a href="/s/{i}">Menu {i}</a></li>' for i in range(10))
NAV += "</ul>"


def _article(extra_head: str = "") -> str:
    paragraphs = "".join(f"<p>{PARAGRAPH} ({i})</p>" for i in range(4))
    return (
        f'<html lang="en"><head><title>Ferry resumes | Daily</title>{extra_head}</head><body>'
        f"{NAV}<article><h1>Ferry resumes after storm</h1>"
        f'<p class="byline">By Ann Lee</p>{paragraphs}</article>'
        '<div class="footer"><a href="/about">About us</a> <a href="/jobs">Jobs</a></div>'
        "</body></html>"
    )


def test_article_body_in_document_order_one_paragraph_a_line() -> None:
    article = extract_article(parse_page(_article(), url="https://example.org/2026/11/20/f"))
    lines = article.body.split("\n")
    paragraphs = [line for line in lines if line.startswith("Ferry services")]
    assert [line[-3:] for line in paragraphs] == ["(0)", "(1)", "(2)", "(3)"]
    assert "Menu 3" not in article.body and "Jobs" not in article.body
    assert article.headline == "Ferry resumes after storm"  # the h1 before the <title>
    assert "Ferry resumes after storm" not in article.body  # the body leaves it out
    assert article.language == "en"
    assert article.date_published == "2026-11-20"
    assert article.method.startswith("single:classifier")
    assert 0.5 < article.confidence <= 1.0
    assert list(article.kept_blocks) == sorted(article.kept_blocks)


def test_index_page_gives_an_empty_body() -> None:
    teasers = "".join(
        f'<li><a href="/a/{i}">A headline about something that happened, number {i}</a></li>'
        for i in range(30)
    )
    article = extract_article(parse_page(f"<html><body>{NAV}<ul>{teasers}</ul></body></html>"))
    assert article.body == ""
    assert article.kept_blocks == ()
    assert article.confidence == 0.0


def test_not_found_page_gives_an_empty_body() -> None:
    body = "<p>Sorry, the page you asked for has moved or never existed at all.</p>"
    page = parse_page(f"<html><body>{NAV}<h1>Page not found</h1>{body}</body></html>")
    assert extract_article(page).body == ""
    page = parse_page(f"<html><head><title>404</title></head><body>{body}</body></html>")
    assert extract_article(page).body == ""


@pytest.mark.parametrize(("extra", "kept"), [(0, False), (NOT_FOUND_MAX_CHARS_DEFAULT, True)])
def test_error_page_rule_only_for_short_bodies(extra: int, kept: bool) -> None:
    page = parse_page(
        "<title>Not found</title><p>" + "x" * (NOT_FOUND_MAX_CHARS_DEFAULT - 1 + extra)
    )
    assert bool(keep_blocks(page, np.array([0.9]), 0.5, DEFAULT)) is kept


def test_json_ld_article_body_is_used_as_evidence() -> None:
    text = " ".join([PARAGRAPH] * 2)
    head = (
        '<script type="application/ld+json">'
        + json.dumps(
            {"@type": "NewsArticle", "headline": "Ferry resumes after storm", "articleBody": text}
        )
        + "</script>"
    )
    page = parse_page(_article(head))
    assert article_body_text(page, DEFAULT).words
    article = extract_article(page)
    assert article.method == "single:classifier+json-ld"
    assert article.headline == "Ferry resumes after storm"
    assert PARAGRAPH in article.body


def test_short_article_body_is_a_teaser_not_evidence() -> None:
    head = '<script type="application/ld+json">{"articleBody": "Ferry resumes."}</script>'
    assert article_body_text(parse_page(_article(head)), DEFAULT).words == frozenset()


def test_coverage_counts_four_word_runs_and_words_of_short_texts() -> None:
    words = ["the", "ferry", "resumed", "on", "monday", "after", "the", "storm"]
    runs = frozenset(tuple(words[i : i + 4]) for i in range(len(words) - 3))
    reference = ArticleBodyText(frozenset(words), runs, len(words))
    texts = ["The ferry resumed on Monday", "resumed on Tuesday after all", "ferry x", ""]
    assert list(reference.coverage(texts)) == [1.0, 0.0, 0.5, 0.0]


@pytest.mark.parametrize(
    ("chars", "kept"),
    [
        (MIN_BODY_CHARS_DEFAULT - 1, False),
        (MIN_BODY_CHARS_DEFAULT, True),
        (MIN_BODY_CHARS_DEFAULT + 1, True),
    ],
)
def test_minimum_body_length_on_both_sides(chars: int, kept: bool) -> None:
    page = parse_page(f"<p>{'x' * chars}</p>")
    assert bool(keep_blocks(page, np.array([0.9]), 0.5, DEFAULT)) is kept


@pytest.mark.parametrize(("link_chars", "kept"), [(79, True), (80, True), (81, False)])
def test_a_body_of_links_is_no_article(link_chars: int, kept: bool) -> None:
    assert MAX_KEPT_LINK_SHARE_DEFAULT == 0.8
    links = "y" * link_chars
    page = parse_page(f"<p>{'x' * (100 - link_chars)}<a href='/'>{links}</a></p>")
    assert bool(keep_blocks(page, np.array([0.9]), 0.5, DEFAULT)) is kept


@pytest.mark.parametrize(("score", "kept"), [(0.49, False), (0.5, True), (0.51, True)])
def test_threshold_on_both_sides(score: float, kept: bool) -> None:
    page = parse_page(f"<p>{'x' * 200}</p>")
    assert bool(keep_blocks(page, np.array([score]), 0.5, DEFAULT)) is kept


def test_config_threshold_overrides_the_model() -> None:
    page = parse_page(_article())
    everything = extract_article(page, CombinerConfig(threshold=0.0, min_body_chars=0))
    assert len(everything.kept_blocks) == len(page.blocks) - 1  # all but the headline
    no_region = RegionConfig(fill_runs=False, rescue=False)
    nothing = extract_article(page, CombinerConfig(threshold=1.01, region=no_region))
    assert nothing.body == ""
    rescued = extract_article(page, CombinerConfig(threshold=1.01))
    assert rescued.body.count(PARAGRAPH) == 4  # a long run of prose never comes out empty


@pytest.mark.parametrize(("paragraphs", "kept"), [(8, True), (5, False)])
def test_a_page_whose_whole_text_is_one_long_paragraph_is_its_article(
    paragraphs: int, kept: bool
) -> None:
    chapter = " ".join([PARAGRAPH] * paragraphs)  # over 2,000 characters only with 8
    page = parse_page(f"<html><body><p>{chapter}</p><p>Contact us</p></body></html>")
    body = extract_article(page, CombinerConfig(threshold=1.01)).body
    assert body == (chapter if kept else "")


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"\x00" * 100,
        b"<html",
        b"<p>truncated <b>bold",
        "<p>caf\u00e9</p>".encode("cp1252"),
        b"<p>" + b"\xff\xfe" * 50 + b"</p>",
        b'<div title="' + b"a" * 200_000 + b'">x</div>',
        b"<table>" * 3000 + b"deep",
        "<p>\u6771\u4eac</p>".encode("shift_jis"),
    ],
)
def test_hostile_pages_give_a_result_or_a_typed_error(body: bytes) -> None:
    try:
        page = parse_page(body)
    except NotHTMLError:
        return
    article = extract_article(page)
    assert isinstance(article.body, str)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("<>/ap divbr\"='&;.x\u3002\u6771\x00")), max_size=400))
def test_random_markup_never_crashes(markup: str) -> None:
    try:
        page = parse_page(markup)
    except NotHTMLError:
        return
    article = extract_article(page)
    for index in article.kept_blocks:
        assert index >= 0


def _json_ld_page(paragraphs: int = 4) -> Page:
    text = " ".join(f"{PARAGRAPH} ({i})" for i in range(paragraphs))
    head = '<script type="application/ld+json">' + json.dumps({"articleBody": text}) + "</script>"
    return parse_page(_article(head))


def test_a_complete_article_body_demotes_the_blocks_it_does_not_cover() -> None:
    page = _json_ld_page()
    evidence = block_evidence(page)
    scores = combined_scores(page, evidence, DEFAULT)
    coverage = article_body_text(page, DEFAULT).coverage([b.text for b in page.blocks])
    demoted = coverage < MIN_ARTICLE_BODY_OVERLAP_DEFAULT
    assert demoted.any() and not demoted.all()
    expected = np.where(demoted, evidence.final * ARTICLE_BODY_DEMOTION_DEFAULT, evidence.final)
    assert np.allclose(scores[demoted], expected[demoted])
    confirmed = (coverage >= ARTICLE_BODY_CONFIRM_DEFAULT) & (evidence.table.words >= 5)
    assert confirmed.sum() == 4 and (scores[confirmed] >= 0.5).all()


def test_an_article_body_that_is_a_prefix_demotes_nothing() -> None:
    page = _json_ld_page(paragraphs=2)
    evidence = block_evidence(page)
    scores = combined_scores(page, evidence, DEFAULT)
    assert (scores >= evidence.final).all()
    assert extract_article(page).body.count(PARAGRAPH) == 4


def test_article_body_is_the_fallback_when_the_classifier_keeps_nothing() -> None:
    page = _json_ld_page()
    strict = CombinerConfig(threshold=0.99999)
    assert not (block_evidence(page).final >= strict.threshold).any()
    body = extract_article(page, strict).body.split("\n")
    assert len(body) == 4 and all(line.startswith(PARAGRAPH) for line in body)


def test_a_reference_passed_in_gives_the_scores_it_would_read() -> None:
    page = _json_ld_page()
    evidence = block_evidence(page)
    reference = article_body_text(page, DEFAULT)
    given = combined_scores(page, evidence, DEFAULT, 0.5, reference)
    assert np.array_equal(given, combined_scores(page, evidence, DEFAULT, 0.5))
    nothing = ArticleBodyText(frozenset(), frozenset(), 0)
    unchanged = combined_scores(page, evidence, DEFAULT, 0.5, nothing)
    assert np.array_equal(unchanged, evidence.final)
    assert not np.array_equal(given, evidence.final)


def _teaser_cards(headed: int, summary: str = PARAGRAPH[:120], link: bool = True) -> str:
    def heading(i: int) -> str:
        return f"<h3><a href='/story/{i}'>Story {i}</a></h3>" if link else f"<h3>Story {i}</h3>"

    cards = "".join(
        f"<li>{heading(i) if i < headed else ''}<p>{summary} ({i})</p></li>" for i in range(4)
    )
    return f"<html><head><title>Story 0</title></head><body><ul>{cards}</ul></body></html>"


def _kept_where(page: Page, wanted: Callable[[Block], bool]) -> tuple[int, ...]:
    scores = np.where([wanted(block) for block in page.blocks], 0.9, 0.0)
    return keep_blocks(page, scores, 0.5, DEFAULT)


@pytest.mark.parametrize(("headed", "kept"), [(4, False), (3, False), (2, True)])
def test_one_teaser_of_an_index_page_is_no_article(headed: int, kept: bool) -> None:
    page = parse_page(_teaser_cards(headed))
    assert bool(_kept_where(page, lambda block: block.text.endswith("(0)"))) is kept


def test_a_few_teasers_and_their_section_headings_are_no_article() -> None:
    sections = "".join(
        f"<h2>Section {s}</h2><ul>"
        + "".join(
            f"<li><h4><a href='/story/{s}{i}'>Story {s}{i}</a></h4><p>{PARAGRAPH[:90]}</p></li>"
            for i in range(3)
        )
        + "</ul>"
        for s in range(3)
    )
    page = parse_page(f"<html><body>{sections}</body></html>")
    first_section = [i for i, block in enumerate(page.blocks) if block.tag == "p"][:3]
    kept = _kept_where(page, lambda block: block.tag == "h2" or block.index in first_section)
    assert kept == ()


def test_summaries_under_linked_headings_are_teasers_two_together_or_under_another_title() -> None:
    stories = "".join(
        f"<div><h2><a href='/story/{i}'>Story {i}</a></h2><p>{PARAGRAPH[:150]}</p></div>"
        for i in range(3)
    )
    page = parse_page(
        f"<html><head><title>Story 0 | Blog</title></head><body>{stories}</body></html>"
    )
    summaries = [i for i, block in enumerate(page.blocks) if block.tag == "p"]
    assert _kept_where(page, lambda block: block.index in summaries[:2]) == ()
    one_post = _kept_where(page, lambda block: block.index == summaries[0])
    assert one_post == (summaries[0],)  # a short post under its own title's permalink
    assert _kept_where(page, lambda block: block.index == summaries[1]) == ()


def test_bodies_longer_than_teasers_or_under_plain_headings_are_kept() -> None:
    longer = parse_page(_teaser_cards(4, summary=PARAGRAPH + PARAGRAPH))
    assert len(_kept_where(longer, lambda block: block.tag == "p")) == 4
    coupons = parse_page(_teaser_cards(4, link=False))
    assert len(_kept_where(coupons, lambda block: block.tag == "p")) == 4

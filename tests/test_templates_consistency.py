"""Site mode's combination: single-page answers checked against the site's other pages
(consistency.py), and the rules narrowed by them with the head above the region (combine.py)."""

from __future__ import annotations

import doctest

from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.extraction.record.article import Article
from newsextract.templates import consistency
from newsextract.templates.combine import CONSISTENT_METHOD, combine, narrowed
from newsextract.templates.consistency import (
    ConsistencyConfig,
    PageVerdict,
    block_places,
    consistent_kept,
)

STORY = "The council met on Tuesday to agree the budget for the new school and the bridge."
SIDE = "Weather today with sunny spells and a light breeze from the west coast later."


def site_page(n: int) -> Page:
    """Block 0: the story paragraph; block 1: a sidebar line (ids with digits fold away)."""
    html = (
        f"<html><body><div class='story' id='story-{n}'><p>{STORY} {n}</p></div>"
        f"<div class='side'><p>{SIDE} {n}</p></div></body></html>"
    )
    return parse_page(html, f"https://example.com/{n}")


def verdicts(first_side: float, others_side: float, count: int = 4) -> list[PageVerdict]:
    """Every page keeps its story (0.9); the first page keeps its sidebar too."""
    made = []
    for n in range(count):
        side = first_side if n == 0 else others_side
        kept = (0, 1) if n == 0 else (0,)
        made.append(PageVerdict(site_page(n), kept, (0.9, side)))
    return made


def test_doctests_pass() -> None:
    failures, tried = doctest.testmod(consistency)
    assert tried and not failures


def test_places_fold_digits_and_name_classes_and_ids() -> None:
    assert block_places(site_page(7)) == ("div.story#story-#/p", "div.side/p")
    assert block_places(site_page(7)) == block_places(site_page(1234))


def test_a_block_the_other_pages_drop_is_dropped() -> None:
    # own 0.6, others 0.1: 0.5 * 0.6 + 0.5 * 0.1 = 0.35 < 0.5
    kept = consistent_kept(verdicts(0.6, 0.1), 0.5)
    assert kept == [(0,), (0,), (0,), (0,)]


def test_the_blend_is_tested_on_both_sides_of_the_threshold() -> None:
    # own 0.9, others 0.1: a blend of 0.5 is kept; own 0.88: 0.49 is not
    assert consistent_kept(verdicts(0.9, 0.1), 0.5)[0] == (0, 1)
    assert consistent_kept(verdicts(0.88, 0.1), 0.5)[0] == (0,)


def test_a_place_seen_on_too_few_other_pages_does_not_vote() -> None:
    config = ConsistencyConfig(min_other_pages=2)
    assert consistent_kept(verdicts(0.6, 0.1, count=2), 0.5, config)[0] == (0, 1)
    assert consistent_kept(verdicts(0.6, 0.1, count=3), 0.5, config)[0] == (0,)


def test_blocks_are_never_added() -> None:
    # the other pages keep their sidebars (0.95), yet a page that dropped its own stays so
    made = [PageVerdict(site_page(0), (0,), (0.9, 0.2))]
    made += [PageVerdict(site_page(n), (0, 1), (0.9, 0.95)) for n in range(1, 4)]
    kept = consistent_kept(made, 0.5)
    assert kept[0] == (0,) and kept[1:] == [(0, 1)] * 3


def test_a_page_does_not_vote_for_itself() -> None:
    # the sidebar's own score is not part of its place's mean: 0.5 * 0.6 + 0.5 * 0.3 < 0.5
    made = verdicts(0.6, 0.3)
    assert consistent_kept(made, 0.5)[0] == (0,)


HEAD_PAGE = parse_page(
    "<html><body><div class='top'>Example News</div>"
    "<h1>Headline of the story about the bridge</h1>"
    f"<div id='main'><p>{STORY}</p><p>{SIDE}</p></div>"
    "<div class='comments'><p>First comment on the story here.</p></div></body></html>"
)


def test_combine_keeps_the_head_above_the_region_unless_it_is_template() -> None:
    rules = Article(url=None, body="", method="rules", kept_blocks=(2, 3))
    single = Article(url=None, body="", method="single", kept_blocks=(0, 1, 2, 3, 4))
    combined = combine(HEAD_PAGE, rules, single, template=frozenset({0}), region_start=2)
    assert combined.kept_blocks == (1, 2, 3) and combined.method == "template+single"
    assert combined.body.splitlines()[0] == "Headline of the story about the bridge"
    # block 4 (a comment below the region) is left out; without template, block 0 is head
    assert combine(HEAD_PAGE, rules, single, region_start=2).kept_blocks == (0, 1, 2, 3)


def test_combine_leaves_out_what_the_rules_drop_inside_the_region() -> None:
    rules = Article(url=None, body="", method="rules", kept_blocks=(2,))
    single = Article(url=None, body="", method="single", kept_blocks=(1, 2, 3))
    assert combine(HEAD_PAGE, rules, single, region_start=2).kept_blocks == (1, 2)


def test_combine_trusts_the_rules_when_the_single_answer_misses_the_region() -> None:
    rules = Article(url=None, body="", method="rules", kept_blocks=(2, 3))
    single = Article(url=None, body="", method="single", kept_blocks=(0, 1))
    assert combine(HEAD_PAGE, rules, single, region_start=2) is rules


def test_narrowed_keeps_the_article_when_nothing_changes() -> None:
    single = Article(url=None, body="x", method="single", kept_blocks=(1, 2))
    assert narrowed(HEAD_PAGE, single, (1, 2)) is single
    changed = narrowed(HEAD_PAGE, single, (2,))
    assert changed.body == STORY and changed.method == CONSISTENT_METHOD


def test_places_of_bare_tags_do_not_vote() -> None:
    def bare(n: int) -> Page:
        html = f"<html><body><div><p>{STORY} {n}</p></div><td><p>{SIDE} {n}</p></td></body></html>"
        return parse_page(html, f"https://example.com/{n}")

    made = [PageVerdict(bare(0), (0, 1), (0.9, 0.6))]
    made += [PageVerdict(bare(n), (0,), (0.9, 0.1)) for n in range(1, 4)]
    assert block_places(made[0].page)[1] == "td/p"
    assert consistent_kept(made, 0.5)[0] == (0, 1)

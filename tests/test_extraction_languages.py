"""Single-page decisions that do not depend on having seen the page's language.

A made-up language (``made_up.py``: every letter mapped to another alphabet, the markup kept)
must keep at least nine tenths of each development set's F1; a long article in it, and one
whose JSON-LD ``articleBody`` is only its first paragraphs, must come out whole.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from devdata import require_set
from made_up import made_up, made_up_page

from newsextract.cli.train import DATASETS_DEFAULT
from newsextract.evaluation.conventions import HEADLINE_SETS, with_headline
from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import (
    PageScore,
    SnippetScore,
    score_page,
    score_snippets,
    summarise_set,
)
from newsextract.exceptions import NotHTMLError
from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.evidence.stopwords import StopWords

#: Pages drawn (with a fixed seed) from each set: enough for a stable F1, in a minute.
PAGES_PER_SET = 60
MIN_F1_RATIO = 0.9
SETS = DATASETS_DEFAULT

PARAGRAPHS = [
    "The council met on Tuesday evening to decide the future of the night bus service, which "
    "carried more passengers last winter than in any year since it began.",
    "Members heard from drivers, from the company that runs the buses and from people who use "
    "them to reach work in the hospitals and the bakeries before dawn.",
    "After two hours of debate the vote was close, and the chair had to count the hands twice "
    "before she could announce that the service would run until the spring.",
    "The decision costs the city a little more than it saves, but the members said that a town "
    "which works at night should be able to travel at night as well.",
    "Next month the company will publish a new timetable, with buses every twenty minutes on "
    "the main roads and every forty minutes on the quieter routes to the villages.",
    "Passengers who spoke after the meeting were pleased, though several asked why the last bus "
    "to the harbour still leaves before the ferries arrive from the islands.",
    "The chair promised to look at the harbour route again in the autumn, when the council will "
    "also decide whether to keep the extra buses that run on market days.",
    "Until then, the winter timetable stays in force, and tickets bought for it remain valid on "
    "every route of the network, by day and by night.",
]


def _page(paragraphs: list[str], json_ld_body: str = "") -> str:
    nav = "".join(f'<li><a href="/s/{i}">Section {i}</a></li>' for i in range(10))
    related = "".join(f'<li><a href="/r/{i}">Another story, number {i}</a></li>' for i in range(6))
    script = ""
    if json_ld_body:
        data = {"@type": "NewsArticle", "headline": "Night buses", "articleBody": json_ld_body}
        script = f'<script type="application/ld+json">{json.dumps(data)}</script>'
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return (
        f"<html><head><title>Night buses | The Daily</title>{script}</head><body>"
        f'<ul class="menu">{nav}</ul><div class="story"><h1>Night buses</h1>{body}</div>'
        f'<ul class="related">{related}</ul>'
        '<div class="footer">Copyright 2026 The Daily. All rights reserved.</div></body></html>'
    )


def test_a_long_article_in_an_unseen_language_comes_out_whole() -> None:
    paragraphs = [made_up(text) for text in PARAGRAPHS]
    article = extract_article(parse_page(made_up_page(_page(PARAGRAPHS).encode())))
    assert article.body.split("\n") == paragraphs


def _language(stops: StopWords, text: str) -> str:
    counts = Counter(text.lower().split())
    found = stops.page_language(list(counts), list(counts.values()), sum(counts.values()))
    return stops.languages[found.index] if found.index >= 0 else ""


def test_no_stop_list_knows_the_made_up_language() -> None:
    from newsextract.extraction.evidence.classifier import default_model

    stops: StopWords = default_model().stop_words
    assert len(stops.languages) >= 90
    assert _language(stops, " ".join(made_up(text) for text in PARAGRAPHS)) == ""
    assert _language(stops, " ".join(PARAGRAPHS)) in ("English", "Simple_English")


@pytest.mark.parametrize("prefix", [2, 3])
def test_a_json_ld_article_body_that_is_a_prefix_keeps_the_whole_article(prefix: int) -> None:
    page = parse_page(_page(PARAGRAPHS, json_ld_body=" ".join(PARAGRAPHS[:prefix])))
    article = extract_article(page)
    assert article.body.split("\n") == PARAGRAPHS
    assert article.method == "single:classifier+json-ld"


def test_the_body_leaves_the_headline_out() -> None:
    article = extract_article(parse_page(_page(PARAGRAPHS)))
    assert article.headline.startswith("Night buses")
    assert not article.body.startswith("Night buses")


def _sample(folder: Path) -> list[ManifestEntry]:
    entries = list(read_manifest(folder))
    random.Random(20261201).shuffle(entries)
    return entries[:PAGES_PER_SET]


def _body(html: bytes, entry: ManifestEntry, dataset: str) -> str:
    try:
        article = extract_article(parse_page(html, url=entry.url))
    except NotHTMLError:
        return ""
    if dataset in HEADLINE_SETS:
        return with_headline(article.body, article.headline)
    return article.body


def _scores(entry: ManifestEntry, body: str, made: str) -> tuple[PageScore | SnippetScore, ...]:
    if entry.has_snippet_gold:
        wanted, unwanted = entry.wanted_snippets, entry.unwanted_snippets
        return (
            score_snippets(body, wanted, unwanted),
            score_snippets(made, [made_up(s) for s in wanted], [made_up(s) for s in unwanted]),
        )
    gold = entry.read_gold()
    return score_page(body, gold, entry.lang), score_page(made, made_up(gold), entry.lang)


@pytest.mark.accuracy
@pytest.mark.parametrize("dataset", SETS)
def test_a_made_up_language_keeps_nine_tenths_of_the_f1(shared_data: Path, dataset: str) -> None:
    folder = require_set(shared_data, dataset)
    original, mapped = [], []
    for entry in _sample(folder):
        html = entry.read_html()
        try:
            made_html = made_up_page(html)
        except NotHTMLError:
            made_html = b""
        body, made = _body(html, entry, dataset), _body(made_html, entry, dataset)
        scores = _scores(entry, body, made)
        original.append(scores[0])
        mapped.append(scores[1])
    before, after = summarise_set(original).f1, summarise_set(mapped).f1
    assert after >= MIN_F1_RATIO * before, f"{dataset}: F1 {before:.3f} -> {after:.3f}"

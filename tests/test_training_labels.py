"""Block labels from gold text: whole-text gold by shingles, snippet gold by the snippets."""

from __future__ import annotations

import pytest

from newsextract.training.labels import CONTENT_LABEL_DEFAULT, label_blocks, label_snippets


def test_labels_are_the_share_of_shingles_in_the_gold_text() -> None:
    gold = "one two three four five six short line seven eight nine ten"
    labels = label_blocks(
        [
            "one two three four five six",
            "short line",
            "seven eight nine ten",
            "one two three four eleven twelve",
            "!!",
        ],
        gold,
        "en",
    )
    assert list(labels) == [1.0, 1.0, 1.0, pytest.approx(1 / 3), 0.0]


def test_short_blocks_are_judged_with_their_neighbours() -> None:
    gold = "Mon is the day the story begins and it goes on"
    labels = label_blocks(["M", "T", "W", "the story begins and it goes on"], gold, "en")
    assert list(labels) == [0.0, 0.0, 0.0, 1.0]
    assert list(label_blocks(["Title only"], "Title only", "en")) == [1.0]


def test_labels_of_cjk_pages_count_characters() -> None:
    labels = label_blocks(["東京都は晴れ", "大阪は雨"], "東京都は晴れです", "ja")
    assert labels[0] == 1.0 and labels[1] == 0.0
    assert CONTENT_LABEL_DEFAULT == 0.5


def test_snippet_gold_labels_only_the_blocks_that_hold_a_snippet() -> None:
    texts = [
        "Home | News | Sport",
        "The ferry resumed its crossings on Monday after a week of storms.",
        "Impressum",
        "A long footer line with the site's address and opening hours.",
    ]
    labels = label_snippets(texts, ["ferry resumed its crossings"], ["Impressum", "opening hours"])
    assert labels.known.tolist() == [False, True, True, True]
    assert labels.label.tolist() == [0.0, 1.0, 0.0, 0.0]


def test_a_block_inside_a_long_snippet_is_content_and_a_wanted_snippet_wins() -> None:
    snippet = "First sentence of the story. Second sentence, which ends the paragraph."
    texts = ["First sentence of the story.", "Second sentence, which ends the paragraph."]
    labels = label_snippets(texts, [snippet], [])
    assert labels.label.tolist() == [1.0, 1.0]
    both = label_snippets(
        ["Read the story of the ferry here"], ["story of the ferry"], ["Read the"]
    )
    assert both.label.tolist() == [1.0]


def test_short_snippets_do_not_label_paragraphs_that_merely_contain_them() -> None:
    labels = label_snippets(["On 31. Mai the council met to vote on the budget."], [], ["31. Mai"])
    assert labels.known.tolist() == [False]

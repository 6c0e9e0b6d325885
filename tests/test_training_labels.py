"""Block labels from gold text: whole-text gold by shingles, snippet gold by the snippets."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsextract.evaluation.dataset import ManifestEntry
from newsextract.training.labels import CONTENT_LABEL_DEFAULT, label_blocks, label_snippets
from newsextract.training.samples import PageSample, load_page


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


def _listing_sample(tmp_path: Path, prose: str) -> PageSample:
    items = [f"Story number {i} of the week" for i in range(4)]
    links = "".join(f'<li><a href="/s/{i}">{item}</a></li>' for i, item in enumerate(items))
    html = tmp_path / "page.html"
    gold = tmp_path / "page.txt"
    html.write_text(f"<html><body><p>{prose}</p><ul>{links}</ul></body></html>")
    gold.write_text("\n".join([prose, *items]))
    sample = load_page(ManifestEntry("p", None, html, gold, "en", {}), "set")
    assert sample is not None and list(sample.label) == [1.0] * 5
    return sample


def test_the_links_of_a_gold_that_is_mostly_links_teach_nothing(tmp_path: Path) -> None:
    # A listing page's gold keeps its items, each all link. The combiner calls such a body
    # no article, so its links weigh nothing; beside a paragraph of prose they weigh.
    listing = _listing_sample(tmp_path, "Latest")
    assert list(listing.weight[1:]) == [0.0] * 4 and listing.weight[0] > 0
    prose = "The council voted on Tuesday to keep the library open for another year of work."
    article = _listing_sample(tmp_path, prose)
    assert all(article.weight > 0)

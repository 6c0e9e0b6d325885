"""The metric exactly as shared/data/README.md defines it."""

from __future__ import annotations

from collections import Counter

import pytest

from newsextract.evaluation.metric import PageScore, score_page, shingles, summarise, tokens


def test_tokens_are_unicode_word_runs_with_case_kept() -> None:
    assert tokens("Don't STOP, café-au-lait 4:30") == [
        "Don",
        "t",
        "STOP",
        "café",
        "au",
        "lait",
        "4",
        "30",
    ]


@pytest.mark.parametrize("lang", ["zh", "ja", "ko", "zh-Hans", "ja-JP", "KO"])
def test_cjk_is_tokenised_into_letters_and_digits(lang: str) -> None:
    assert tokens("東京、2024年_abc！", lang) == [
        "東",
        "京",
        "2",
        "0",
        "2",
        "4",
        "年",
        "a",
        "b",
        "c",
    ]


def test_other_languages_keep_word_tokens_even_for_cjk_text() -> None:
    assert tokens("東京、晴れ", "en") == ["東京", "晴れ"]


def test_shingles_are_a_multiset_of_four_token_runs() -> None:
    assert shingles(list("abcdab")) == Counter(
        {("a", "b", "c", "d"): 1, ("b", "c", "d", "a"): 1, ("c", "d", "a", "b"): 1}
    )
    assert shingles(list("aaaaa")) == Counter({("a", "a", "a", "a"): 2})


@pytest.mark.parametrize("count", [1, 2, 3])
def test_a_short_text_is_one_shingle(count: int) -> None:
    assert shingles(["w"] * count) == Counter({("w",) * count: 1})


def test_an_empty_text_has_no_shingles() -> None:
    assert shingles([]) == Counter()


def test_page_counts_true_and_false_positives_from_multisets() -> None:
    score = score_page("a b c d e f", "a b c d e x y")
    # predicted: abcd bcde cdef; gold: abcd bcde cdex dexy
    assert (score.tp, score.fp, score.fn) == (2, 1, 2)
    assert score.precision == pytest.approx(2 / 3)
    assert score.recall == pytest.approx(2 / 4)
    assert score.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert not score.exact


def test_repeated_shingles_count_up_to_the_smaller_count() -> None:
    score = score_page("x x x x x x", "x x x x x")  # 3 vs 2 copies of (x, x, x, x)
    assert (score.tp, score.fp, score.fn) == (2, 1, 0)


def test_exact_match_compares_token_lists_not_strings() -> None:
    assert score_page("Hello,   world!\n", "Hello world").exact
    assert not score_page("hello world", "Hello world").exact


def test_both_empty_scores_one() -> None:
    score = score_page("", "")
    assert (score.precision, score.recall, score.f1) == (1.0, 1.0, 1.0)
    assert not score.has_prediction and not score.has_gold


def test_empty_prediction_against_gold() -> None:
    score = score_page("", "some gold text here")
    assert (score.precision, score.recall) == (0.0, 0.0)
    assert not score.has_prediction and score.has_gold


def test_prediction_against_empty_gold() -> None:
    score = score_page("some predicted text here", "")
    assert (score.precision, score.recall) == (0.0, 0.0)
    assert score.has_prediction and not score.has_gold


def test_summary_means_precision_and_recall_over_their_own_pages_then_f1() -> None:
    pages = [
        PageScore(tp=3, fp=1, fn=0, exact=False),  # P 0.75, R 1
        PageScore(tp=0, fp=0, fn=4, exact=False),  # no prediction: recall only, R 0
        PageScore(tp=0, fp=2, fn=0, exact=False),  # no gold: precision only, P 0
        PageScore(tp=5, fp=0, fn=0, exact=True),  # P 1, R 1
    ]
    summary = summarise(pages)
    precision = (0.75 + 0 + 1) / 3
    recall = (1 + 0 + 1) / 3
    assert summary.precision == pytest.approx(precision)
    assert summary.recall == pytest.approx(recall)
    assert summary.f1 == pytest.approx(2 * precision * recall / (precision + recall))
    assert summary.exact_rate == pytest.approx(1 / 4)
    assert summary.share_f1_90 == pytest.approx(1 / 4)  # page 1 has F1 0.857
    assert summary.share_f1_99 == pytest.approx(1 / 4)


def test_f1_thresholds_are_inclusive() -> None:
    # P = R = 0.9 exactly: F1 0.9 counts as >= 0.9.
    summary = summarise([PageScore(tp=9, fp=1, fn=1, exact=False)])
    assert summary.share_f1_90 == 1.0
    assert summary.share_f1_99 == 0.0


def test_summary_of_no_pages() -> None:
    summary = summarise([])
    assert (summary.pages, summary.precision, summary.recall, summary.f1) == (0, 0.0, 0.0, 0.0)


def test_cjk_pages_are_scored_by_characters() -> None:
    score = score_page("東京は晴れです", "東京は晴れ", "ja")
    # predicted chars: 東京は晴れです -> 4 shingles; gold 東京は晴れ -> 2
    assert (score.tp, score.fp, score.fn) == (2, 2, 0)

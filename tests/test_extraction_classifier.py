"""Method E: features, the boosted trees, the language model, the shipped model."""

from __future__ import annotations

import dataclasses
import json
import pickle
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from newsextract.extraction.evidence import classifier, features
from newsextract.extraction.evidence._layout import CONTAINER_MIN_CHARS_DEFAULT
from newsextract.extraction.evidence._names import WordTable
from newsextract.extraction.evidence.arrayfile import pack_arrays, unpack_arrays, word_lines
from newsextract.extraction.evidence.boosting import TreeEnsemble
from newsextract.extraction.evidence.classifier import (
    MODEL_ARRAYS_FILE,
    MODEL_FILE,
    ClassifierModel,
    LanguageModel,
    classify_blocks,
    combine_posteriors,
    default_model,
    first_stage_feature_names,
    model_arrays,
    read_model,
    title_blocks,
)
from newsextract.extraction.evidence.context import context_feature_names, context_features
from newsextract.extraction.evidence.features import (
    feature_names,
    layout_features,
)
from newsextract.extraction.evidence.stopwords import NO_STOP_WORDS, StopWords
from newsextract.extraction.pagemodel import blocktable
from newsextract.extraction.pagemodel.blocktable import read_blocks
from newsextract.extraction.pagemodel.page import parse_page
from newsextract.training.boosting import BoostingConfig, fit_trees

PARAGRAPH = (
    "The council voted on Tuesday to extend the night bus service through the winter, "
    "after a year in which late-evening ridership rose by almost a third. Officials said the "
    "new timetable would start next month and run until the end of March."
)
NAV = (
    '<ul class="nav-menu">'
    + "".join(f'<li><a href="/s/{i}">Section {i}</a></li>' for i in range(12))
    + "</ul>"
)
FOOTER = '<div class="footer">Copyright 2026 The Daily. All rights reserved.</div>'


def _article(paragraphs: int = 5) -> str:
    body = "".join(f"<p>{PARAGRAPH} Paragraph {i}.</p>" for i in range(paragraphs))
    return (
        "<html><head><title>Night buses extended | The Daily</title>"
        '<meta property="og:title" content="Night buses extended"></head><body>'
        f'{NAV}<div class="article-body"><h1>Night buses extended</h1>{body}</div>'
        f'<div class="related"><a href="/x">Related: ferry resumes</a></div>{FOOTER}'
        "</body></html>"
    )


def test_feature_matrix_matches_the_names() -> None:
    page = parse_page(_article())
    table = read_blocks(page)
    x = layout_features(table)
    assert x.shape == (len(page.blocks), len(feature_names()))
    assert np.isfinite(x).all()
    p = np.linspace(0, 1, len(page.blocks))
    c = context_features(table, p, title_blocks(page))
    assert c.shape == (len(page.blocks), len(context_feature_names()))
    assert np.isfinite(c).all()


def test_features_of_an_empty_page() -> None:
    page = parse_page(b"")
    table = read_blocks(page)
    assert layout_features(table).shape == (0, len(feature_names()))
    assert classify_blocks(page).kept == ()


def test_text_counts_are_read_per_block() -> None:
    page = parse_page("<p>One. Two! Three?</p><p>no end here</p><p>Seen at 9:30 in 2012.</p>")
    table = read_blocks(page)
    names = feature_names()
    x = layout_features(table)
    ends = x[:, names.index("rate_sentence_end")] * table.chars
    assert np.allclose(ends, [3, 0, 1])
    assert list(x[:, names.index("rate_date_like")]) == [0, 0, 1]
    assert list(table.words) == [3, 3, 6]


def test_bylines_and_copyright_lines_are_found_per_block() -> None:
    page = parse_page(
        "<p>By Jane Doe</p><p>A story by Nobody Here</p><p>ALL RIGHTS RESERVED 2012</p>"
        "<p>\u00a9 The Daily</p><p>\u6771\u4eac\u3067\u8a18\u8005\u4f1a\u898b</p>"
        "<p>\u0130stanbul, copyright</p>"
    )
    x = layout_features(read_blocks(page))
    names = feature_names()
    assert list(x[:, names.index("rate_byline")]) == [1, 0, 0, 0, 1, 0]
    assert list(x[:, names.index("rate_copyright")]) == [0, 0, 1, 1, 0, 1]


def test_class_names_and_ancestor_tags_become_flags() -> None:
    page = parse_page(
        '<nav><p>Home and more</p></nav><div id="story-body"><p>Story text</p></div>'
        '<div class="comments"><p>A reader wrote</p></div>'
    )
    x = layout_features(read_blocks(page))
    names = feature_names()
    assert list(x[:, names.index("any_nav")]) == [1, 0, 0]
    assert list(x[:, names.index("near_positive")]) == [0, 1, 0]
    assert list(x[:, names.index("near_comment")]) == [0, 0, 1]


def test_responsive_layouts_and_the_pages_own_classes_are_no_comment_section() -> None:
    page = parse_page(
        '<html><body class="single-post has-comments wp-embed-responsive">'
        '<div class="table-responsive"><p>Story text</p></div>'
        '<div class="corporate-responsibility"><p>Our pledge</p></div>'
        '<ol class="commentlist"><li><p>A reader wrote</p></li></ol>'
        '<div class="responses"><p>Another reader</p></div></body></html>'
    )
    table = read_blocks(page)
    assert list(table.inside("comment")) == [False, False, True, True]


def test_the_pages_own_classes_mark_no_noise_and_ad_means_an_advert() -> None:
    page = parse_page(
        '<html class="has-sidebar"><body class="cookie-consent-given tweak-header-on">'
        '<div class="address"><p>12 Harbour Road</p></div>'
        '<div class="admin-notes advanced"><p>Story text</p></div>'
        '<div class="ad-slot"><p>Buy now</p></div>'
        '<div class="adbox"><p>Sale</p></div></body></html>'
    )
    assert list(read_blocks(page).inside("negative")) == [False, False, True, True]


def test_class_and_id_words_are_judged_word_by_word(monkeypatch: pytest.MonkeyPatch) -> None:
    page = parse_page(
        '<div class="almost-there"><p>one</p></div><div class="most-read"><p>two</p></div>'
        '<div id="page"><p>three</p></div><div class="homepage"><p>four</p></div>'
    )
    names = feature_names()
    for size in (blocktable.NAME_CACHE_SIZE_DEFAULT, 1):  # a full memo is emptied, same answer
        monkeypatch.setattr(blocktable.CLASS_NAMES, "size", size)
        x = layout_features(read_blocks(page))
        assert list(x[:, names.index("near_negative")]) == [0, 1, 0, 0]
        assert list(x[:, names.index("near_positive")]) == [0, 0, 1, 0]
    table = read_blocks(page)
    assert table.element_names[table.ancestors[0, 1]] == ("almost", "there")


@given(st.text(alphabet="ab-_ Z\u0130\u212a\u00e9x1", max_size=300), st.integers(1, 3))
def test_class_and_id_texts_are_read_as_the_regex_reads_them(text: str, size: int) -> None:
    names = blocktable.ClassNames(blocktable._word_bits, size)
    words = tuple(dict.fromkeys(re.findall(r"[a-z]{2,}", text[:200].lower())))
    bits = 0
    for word in words:
        bits |= blocktable._word_bits(word)
    assert names(text) == names(text) == (bits, words)


def test_ancestor_chains_follow_the_tree() -> None:
    page = parse_page("<div><section><p>a</p><p>b</p></section></div><p>c</p>")
    table = read_blocks(page)
    anc = table.ancestors
    assert anc[0, 1] == anc[1, 1]  # the two paragraphs share their section
    assert anc[0, 2] != anc[2, 1] and anc[0, 3] == anc[2, 1]  # div, then body
    assert (anc[:, 1:][anc[:, 1:] >= 0] < anc[:, :1].max() + 1).all()
    depth = (anc >= 0).sum(axis=1)
    assert list(depth) == [depth[2] + 2, depth[2] + 2, depth[2]]


def _boxes(article_paragraph: str) -> str:
    teasers = "".join(
        f"<li><a href='/t/{i}'>Teaser number {i} of the day</a></li>" for i in range(9)
    )
    return (
        f"<html><body><div id='a'><ul>{teasers}</ul></div>"
        f"<div id='b'><p>{article_paragraph}</p><p>{article_paragraph}</p></div>"
        "<div id='c'><p>Short note.</p></div></body></html>"
    )


def test_container_features_find_the_main_text_box() -> None:
    page = parse_page(_boxes(PARAGRAPH))
    x = layout_features(read_blocks(page))
    names = feature_names()
    column = {name: x[:, names.index(name)] for name in features.CONTAINER_FEATURE_NAMES}
    assert list(column["box_in_best"]) == [0] * 9 + [1, 1, 0]
    assert list(column["box_best_distance"]) == [-1] * 9 + [1, 1, -1]
    assert column["box_parent_ratio"][9] == 1.0 and column["box_parent_ratio"][0] == 0.0
    share = 2 * len(PARAGRAPH) / sum(len(b.text) for b in page.blocks)
    assert column["box_best_share"][0] == pytest.approx(share)
    # a paragraph holds a third of the text, its div two thirds; the note needs the body
    assert list(column["box_majority_distance"][9:]) == [1, 1, 2]


@pytest.mark.parametrize(
    ("length", "scored"),
    [(CONTAINER_MIN_CHARS_DEFAULT - 1, False), (CONTAINER_MIN_CHARS_DEFAULT, True)],
)
def test_short_blocks_give_their_box_no_score(length: int, scored: bool) -> None:
    page = parse_page(f"<div><p>{'x' * length}</p></div>")
    x = layout_features(read_blocks(page))
    assert x[0, feature_names().index("box_in_best")] == float(scored)


def test_deep_nesting_stays_bounded() -> None:
    depth = 5000
    html = "<div>" * depth + "<p>deep text here</p>" + "</div>" * depth
    page = parse_page(html)
    result = classify_blocks(page)
    assert all(0 <= i < len(page.blocks) for i in result.kept)


def test_boosting_learns_a_threshold_and_round_trips_through_json() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((2000, 3))
    y = (x[:, 1] > 0.6).astype(float)
    config = BoostingConfig(trees=40, depth=2, learning_rate=0.3, seed=3)
    model = fit_trees(x, y, np.ones(len(y)), config)
    predicted = model.predict(np.array([[0.5, 0.55, 0.5], [0.5, 0.65, 0.5], [0.1, 0.9, 0.9]]))
    assert predicted[0] < 0.1 and predicted[1] > 0.9 and predicted[2] > 0.9
    again = TreeEnsemble.from_json(json.loads(json.dumps(model.to_json())))
    assert np.allclose(again.predict(x[:50]), model.predict(x[:50]))


def test_thresholds_on_feature_values_survive_json() -> None:
    x = np.repeat([[0.0], [1 / 3], [2 / 3]], 200, axis=0)
    y = (x[:, 0] > 0.5).astype(float)
    config = BoostingConfig(trees=3, depth=1, bins=4, min_leaf_weight=1.0, subsample=1.0)
    model = fit_trees(x, y, np.ones(len(y)), config)
    assert model.thresholds[0, 0] == 1 / 3  # the cut sits on a value that rows hold
    again = TreeEnsemble.from_json(json.loads(json.dumps(model.to_json())))
    assert np.array_equal(again.thresholds, model.thresholds)
    assert np.allclose(again.logit(x), model.logit(x), atol=1e-5)


def test_boosting_is_reproducible() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.random((500, 4)), rng.random(500)
    config = BoostingConfig(trees=5, depth=3, seed=7)
    first = fit_trees(x, y, np.ones(500), config)
    second = fit_trees(x, y, np.ones(500), config)
    assert np.array_equal(first.leaves, second.leaves)


def test_combination_modes_of_the_paper() -> None:
    layout, language = np.array([0.9, 0.2]), np.array([0.1, 0.6])
    assert np.allclose(combine_posteriors(layout, language, "max", 0.7), [0.9, 0.6])
    assert np.allclose(combine_posteriors(layout, language, "weighted", 0.7), [0.66, 0.32])
    # a page the language model does not know: the layout classifier decides alone
    assert np.allclose(combine_posteriors(layout, language, "weighted", 0.7, 0.0), layout)
    assert np.allclose(combine_posteriors(layout, language, "weighted", 0.7, 0.5), [0.78, 0.26])
    assert np.allclose(combine_posteriors(layout, language, "max", 0.7, 0.49), layout)


def test_title_blocks() -> None:
    page = parse_page(_article())
    flags = title_blocks(page)
    assert [page.blocks[i].text for i in np.flatnonzero(flags)] == ["Night buses extended"]
    assert np.array_equal(title_blocks(page, read_blocks(page)), flags)


def test_shipped_model_loads_and_is_small() -> None:
    model = default_model()
    assert model.feature_names == first_stage_feature_names()
    assert model.feature_names[: len(feature_names())] == feature_names()
    assert model.combination in ("add", "weighted", "max")
    assert 0.0 < model.threshold < 1.0
    assert len(json.dumps(model.to_json())) < 2_000_000
    assert default_model() is model  # loaded once


MODELS = Path(classifier.__file__).parent / "models"
#: ``newsextract train --install`` writes the JSON and its arrays; this rewrites the arrays alone.
REWRITE_ARRAYS = (
    "the shipped arrays are not the shipped JSON's; rewrite them: python3 -c \"from pathlib import"
    " Path; from newsextract.extraction.evidence import classifier as c; d = Path(c.__file__)"
    ".parent / 'models'; (d / c.MODEL_ARRAYS_FILE).write_bytes(c.model_arrays((d / c.MODEL_FILE)"
    ".read_text('utf-8')))\""
)


def _same(mine: Any, theirs: Any) -> bool:
    """Equal to the last bit and of the same types, NaN included."""
    if isinstance(mine, np.ndarray):
        return (
            mine.dtype == theirs.dtype
            and mine.shape == theirs.shape
            and mine.tobytes() == theirs.tobytes()
        )
    if dataclasses.is_dataclass(mine):
        names = [field.name for field in dataclasses.fields(mine)]
        return type(mine) is type(theirs) and all(
            _same(getattr(mine, name), getattr(theirs, name)) for name in names
        )
    if isinstance(mine, Mapping) and not isinstance(mine, dict):  # read lazily: its items
        return isinstance(theirs, Mapping) and _same(dict(mine), dict(theirs))
    if isinstance(mine, dict | tuple):
        keys = list(mine) if isinstance(mine, dict) else range(len(mine))
        return (
            type(mine) is type(theirs)
            and len(mine) == len(theirs)
            and (not isinstance(mine, dict) or list(mine) == list(theirs))
            and all(_same(mine[key], theirs[key]) for key in keys)
        )
    if isinstance(mine, float) and mine != mine:
        return isinstance(theirs, float) and theirs != theirs
    return type(mine) is type(theirs) and bool(mine == theirs)


def test_the_shipped_arrays_are_the_shipped_json() -> None:
    shipped = unpack_arrays((MODELS / MODEL_ARRAYS_FILE).read_bytes())
    expected = unpack_arrays(model_arrays((MODELS / MODEL_FILE).read_text(encoding="utf-8")))
    assert shipped.keys() == expected.keys(), REWRITE_ARRAYS
    assert all(_same(shipped[name], expected[name]) for name in shipped), REWRITE_ARRAYS


def test_the_arrays_read_as_the_json_to_the_last_bit() -> None:
    text = (MODELS / MODEL_FILE).read_text(encoding="utf-8")
    from_json = ClassifierModel.from_json(json.loads(text))
    assert _same(ClassifierModel.from_arrays(unpack_arrays(model_arrays(text))), from_json)
    assert _same(default_model(), from_json)
    assert model_arrays(text) == model_arrays(text)  # the same bytes every time


_WORDS = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=12
)


@given(st.lists(_WORDS, max_size=60), st.lists(_WORDS | st.just("\ud800"), max_size=30))
def test_a_word_table_numbers_words_as_a_dict_of_its_lines(
    words: list[str], asked: list[str]
) -> None:
    table = WordTable(word_lines(words))
    index = {word: number for number, word in enumerate(words)}  # a repeat: its last line
    found = np.empty(len(words) + len(asked), dtype=np.int64)
    table.lookup((*words, *asked), -1, found)
    assert found.tolist() == [index.get(word, -1) for word in (*words, *asked)]
    assert (len(table), table.distinct) == (len(words), len(index))
    again = pickle.loads(pickle.dumps(table))
    again.lookup((*words, *asked), -1, found)
    assert found.tolist() == [index.get(word, -1) for word in (*words, *asked)]


def test_a_word_table_refuses_text_without_a_final_line_break() -> None:
    with pytest.raises(ValueError, match="line break"):
        WordTable(b"the\nof")


def test_the_language_model_from_arrays_reads_words_as_the_dict_does() -> None:
    model = default_model()
    as_dict = classifier.LanguageModel(dict(model.language.log_odds), model.language.weights)
    pages = (
        f"<p>{PARAGRAPH}</p><p>Zzyzx qwv.</p>",
        "<p>Der Stadtrat hat am Montag den Haushalt für das kommende Jahr beschlossen.</p>",
        "<p>東京都は月曜日、来年度の予算案を発表した。</p><p>café naïve ﬁne</p>",
    )
    for page in pages:
        table = read_blocks(parse_page(page))
        mine, theirs = model.language._token_values(table), as_dict._token_values(table)
        assert mine.tobytes() == theirs.tobytes()


def test_stop_lists_read_as_numbers_find_the_languages_the_lists_find() -> None:
    numbered = default_model().stop_words  # from the arrays: word index and table given
    listed = StopWords(dict(numbered.lists))  # both made from the lists
    rng = np.random.default_rng(4)
    right = 0
    for language in numbered.languages:
        words = [*numbered.lists[language][:40], "unknownword", "zzz"]
        words += [str(w) for w in rng.choice(numbered.lists["English"], 10)]
        counts = rng.integers(1, 9, len(words)).tolist()
        found = numbered.page_language(words, counts, sum(counts) + 50)
        assert found == listed.page_language(words, counts, sum(counts) + 50)
        right += numbered.languages[found.index] == language
    assert right > 0.8 * len(numbered.languages)


@pytest.mark.parametrize("values", [[1.0, -2.5], [1.0, float("nan")], []])
def test_a_language_model_from_arrays_knows_its_nan_as_one_from_a_dict(values: list[float]) -> None:
    words = ["ferry", "storm"][: len(values)]
    read = LanguageModel.from_arrays(word_lines(words), np.array(values), (0.0, 1.0, 0.0, 0.0))
    built = LanguageModel(dict(zip(words, values, strict=True)), (0.0, 1.0, 0.0, 0.0))
    assert read._has_nan is LanguageModel._has_nan.func(built)
    assert _same(read, built)


def test_stop_lists_numbered_wrongly_are_refused() -> None:
    numbers, sizes = np.array([0, 1, 0]), [2, 1]
    assert StopWords.numbered(["de", "en"], b"der\nthe\n", numbers, sizes).lists == {
        "de": ("der", "the"),
        "en": ("der",),
    }
    with pytest.raises(ValueError, match="numbered twice"):
        StopWords.numbered(["de", "en"], b"der\nder\n", numbers, sizes)
    with pytest.raises(ValueError, match="out of order"):
        StopWords.numbered(["en", "de"], b"der\nthe\n", numbers, sizes)
    with pytest.raises(ValueError, match="do not add up"):
        StopWords.numbered(["de", "en"], b"der\nthe\n", numbers, [2, 2])


def test_a_language_model_with_a_word_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="each word once"):
        LanguageModel.from_arrays(b"ferry\nferry\n", np.array([1.0, 2.0]), (0.0, 1.0, 0.0, 0.0))


def test_arrays_not_made_from_the_json_are_not_read(tmp_path: Path) -> None:
    shutil.copy(MODELS / MODEL_FILE, tmp_path / MODEL_FILE)
    stale = ClassifierModel.from_json(json.loads((MODELS / MODEL_FILE).read_text("utf-8")))
    stale = dataclasses.replace(stale, threshold=0.25)
    text = json.dumps(stale.to_json(), separators=(",", ":"), ensure_ascii=False)
    (tmp_path / MODEL_ARRAYS_FILE).write_bytes(model_arrays(text))
    with pytest.warns(UserWarning, match="not made from"):
        assert read_model(tmp_path).threshold == default_model().threshold
    (tmp_path / MODEL_ARRAYS_FILE).unlink()
    with pytest.warns(UserWarning, match="missing"):
        assert read_model(tmp_path).threshold == default_model().threshold


def test_a_model_without_stop_lists_round_trips_through_arrays() -> None:
    model = dataclasses.replace(default_model(), stop_words=NO_STOP_WORDS)
    assert _same(ClassifierModel.from_arrays(unpack_arrays(pack_arrays(model.to_arrays()))), model)


def test_packed_arrays_come_back_the_same_writable_and_aligned() -> None:
    arrays = {
        "scalar": np.array(3.5),
        "empty": np.zeros((0, 4), dtype=np.int64),
        "text": np.frombuffer("f\u00e9rry\n".encode(), dtype=np.uint8),
        "ints": np.arange(5, dtype=np.int32),
        "floats": np.array([[1.0, np.inf], [np.nan, -0.0]]),
        "last": np.zeros(0),
    }
    again = unpack_arrays(pack_arrays(arrays))
    assert list(again) == list(arrays)
    for name, array in arrays.items():
        assert _same(again[name], array), name
        assert again[name].flags.writeable and again[name].flags.aligned


def test_a_word_with_a_line_break_is_refused_in_arrays() -> None:
    model = dataclasses.replace(default_model(), names={"two\nlines": 1.0})
    with pytest.raises(ValueError, match="line break"):
        model.to_arrays()


def test_model_with_other_features_is_refused() -> None:
    data = default_model().to_json()
    data["feature_names"] = data["feature_names"][:-1]
    with pytest.raises(Exception, match="retrain"):
        ClassifierModel.from_json(data)


def test_classifier_keeps_the_article_and_drops_the_boilerplate() -> None:
    page = parse_page(_article())
    result = classify_blocks(page)
    kept = [page.blocks[i].text for i in result.kept]
    assert result.method == "classifier"
    assert sum(PARAGRAPH in text for text in kept) == 5
    assert not any("Section" in text or "Copyright" in text for text in kept)
    assert len(result.scores) == len(page.blocks)
    assert 0.5 < result.score <= 1.0


def test_classifier_keeps_nothing_of_a_link_list() -> None:
    links = "".join(f'<li><a href="/a/{i}">Headline number {i} here</a></li>' for i in range(40))
    page = parse_page(f"<html><body>{NAV}<ul>{links}</ul>{FOOTER}</body></html>")
    assert classify_blocks(page).kept == ()


def test_counts_at_the_edges_of_blocks() -> None:
    # Dates, sentence ends and bylines where a block starts or ends, the last block included.
    texts = ["2017", "in 1999", "19995", "at 9:30", "7\u6708", 'Said "yes."', "By Ann", "Done."]
    page = parse_page("".join(f"<p>{text}</p>" for text in texts))
    x = layout_features(read_blocks(page))
    names = feature_names()
    assert list(x[:, names.index("rate_date_like")]) == [1, 1, 0, 1, 1, 0, 0, 0]
    assert list(x[:, names.index("rate_sentence_end")] > 0) == [0, 0, 0, 0, 0, 1, 0, 1]
    assert list(x[:, names.index("rate_byline")]) == [0, 0, 0, 0, 0, 0, 1, 0]


_NO_NUL = st.text(alphabet=st.characters(blacklist_characters="\x00"), min_size=1, max_size=12)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
#: What a word is: a CJK character alone, or a run of letters (``\w`` less digits and "_").
_TOKEN = re.compile(rf"[{_CJK}]|[^\W\d_{_CJK}]+")


@given(st.lists(st.one_of(_NO_NUL, st.sampled_from(["\u03a3", "O\u03a3", "\u0130x"])), max_size=6))
def test_tokens_of_the_joined_lower_text_are_each_texts_tokens(texts: list[str]) -> None:
    # Blocks are lower-cased together (one call); a NUL between them lower-cases a final
    # sigma as a text's end does.
    lowered = "\x00".join(texts).lower()
    vocabulary, ids, block, _ = blocktable._token_table(lowered, len(texts))
    each = [_TOKEN.findall(text.lower()) for text in texts]
    tokens = [token for words in each for token in words]
    assert [vocabulary[i] for i in ids] == tokens
    assert vocabulary == tuple(dict.fromkeys(tokens))  # numbered as they first occur
    assert list(block) == [i for i, words in enumerate(each) for _ in words]


_BYLINE_START = re.compile(r" ?(?:[Bb][Yy]|[Vv]on|[Pp]ar|[Pp]or|[Dd]i|[Dd]oor) [A-Z]")
_REPORTER = ("\u8a18\u8005", "\u8bb0\u8005")
_COPYRIGHT = ("\u00a9", "(c)", "copyright", "all rights reserved", "\u7248\u6743")
_NOTICE_PIECES = st.sampled_from(
    ["By", "bY", " ", "von", "Par", "di", "Door", "A", "x", "\u8a18", "\u8bb0", "\u8005"]
    + ["\u00a9", "(", "C", ")", "COPY", "right", "All", " rights ", " RESERVED", "\u7248"]
    + ["\u6743", "\u0130", "\u212a", "\u03a3", "\U0001f600"]
)


@given(st.lists(st.lists(_NOTICE_PIECES, min_size=1, max_size=8).map("".join), max_size=4))
def test_bylines_and_copyrights_are_counted_as_the_patterns_find_them(texts: list[str]) -> None:
    _, _, counts = blocktable._text_counts("\x00".join(texts), len(texts))
    byline = [bool(_BYLINE_START.match(t)) or any(w in t for w in _REPORTER) for t in texts]
    rights = [any(w in t.lower() for w in _COPYRIGHT) for t in texts]
    assert list(counts[:, blocktable.COUNT_NAMES.index("byline")] > 0) == byline
    assert list(counts[:, blocktable.COUNT_NAMES.index("copyright")] > 0) == rights


@given(st.text(max_size=30))
def test_fold_is_the_words_joined_by_single_spaces(text: str) -> None:
    assert classifier.fold_text(text) == re.sub(r"\W+", " ", text.lower()).strip()


def test_chains_drop_only_columns_of_padding() -> None:
    page = parse_page("<div><section><p>a</p></section></div><p>b</p><span><p>c</p></span>")
    table = read_blocks(page)
    chains = table.chains()
    assert (table.ancestors[:, chains.shape[1] :] == -1).all()
    assert (chains[:, -1] == -1).all()  # one column of padding is kept for the maxima
    assert (chains[:, -2] >= 0).any()

"""The compiled features of method E against the numpy code they replaced, value for value.

The oracle is ``reference_features.py``; equal means the same bytes, so that every tree of
the model takes the same branch. Real pages of every development set, generated pages (in
every encoding the page model reads), and the shapes that strain the code: no blocks, no
words, chains of enclosing elements longer than the block table keeps.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from devdata import SHARED_DATA, require_set
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pinned import SETS
from reference_features import reference_context_features, reference_first_stage_features
from test_extraction_pagemodel import ENCODINGS, SOUP, TREES_MARKUP

from newsextract.evaluation.dataset import read_manifest
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.evidence.classifier import (
    ClassifierModel,
    default_model,
    first_stage_features,
)
from newsextract.extraction.evidence.context import context_features
from newsextract.extraction.evidence.stopwords import NO_STOP_WORDS
from newsextract.extraction.pagemodel.blocktable import MAX_ANCESTORS_DEFAULT, read_blocks
from newsextract.extraction.pagemodel.page import Page, parse_page

#: Every PAGE_STEP-th page of each development set is compared (about 190 of 4,763).
PAGE_STEP = 25


def assert_same_features(page: Page, model: ClassifierModel, p: np.ndarray | None = None) -> None:
    """First-stage and context matrices equal to the oracle's, byte for byte."""
    table = read_blocks(page)
    for stops in (model.stop_words, NO_STOP_WORDS):
        expected = reference_first_stage_features(table, model.names, stops)
        found = first_stage_features(table, model.names, stops)
        assert found.shape == expected.shape
        assert found.tobytes() == expected.tobytes(), np.argwhere(found != expected)[:5]
    first = model.layout.predict(expected) if p is None else p
    title = (np.arange(len(first)) % 7 == 3).astype(float)
    expected = reference_context_features(table, first, title)
    found = context_features(table, first, title)
    assert found.shape == expected.shape
    assert found.tobytes() == expected.tobytes(), np.argwhere(found != expected)[:5]


def parsed(body: bytes, content_type: str | None = None) -> Page | None:
    try:
        return parse_page(body, "https://example.com/a", content_type)
    except NewsExtractError:  # refused pages have no features
        return None


@cache
def development_sample() -> tuple[tuple[str, bytes, str | None], ...]:
    pages = []
    for name in SETS:
        folder = require_set(SHARED_DATA, name)
        entries = list(read_manifest(folder / "manifest.jsonl"))[::PAGE_STEP]
        pages += [(f"{name}/{e.id}", e.read_html(), e.content_type or None) for e in entries]
    return tuple(pages)


def test_compiled_features_equal_the_reference_on_development_pages() -> None:
    model = default_model()
    compared = 0
    for key, body, content_type in development_sample():
        page = parsed(body, content_type)
        if page is not None:
            try:
                assert_same_features(page, model)
            except AssertionError as error:
                raise AssertionError(f"{key}: {error}") from error
            compared += 1
    assert compared > 150


def chained_page(levels: int) -> bytes:
    """A paragraph under ``levels`` nested divs, between a menu and a footer."""
    opening = "".join(f"<div class='c{i} content'>" for i in range(levels))
    return (
        "<html><body><nav><a href=/>Home</a> | <a href=/x>World</a></nav>"
        f"{opening}<p>{'The council voted on Tuesday to extend the service. ' * 6}</p>"
        f"<p>Short line.</p>{'</div>' * levels}<footer>(c) 2008 All rights reserved</footer>"
        "</body></html>"
    ).encode()


@pytest.mark.parametrize(
    "body",
    [
        chained_page(0),
        chained_page(MAX_ANCESTORS_DEFAULT - 2),
        chained_page(MAX_ANCESTORS_DEFAULT + 30),
        b"<html><body><p>12 34</p><p>-- --</p></body></html>",  # blocks without words
        b"<html><body><p>\xe6\x97\xa5\xe6\x9c\xac\xe3\x81\xae\xe3\x83\x8b\xe3\x83\xa5</p></body>",
        b"<html><body><p>one</p></body></html>",
    ],
    ids=["flat", "chain-fits", "chain-cut", "no-words", "cjk", "one-block"],
)
def test_compiled_features_equal_the_reference_on_edge_pages(body: bytes) -> None:
    page = parsed(body, "text/html; charset=utf-8")
    assert page is not None and page.blocks
    assert_same_features(page, default_model())


def test_a_page_without_blocks_has_empty_matrices() -> None:
    page = parsed(b"<html><body><img src=x></body></html>")
    assert page is not None and not page.blocks
    model = default_model()
    table = read_blocks(page)
    assert first_stage_features(table, model.names, model.stop_words).shape[0] == 0
    assert context_features(table, np.zeros(0), np.zeros(0)).shape[0] == 0


POSTERIORS = st.sampled_from([0.0, 1e-5, 0.25, 0.5, 0.5 - 1e-12, 0.75, 1 - 1e-5, 1.0])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(TREES_MARKUP, SOUP), ENCODINGS, st.lists(POSTERIORS, min_size=1))
def test_compiled_features_equal_the_reference_on_generated_pages(
    markup: str, codec: str, posteriors: list[float]
) -> None:
    body = f"<html><body>{markup}</body></html>".encode(codec, "xmlcharrefreplace")
    page = parsed(body, f"text/html; charset={codec}")
    if page is None or not page.blocks:
        return
    p = np.resize(np.array(posteriors), len(page.blocks))
    assert_same_features(page, default_model(), p)

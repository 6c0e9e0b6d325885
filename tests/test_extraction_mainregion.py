"""A page without an article answers its main region: a shop's collection, a section front,
a page whose only kept text is its footer, a few unsure blocks of a documentation page. An
article keeps its own answer, a page without a main element stays empty, and crawls and
site templates, which collect articles, never answer the main region. On wcxb_dev's collections and
listings the shipped model gains from it (0.037 F1, measured 2026-12-04)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from devdata import require_set
from lxml import etree

from newsextract.evaluation.dataset import read_manifest
from newsextract.evaluation.gold import Gold
from newsextract.extraction import Page, extract_article, parse_page
from newsextract.extraction.decision.combiner import CombinerConfig
from newsextract.extraction.decision.mainregion import (
    MAX_KEPT_SHARE,
    METHOD,
    UNSURE_MEAN_SCORE,
    main_element,
    main_region_answer,
)
from newsextract.items import PageItem
from newsextract.pipelines import DropPage
from newsextract.pipelines.extraction import extract_item
from newsextract.templates.config import TemplateConfig

PRODUCTS = [
    ("Wool Runner", "$98"),
    ("Tree Dasher 2", "$140"),
    ("Trail Runner SWT", "$150"),
    ("Cruiser Slip On", "$100"),
    ("Canvas Pacer", "$90"),
    ("Plus Runner", "$110"),
    ("Wool Piper", "$95"),
    ("Tree Breezer", "$100"),
    ("Runner Protect", "$135"),
    ("Golf Dasher", "$145"),
]
NAV = "<nav><ul><li><a href='/men'>Men</a></li><li><a href='/women'>Women</a></li></ul></nav>"
FOOTER = (
    "<footer><p>Prices include sales tax where the law requires it. Free shipping applies to "
    "orders over $75 within the contiguous United States; returns are free within 30 days of "
    "delivery for unworn shoes in their original box.</p></footer>"
)


def _collection(main_tag: str = "main") -> str:
    cards = "".join(
        f"<li class='card'><a href='/products/{i}'><h3>{name}</h3></a><span>{price}</span></li>"
        for i, (name, price) in enumerate(PRODUCTS)
    )
    return (
        f"<html><head><title>Men's Sneakers</title></head><body><header>{NAV}</header>"
        f"<{main_tag}><h1>Men's Sneakers</h1><ul class='grid'>{cards}</ul></{main_tag}>"
        f"{FOOTER}</body></html>"
    )


def _extract(html: str, **config: bool) -> tuple[str, str]:
    page = parse_page(html.encode(), "https://shop.example.com/collections/mens-sneakers")
    article = extract_article(page, CombinerConfig(**config))
    return article.body, article.method


def test_a_collection_page_answers_its_main_region() -> None:
    body, method = _extract(_collection())
    assert method == METHOD
    assert all(name in body for name, _ in PRODUCTS)
    assert "Women" not in body  # the navigation stays out
    assert "Free shipping" not in body  # so does the footer


def test_without_the_main_region_the_collection_answers_nothing_or_its_footer() -> None:
    body, method = _extract(_collection(), main_region=False)
    assert method != METHOD
    assert "Wool Runner" not in body


def test_a_page_without_a_main_element_keeps_its_answer() -> None:
    body, method = _extract(_collection(main_tag="div"))
    assert method != METHOD
    assert "Wool Runner" not in body


COUNCIL = (
    "<p>The council approved the new cycle lanes on Tuesday evening, part {i} of the plan "
    "that the engineers presented after a debate of almost four hours.</p>"
)
INSURANCE = (
    "<p>Selecting the right health insurance provider is a decision of weight, point {i}: "
    "premiums, networks and deductibles differ from one state to the next.</p>"
)


@pytest.mark.parametrize(
    "paragraph, layout, phrase",
    [
        # an article in <main>
        (
            COUNCIL,
            f"<header>{NAV}</header><main><article>{{}}</article></main>",
            "council approved",
        ),
        # an article inside a <header> within <main>: some sites' article container
        (
            INSURANCE,
            "<main><header class='section_blog-post'>{}</header></main>",
            "health insurance",
        ),
    ],
)
def test_an_article_keeps_its_own_answer(paragraph: str, layout: str, phrase: str) -> None:
    story = "".join(paragraph.format(i=i) for i in range(5))
    body, method = _extract(f"<html><body>{layout.format(story)}</body></html>")
    assert method.startswith("single:classifier")
    assert body.count(phrase) == 5


def _docs_page() -> Page:
    entries = "".join(
        f"<dt>itertools.func{i}(iterable)</dt><dd><p>Make an iterator that returns elements "
        f"from the iterable, number {i} of the module's building blocks.</p></dd>"
        for i in range(12)
    )
    html = f"<html><body>{NAV}<div role='main'><h1>itertools</h1><dl>{entries}</dl></div></body>"
    return parse_page(html.encode(), "https://docs.example.org/library/itertools.html")


def _main_blocks(page: Page) -> list[int]:
    return [block.index for block in page.blocks if block.tag != "li"]  # all but the nav's


@pytest.mark.parametrize("score, answered", [(UNSURE_MEAN_SCORE - 0.1, True), (0.95, False)])
def test_a_few_unsure_blocks_of_a_large_main_region_give_way_to_it(
    score: float, answered: bool
) -> None:
    page = _docs_page()
    first = next(b.index for b in page.blocks if b.text.startswith("Make an iterator"))
    scores = np.zeros(len(page.blocks))
    scores[first] = score
    answer = main_region_answer(page, (first,), scores)
    assert answer == (tuple(_main_blocks(page)) if answered else None)


def test_unsure_blocks_holding_much_of_the_main_region_stay() -> None:
    page = _docs_page()
    region = _main_blocks(page)
    kept = tuple(region[: int(len(region) * (MAX_KEPT_SHARE + 0.2))])
    scores = np.zeros(len(page.blocks))
    scores[list(kept)] = UNSURE_MEAN_SCORE - 0.1
    assert main_region_answer(page, kept, scores) is None


MAIN_MARKUP = (
    '<r xmlns:x="urn:x"><x:main>a</x:main><main role="main">bb</main><div x:role="main">ccc</div>'
    '<p role="main">dddd<main>e</main></p><s role="mainx">ffffff</s></r>'
)


@pytest.mark.parametrize("at", [0, 1, 3])
def test_the_main_element_is_found_as_the_xpath_finds_it(at: int) -> None:
    root = etree.fromstring(MAIN_MARKUP)
    found = etree.XPath("//main | //*[@role='main']")(root[at])
    assert [element.text for element in found] == ["bb", "dddd", "e"]
    assert main_element(root[at]) is found[1]  # the most text, in any namespace or none


def test_a_crawl_never_answers_the_main_region() -> None:
    item = PageItem(
        url="https://shop.example.com/collections/mens-sneakers",
        body=_collection().encode(),
        content_type="text/html",
        status=200,
        site="shop.example.com",
        fetched_at="2026-12-04T00:00:00+00:00",
        language="en",
    )
    try:
        record = extract_item(item)
    except DropPage as dropped:
        assert dropped.stage == "extraction"
    else:
        assert record.extraction["method"] != METHOD
        assert "Wool Runner" not in record.articleBody


def test_site_templates_read_articles_only() -> None:
    assert not TemplateConfig().single_page.main_region


WITH, WITHOUT = CombinerConfig(), CombinerConfig(main_region=False)


@pytest.mark.accuracy
def test_collections_and_listings_of_wcxb_gain(shared_data: Path) -> None:
    folder = require_set(shared_data, "wcxb_dev")
    entries = [
        e for e in read_manifest(folder) if e.fields.get("page_type") in ("collection", "listing")
    ]
    with_region, without = [], []
    for entry in entries:
        page = parse_page(entry.read_html(), url=entry.url)
        gold = Gold.of(entry)
        for config, scores in ((WITH, with_region), (WITHOUT, without)):
            scores.append(gold.score(extract_article(page, config).body).f1)
    gain = (sum(with_region) - sum(without)) / len(entries)
    assert gain >= 0.025, f"main region gains {gain:.3f} F1 on {len(entries)} pages"

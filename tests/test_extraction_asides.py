"""What sits beside the article: asides, sidebars, and hidden text after it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.decision import asides, combiner

PARAGRAPH = (
    "Ferry services to the islands resumed on Monday morning after three days of storms kept "
    "every boat in harbour, the operator said. Engineers checked the piers overnight and found "
    "no lasting damage, although one landing stage will stay closed until Friday."
)


def _sidebar_page(main: str, aside: str, sidebar: str = "<aside id='side'>") -> str:
    end = f"</{sidebar[1:].split()[0].rstrip('>')}>"
    return (
        "<html><body class='right-sidebar'><div class='layout--withSidebar'>"
        f"<main>{main}</main>{sidebar}{aside}{end}</div></body></html>"
    )


@pytest.mark.parametrize("sidebar", ["<aside id='side'>", "<div id='sidebar'>", "<div class='x'>"])
def test_a_sidebars_teasers_are_not_the_article_beside_them(
    monkeypatch: pytest.MonkeyPatch, sidebar: str
) -> None:
    """However article-like the classifier finds them, the summaries of an aside or of a
    container named as a sidebar stay out when the article is elsewhere (a page's or a layout's
    modifier naming one is none); a page whose only text is in an aside keeps it."""
    paragraphs = lambda page, *rest: np.array([b.tag == "p" for b in page.blocks], float)  # noqa: E731
    monkeypatch.setattr(combiner, "combined_scores", paragraphs)
    article = "<h1>Ferry resumes</h1>" + "".join(f"<p>{PARAGRAPH} ({i})</p>" for i in range(2))
    teasers = "<h2>Most read</h2>" + "".join(
        f"<h3><a href='/story/{i}'>Another story {i}</a></h3><p>Teaser {i}: {PARAGRAPH}</p>"
        for i in range(3)
    )
    body = extract_article(parse_page(_sidebar_page(article, teasers, sidebar))).body
    assert "Ferry services" in body
    assert ("Teaser" in body) is (sidebar == "<div class='x'>")
    alone = extract_article(parse_page(_sidebar_page("<h1>Ferry resumes</h1>", article))).body
    assert alone.count("Ferry services") == 2


def test_a_hidden_popup_after_the_article_is_not_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hidden text after the article and outside its container leaves the body; a hidden tab
    inside the article stays, and so does hidden text that outweighs what is shown."""
    paragraphs = lambda page, *rest: np.array([b.tag == "p" for b in page.blocks], float)  # noqa: E731
    monkeypatch.setattr(combiner, "combined_scores", paragraphs)
    tab = f"<div style='display:none'><p>Tab: {PARAGRAPH}</p></div>"
    popup = f"<div style='display:none'><p>Popup: {PARAGRAPH}</p></div>"

    def body(shown: int) -> str:
        article = "".join(f"<p>{PARAGRAPH} ({i})</p>" for i in range(shown))
        html = f"<html><body><div class='post'>{article}{tab}</div>{popup}</body></html>"
        return extract_article(parse_page(html)).body

    assert "Popup:" not in body(3) and "Tab:" in body(3)
    assert "Popup:" in body(1)  # the hidden text is as long as the shown: a tab's, maybe


@given(
    st.dictionaries(
        st.sampled_from(["class", "id", "role"]),
        st.sampled_from(["", "sidebar", "right-sidebar x", "withSidebar", "main", " sidebar1 "]),
    )
)
def test_a_sidebar_name_is_judged_in_c_as_python_reads_it(attributes: dict[str, str]) -> None:
    element = etree.Element("div", attributes)
    names = f"{element.get('class') or ''} {element.get('id') or ''}"
    assert asides._NAMES_SIDEBAR(element) == asides._sidebar_named(names)

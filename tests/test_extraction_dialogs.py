"""Consent banners and modal dialogs are left out of the body: a cookie banner's privacy
prose, a modal privacy policy, a cart drawer; a body whose class names the consent state
keeps its article."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.decision import combiner, dialogs
from newsextract.extraction.decision.dialogs import CONSENT, DIALOG, dialog_kinds

ARTICLE = (
    "<p>The council approved the new cycle lanes on Tuesday evening after a debate that lasted "
    "almost four hours and drew the largest public gallery of the year.</p>"
    "<p>Work on the first stretch, between the station and the market square, is to begin in "
    "March and should take about eleven weeks, the council's engineers said.</p>"
    "<p>Shop owners on the route had asked for deliveries to be allowed in the mornings, and "
    "the final plan keeps two loading bays on each side of the street.</p>"
)
PRIVACY = (
    "<p>We and our partners process personal data such as your IP address and the pages you "
    "visit in order to measure audiences, personalise advertising and improve our services, "
    "on the basis of your consent or of our legitimate interest.</p>"
    "<p>You may withdraw your consent at any time from the privacy settings at the foot of "
    "every page, and you may object to processing based on legitimate interest there too.</p>"
)


def _body(html: str) -> str:
    page = parse_page(html.encode(), "https://news.example.com/2026/03/cycle-lanes")
    return extract_article(page).body


@pytest.mark.parametrize(
    "overlay",
    [
        f"<div id='onetrust-consent-sdk'><div id='onetrust-policy'>{PRIVACY}</div></div>",
        f"<div class='fides-modal-container'><div class='fides-modal-body'>{PRIVACY}</div></div>",
        f"<div class='modal' role='dialog'><div class='prose'>{PRIVACY}</div></div>",
        f"<div aria-modal='true'>{PRIVACY}</div>",
        f"<dialog open>{PRIVACY}</dialog>",
    ],
)
def test_an_overlay_is_left_out_and_the_article_kept(overlay: str) -> None:
    body = _body(f"<html><body><article>{ARTICLE}</article>{overlay}</body></html>")
    assert "eleven weeks" in body
    assert "legitimate interest" not in body


def test_without_the_overlay_rule_the_privacy_prose_would_be_kept() -> None:
    body = _body(f"<html><body><article>{ARTICLE}</article><div>{PRIVACY}</div></body></html>")
    assert "legitimate interest" in body  # the prose reads as article text: the rule is needed


def test_a_body_named_after_its_consent_state_keeps_its_article() -> None:
    html = f"<html><body class='cookie-consent-given'><article>{ARTICLE}</article></body></html>"
    assert "eleven weeks" in _body(html)


def test_dialog_kinds() -> None:
    page = parse_page(
        b"<html><body><div id='didomi-host'><p id='a'>x</p></div>"
        b"<div role='alertdialog'><p id='b'>y</p></div><div class='story'><p id='c'>z</p></div>"
        b"</body></html>",
        "https://news.example.com/",
    )
    root = page.blocks[0].element.getroottree().getroot()
    kind = dialog_kinds()
    kinds = {p.get("id"): kind(p) for p in root.iter("p")}
    assert kinds == {"a": CONSENT, "b": DIALOG, "c": 0}


def test_a_forums_posts_outweigh_no_consent_banner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Posts sit in containers named for comments; they are the page's content unless the
    text outside them outweighs them. A consent banner's prose, left out anyway, must not."""
    posts = "".join(f"<div class='comment'>{post}</p></div>" for post in ARTICLE.split("</p>")[:3])
    banner = f"<div id='onetrust-consent-sdk'>{PRIVACY}{PRIVACY}</div>"
    html = f"<html><body><div class='comments'>{posts}</div>{banner}</body></html>"
    everything = lambda page, *rest: np.full(len(page.blocks), 0.9)  # noqa: E731
    monkeypatch.setattr(combiner, "combined_scores", everything)
    body = _body(html)
    assert "eleven weeks" in body
    assert "legitimate interest" not in body


def own_kind_reference(element: etree._Element) -> int:
    """An element's own kind as Python reads it (what the compiled judge must give)."""
    names = f"{element.get('id') or ''} {element.get('class') or ''}"[:200]
    if dialogs._CONSENT.search(names):
        return CONSENT
    role, modal = element.get("role"), element.get("aria-modal")
    is_dialog = element.tag == "dialog" or role in {"dialog", "alertdialog"} or modal == "true"
    return DIALOG if is_dialog else 0


_ATTRIBUTE_VALUES = st.sampled_from(
    ["", "x", "cookie-banner", "OneTrust", "dialog", "alertdialog", "true", "True", "a" * 220]
)


@given(
    st.sampled_from(["div", "dialog", "section", "{urn:x}dialog"]),
    st.dictionaries(
        st.sampled_from(["id", "class", "role", "aria-modal", "{urn:x}role"]), _ATTRIBUTE_VALUES
    ),
)
def test_an_elements_own_kind_is_judged_in_c_as_python_reads_it(
    tag: str, attributes: dict[str, str]
) -> None:
    element = etree.Element(tag, attributes)
    assert dialogs._OWN_KIND(element) == own_kind_reference(element)
    element.set("id", "x" * 199)  # a long id and class: their first 200 characters are read
    element.set("class", "gdpr")
    assert dialogs._OWN_KIND(element) == own_kind_reference(element) != CONSENT

"""The page's main region: the answer for a page that holds no article.

A shop's collection, a section front, a job board or a schedule has no article, and the
keep decision empties its body. Its own ``<main>`` element (or ``role="main"``) still says
where its content is: the teasers, products or rows its readers came for. That region is
the body when the classifier kept nothing, only blocks of the page's furniture (a footer's
footnotes, a banner's notice), or a few blocks it was unsure of: under a quarter of the main
region's text at a mean score (weighed by characters) under 0.7, the mark of a page whose
kind of content the classifier never learned (a documentation page, a product grid). Its
navigation, header, footer, aside, form and dialogs stay out. A page without a main element
keeps its answer: the rest of the page says nothing of where its content is.

The answer is marked ``single:main-region`` (``Article.method``): it is a page's content,
not an article. Crawls and site templates collect articles and switch it off
(``CombinerConfig.main_region``): a crawled page without an article is a failure record.

Leave-one-set-out, wcxb_dev (1,476 pages of seven kinds): with the dialog veto
(:mod:`.dialogs`) 0.8076 to 0.8202: collections 0.40 to 0.52, listings 0.35 to 0.47, product
pages 0.53 to 0.54, articles 0.9392 to 0.9397; no page of another set moved. The unsure
answers then took it from 0.8206 to 0.8254 (25 pages up, one portfolio page filed as an
article down) and trafilatura_eval_dev from 0.9424 to 0.9434, no other set moved; at a mean
score under 0.85 it gained 0.007 more on wcxb_dev but lost dragnet 0.001 and msv_chaos
0.0014 (short articles on pages whose ``<main>`` holds their galleries and teasers too).
"""

from __future__ import annotations

import numpy as np
from lxml import etree

from newsextract.extraction.decision.dialogs import dialog_kinds
from newsextract.extraction.pagemodel.ancestry import Inherited
from newsextract.extraction.pagemodel.compiled import tag_or_attribute, text_chars
from newsextract.extraction.pagemodel.page import Page

METHOD = "single:main-region"
#: Kept blocks holding less than this share of the main region's text, at a mean score
#: under UNSURE_MEAN_SCORE, are a few blocks the classifier half-believed on a page whose
#: content it does not know (a shop, a listing, a documentation page).
MAX_KEPT_SHARE = 0.25
UNSURE_MEAN_SCORE = 0.7
#: Elements whose text is the page's furniture, not its content, wherever they stand.
_FURNITURE_TAGS = frozenset({"nav", "header", "footer", "aside"})
_FURNITURE_ROLES = frozenset({"contentinfo", "complementary", "banner", "navigation"})
#: ... and those a main region's answer leaves out besides: its controls. (A forum wraps its
#: posts in a form; only the main region's answer leaves forms out.)
_CONTROL_TAGS = frozenset({"form", "dialog", "menu"})
#: Flags of an element's place.
FURNITURE = 1
CONTROL = 2


def _own_furniture(element: etree._Element) -> int:
    return element.tag in _FURNITURE_TAGS or element.get("role") in _FURNITURE_ROLES


def _own_place(element: etree._Element) -> int:
    """FURNITURE, CONTROL (a form, a menu, a dialog's tag), both or neither."""
    return _own_furniture(element) * FURNITURE | (element.tag in _CONTROL_TAGS) * CONTROL


def main_region_answer(
    page: Page, kept: tuple[int, ...], scores: np.ndarray
) -> tuple[int, ...] | None:
    """The main region's blocks when the kept blocks make no answer: there are none, each
    is the page's furniture outside the main region, or they are a small share of the main
    region's text kept with little confidence. None when they do make one, or when the page
    has no main element."""
    place = Inherited(_own_place)
    furniture = all(place(page.blocks[i].element) & FURNITURE for i in kept)
    unsure = bool(kept) and _weighted_score(page, kept, scores) < UNSURE_MEAN_SCORE
    if not page.blocks or not (furniture or unsure):
        return None
    region = main_element(page.blocks[0].element.getroottree().getroot())
    if region is None:
        return None
    inside = {id(element) for element in region.iter()}
    blocks = _region_blocks(page, inside, place)
    if furniture and not any(id(page.blocks[i].element) in inside for i in kept):
        return blocks  # (a header inside the main region: some sites' article container)
    kept_chars = sum(len(page.blocks[i].text) for i in kept)
    region_chars = sum(len(page.blocks[i].text) for i in blocks)
    return blocks if unsure and kept_chars < MAX_KEPT_SHARE * region_chars else None


def _weighted_score(page: Page, kept: tuple[int, ...], scores: np.ndarray) -> float:
    """The kept blocks' mean score, each weighed by its characters (a stray "X" button
    kept by a region rule says little of the answer)."""
    chars = np.fromiter((len(page.blocks[i].text) for i in kept), float, len(kept))
    return float(np.dot(chars, scores[list(kept)]) / max(chars.sum(), 1.0))


def _region_blocks(page: Page, inside: set[int], place: Inherited) -> tuple[int, ...]:
    dialog = dialog_kinds()
    return tuple(
        block.index
        for block in page.blocks
        if id(block.element) in inside
        and block.text.strip()
        and not block.hidden
        and not place(block.element)
        and not dialog(block.element)
    )


def main_element(root: etree._Element) -> etree._Element | None:
    """The ``<main>`` (or ``role="main"``) element holding the most text."""
    found = tag_or_attribute(root, b"main", b"role", b"main")  # //main | //*[@role='main']
    if not found:
        return None
    return max(found, key=text_chars)

"""Consent banners and modal dialogs: text laid over the page, never its content.

Today's pages ship their cookie banner, its settings dialog and modal privacy policies in the
HTML. Their paragraphs read as prose (a privacy policy is long, well-formed and free of
links), so the classifier keeps them, and on a page whose own content is a list of teasers or
products they are all it keeps. A kept block inside a consent container (named by the
consent platforms: OneTrust, Didomi, Usercentrics, Fides, TrustArc ...) or a modal dialog
(``<dialog>``, ``role="dialog"``, ``aria-modal``) is dropped. Keeping a dialog's blocks when
nothing else was kept (an article shown in a modal) was measured: the pages it kept were a
shop's cart drawer and an error notice.

Leave-one-set-out, wcxb_dev: with the main region (:mod:`.mainregion`) 0.8076 to 0.8201, its
articles 0.9392 to 0.9397; no other set moved.
"""

from __future__ import annotations

import re

from newsextract.extraction.pagemodel.ancestry import AttributeJudge, Inherited
from newsextract.extraction.pagemodel.blocks import PAGE_TAGS
from newsextract.extraction.pagemodel.page import Page

_CONSENT = re.compile(
    r"cookie-?(?:banner|consent|notice|law|bar)|consent|onetrust|fides-|didomi|gdpr"
    r"|usercentrics|truste-|qc-cmp|sp_message|osano",
    re.I,
)
#: Flags of :func:`dialog_kinds`.
CONSENT = 1
DIALOG = 2
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
#: Class and id text read for a consent platform's name (a body's class list can be long).
_NAME_CHARS = 200
#: Distinct class and id texts whose verdict is remembered (the memo stays bounded).
NAME_CACHE_SIZE_DEFAULT = 20_000


def without_dialogs(kept: tuple[int, ...], page: Page) -> tuple[int, ...]:
    """The kept blocks less those in a consent banner or a modal dialog."""
    kind = dialog_kinds()
    return tuple(i for i in kept if not kind(page.blocks[i].element))


def dialog_kinds() -> Inherited:
    """For one page: CONSENT when an element lies in a consent banner, DIALOG in another
    modal dialog, else 0. The page's ``<body>`` and ``<html>`` are never either: some sites
    name the body after their consent state."""
    return Inherited(_OWN_KIND, PAGE_TAGS, (b"id", b"class", b"role", b"aria-modal"), _DIALOG_TAGS)


def _names_consent(name: str) -> int:
    """CONSENT when an id and class name a consent platform's container."""
    return CONSENT if _CONSENT.search(name) is not None else 0


_DIALOG_TAGS = frozenset({"dialog"})
#: An element's own kind, judged in C: its id and class, each distinct text searched once (a
#: site repeats its own on every page), else the modal dialog's tag and ARIA attributes.
_OWN_KIND = AttributeJudge(
    (b"id", b"class"),
    _names_consent,
    _NAME_CHARS,
    _DIALOG_TAGS,
    ((b"role", _DIALOG_ROLES), (b"aria-modal", frozenset({"true"}))),
    DIALOG,
    NAME_CACHE_SIZE_DEFAULT,
)

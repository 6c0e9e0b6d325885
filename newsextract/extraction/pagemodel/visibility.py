"""Whether an element's own attributes hide it: inline style, ``hidden``, ``aria-hidden``."""

from __future__ import annotations

import re

from lxml import etree

from newsextract.extraction.pagemodel.compiled import with_attributes

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
HIDING_ATTRIBUTES = ("style", "hidden", "aria-hidden")


#: The attribute names that may hide an element, as the compiled walk looks them up.
HIDING_NAMES = tuple(name.encode() for name in HIDING_ATTRIBUTES)


def hidden_elements(root: etree._Element) -> set[etree._Element]:
    """The elements of ``root``'s subtree (itself included) whose own attributes hide them
    (one compiled walk finds those with such an attribute, far fewer than all)."""
    return {element for element in with_attributes(root, HIDING_NAMES) if is_hidden(element)}


def is_hidden(element: etree._Element) -> bool:
    """Whether the element's own attributes hide it (style, ``hidden``, ``aria-hidden``)."""
    for name in HIDING_ATTRIBUTES:
        value = element.get(name)
        if value is not None and hides(name, value):
            return name != "hidden" or not _is_streamed_part(element)
    return False


_STREAMED_PART = re.compile(r"S:\d+$")


def _is_streamed_part(element: etree._Element) -> bool:
    """React's streamed server rendering sends parts of the page in ``<div hidden id="S:0">``
    and a script moves them into place: they are the page, not hidden."""
    return _STREAMED_PART.match(element.get("id") or "") is not None


def hides(name: str, value: str) -> bool:
    if name == "hidden":
        return True
    if name == "aria-hidden":
        return value == "true"
    return _HIDDEN_STYLE.search(value) is not None

"""Whether an element's own attributes hide it: inline style, ``hidden``, ``aria-hidden``."""

from __future__ import annotations

from lxml import etree

from newsextract.extraction.pagemodel.compiled import is_hidden, with_attributes

HIDING_ATTRIBUTES = ("style", "hidden", "aria-hidden")


#: The attribute names that may hide an element, as the compiled walk looks them up.
HIDING_NAMES = tuple(name.encode() for name in HIDING_ATTRIBUTES)

__all__ = ["HIDING_ATTRIBUTES", "HIDING_NAMES", "hidden_elements", "is_hidden"]


def hidden_elements(root: etree._Element) -> set[etree._Element]:
    """The elements of ``root``'s subtree (itself included) whose own attributes hide them
    (one compiled walk finds those with such an attribute, far fewer than all; ``is_hidden``,
    compiled too, judges each)."""
    return {element for element in with_attributes(root, HIDING_NAMES) if is_hidden(element)}

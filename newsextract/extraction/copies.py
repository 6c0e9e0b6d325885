"""Second copies of the article's text: a page that renders its article twice.

A responsive layout that writes one variant a screen size, a tabbed panel beside the article,
an excerpt box repeating its opening paragraphs, or a forum's preview of the first post: each
repeats the article's paragraphs word for word under another element. Kept twice, they halve
the body's precision. A kept block whose text is that of an earlier kept block is left out
when the two sit in different places of the page: their chains of ancestors differ in a tag,
a class or an id (digits aside, since generated ids number the copies). A text repeated
within the same place, such as a paragraph quoted twice in one container, stays: CleanEval's
gold keeps such repeats.

Leave-one-set-out, against keeping every copy: wcxb_dev +0.0036 (its articles +0.0015; by
site +0.0034), chinese_wced +0.0038, dragnet +0.0010 (the Wall Street Journal's video tab),
msv_chaos +0.0008, trafilatura_eval_dev +0.0003, cleaneval +0.0001, msv_big9_dev -0.0001 (a
repeated line its gold keeps). Dropping every repeat, in the same place too, lost cleaneval
0.0017; a bar of 20 characters instead of 40 changed nothing but a few pages' ten-thousandths.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lxml import etree

from newsextract.extraction.blocks import Block

#: Shorter texts repeat for reasons other than copying ("Read more", a price, a date).
MIN_COPY_CHARS = 40

_DIGITS = re.compile(r"\d+")

Place = tuple[tuple[str, str, str], ...]


def without_copies(kept: tuple[int, ...], blocks: Sequence[Block]) -> tuple[int, ...]:
    """The kept blocks less second copies of an earlier kept block's text placed elsewhere."""
    first: dict[str, int] = {}
    copies: set[int] = set()
    for index in kept:
        text = " ".join(blocks[index].text.split())
        if len(text) < MIN_COPY_CHARS:
            continue
        earlier = first.setdefault(text, index)
        if earlier != index and place(blocks[earlier].element) != place(blocks[index].element):
            copies.add(index)
    return tuple(index for index in kept if index not in copies) if copies else kept


def place(element: etree._Element) -> Place:
    """Where an element sits: the tag, class and id (less digits) of it and its ancestors."""
    return tuple(
        (str(node.tag), node.get("class", ""), _DIGITS.sub("", node.get("id", "")))
        for node in (element, *element.iterancestors())
    )

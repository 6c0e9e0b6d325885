"""The oracle of the compiled page model: the Python :func:`split_blocks` it replaced.

A faithful copy of ``newsextract/extraction/blocks.py`` before the compiled walk (only renamed
to ``reference_split_blocks``), with the Python text normalisation it called. The compiled
walk must give identical blocks, field by field, on every tree:
tests/test_extraction_pagemodel.py and benchmarks/fuzz.py compare the two.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import fields
from unicodedata import is_normalized, normalize

from lxml import etree

from newsextract.extraction.pagemodel.blocks import BLOCK_TAGS, Block
from newsextract.extraction.pagemodel.visibility import hidden_elements

#: Where a <br> stood, as the page model marks it.
_LINE_BREAK = "\ufdd0"
_BREAKS = re.compile(" ?\ufdd0[ \ufdd0]*")


def normalise_text(text: str) -> str:
    """The Python normalisation the compiled one replaced, kept verbatim as its reference."""
    if not text.isascii() and not is_normalized("NFC", text):
        text = normalize("NFC", text)
    if "\u2028" in text:
        text = text.replace("\u2028", _LINE_BREAK)
    if "\u200b" in text or "\x00" in text:
        text = text.replace("\u200b", " ").replace("\x00", "")
    text = " ".join(text.split())
    if _LINE_BREAK in text:
        text = _BREAKS.sub("\n", text).strip()
    return text


def reference_split_blocks(
    root: etree._Element, hidden: Collection[etree._Element] | None = None
) -> tuple[Block, ...]:
    """The Python walk that the compiled one replaced, kept verbatim as the reference.

    Cut a cleaned tree into blocks with non-empty text, in one pass, without recursion.

    Only one run of text is open at a time: a nested block closes the run of its parent,
    and the parent starts a new run after it. The loop is written flat, with local state,
    because it runs for every element of every page (the hot path of parsing). Most runs
    are only the white space between tags: white space and ``<br>`` before a run's first
    real text change nothing after normalisation, so they are never stored, and a run
    without text is dropped when it closes without being normalised or made a block.
    ``hidden``: the hidden block elements of the tree, when the caller has them already.
    """
    blocks: list[Block] = []
    owners: list[etree._Element] = [root]
    hidden_here = hidden_elements(root) if hidden is None else hidden
    hiding: list[bool] = [root in hidden_here]  # whether each owner or an ancestor is hidden
    first = root.text
    content = bool(first) and not first.isspace()  # the open run holds real text
    pieces: list[str] = [first] if content else []
    tags: list[str] = []
    attrs: list[str] = []
    link_chars = in_link = 0
    block_tags = BLOCK_TAGS
    # Comments and processing instructions come as one event; only their tail is text.
    walk = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    next(walk)  # the root itself is already open
    for event, element in walk:
        if event == "start":
            tag = element.tag
            if tag in block_tags:
                if content:
                    _add_block(
                        blocks,
                        owners[-1],
                        len(owners) - 1,
                        pieces,
                        link_chars,
                        tags,
                        attrs,
                        hiding[-1],
                    )
                    pieces, tags, attrs, content = [], [], [], False
                elif tags:
                    tags, attrs = [], []
                link_chars = 0
                owners.append(element)
                hiding.append(hiding[-1] or element in hidden_here)
            else:
                tags.append(tag if tag.__class__ is str else "")  # an entity, say
                value = element.get("title")  # attr_texts: title and alt, unrolled
                if value and not value.isspace():
                    attrs.append(value.strip())
                value = element.get("alt")
                if value and not value.isspace():
                    attrs.append(value.strip())
                if tag == "a":
                    in_link += 1
            text = element.text
        elif event == "end":
            tag = element.tag
            if tag in block_tags:
                if len(owners) > 1:
                    owner = owners.pop()
                    owner_hidden = hiding.pop()
                    if content:
                        _add_block(
                            blocks,
                            owner,
                            len(owners),
                            pieces,
                            link_chars,
                            tags,
                            attrs,
                            owner_hidden,
                        )
                        pieces, tags, attrs, content = [], [], [], False
                    elif tags:
                        tags, attrs = [], []
                    link_chars = 0
            elif tag == "a":
                if in_link:
                    in_link -= 1
            elif tag == "br" and content:
                pieces.append(_LINE_BREAK)
            text = element.tail
        else:
            text = element.tail
        if text:
            if content:
                pieces.append(text)
            elif not text.isspace():
                pieces.append(text)
                content = True
            if in_link:
                link_chars += len(text.strip())
    if content:
        _add_block(blocks, owners[-1], len(owners) - 1, pieces, link_chars, tags, attrs, hiding[-1])
    return tuple(blocks)


def _add_block(
    blocks: list[Block],
    element: etree._Element,
    depth: int,
    pieces: list[str],
    link_chars: int,
    tags: list[str],
    attrs: list[str],
    hidden: bool,
) -> None:
    """Close one run: a block when its text is not empty once normalised."""
    text = normalise_text("".join(pieces))
    if not text:
        return
    tag = element.tag
    # What Block(...) builds, in one step: a frozen dataclass's __init__ sets each field
    # through object.__setattr__, a third of the cost of a block on a page of short blocks.
    # tests/test_extraction_page.py checks that the fields are exactly Block's.
    block = _new_object(Block)
    _set_attribute(
        block,
        "__dict__",
        {
            "index": len(blocks),
            "element": element,
            "tag": tag if tag.__class__ is str else "",
            "text": text,
            "depth": depth,
            "link_chars": min(link_chars, len(text)),
            "inline_tags": tuple(tags),
            "attr_texts": tuple(attrs),
            "hidden": hidden,
        },
    )
    blocks.append(block)


_new_object = object.__new__
_set_attribute = object.__setattr__


def first_difference(found: tuple[Block, ...], expected: tuple[Block, ...]) -> str | None:
    """Where two cuts into blocks differ (every field; elements by identity), or None."""
    if len(found) != len(expected):
        return f"{len(found)} blocks, expected {len(expected)}"
    for got, want in zip(found, expected, strict=True):
        for name in BLOCK_FIELDS:
            mine, theirs = getattr(got, name), getattr(want, name)
            same = (
                mine is theirs
                if name == "element"
                else mine == theirs and type(mine) is type(theirs)
            )
            if not same:
                return f"block {want.index} {name}: {mine!r}, expected {theirs!r}"
    return None


BLOCK_FIELDS = tuple(field.name for field in fields(Block))

"""Blocks (method A's unit): a block-level element with its direct inline content.

A block's text is the text of the element and of its inline descendants that are not
inside a nested block element. One block is one paragraph of output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

#: HTML 4.01 block elements plus the HTML5 sectioning elements.
BLOCK_TAGS = frozenset(
    """address article aside blockquote body center dd details dialog dir div dl dt fieldset
    figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html li main menu
    nav noframes ol p pre section summary table tbody td tfoot th thead tr ul caption legend
    option""".split()
)
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_SPACE = re.compile(r"[ \t\r\f\v\u00a0\u200b\u3000]+")
_LINE_BREAK = "\u2028"
_BREAKS = re.compile(r" *\u2028[ \u2028]*")


@dataclass(frozen=True, eq=False)
class Block:
    """One block of a page, in document order.

    An element with nested blocks gives one block for each run of its direct text between
    them, so that blocks stay in reading order.
    """

    index: int
    element: etree._Element
    tag: str
    text: str  # direct inline text, whitespace folded; "\n" where a <br> stood
    depth: int  # how many block elements enclose this one
    link_chars: int  # characters of the text inside <a>
    inline_tags: tuple[str, ...]  # tag names of the inline descendants, for method A
    attr_texts: tuple[str, ...]  # title and alt attribute texts, for method A

    @property
    def link_density(self) -> float:
        return self.link_chars / len(self.text) if self.text else 0.0

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass
class _OpenBlock:
    element: etree._Element
    depth: int
    pieces: list[str] = field(default_factory=list)
    link_chars: int = 0
    inline_tags: list[str] = field(default_factory=list)
    attr_texts: list[str] = field(default_factory=list)


def split_blocks(root: etree._Element) -> tuple[Block, ...]:
    """Cut a cleaned tree into blocks with non-empty text, without recursion."""
    blocks: list[Block] = []
    stack: list[_OpenBlock] = [_OpenBlock(root, 0)]
    in_link = 0
    walk = etree.iterwalk(root, events=("start", "end"))
    next(walk)  # the root itself is already open
    for event, element in walk:
        tag = element.tag if isinstance(element.tag, str) else ""
        is_block = tag in BLOCK_TAGS
        if event == "start":
            if is_block:
                _flush(stack[-1], blocks)
                stack.append(_OpenBlock(element, len(stack)))
            else:
                _note_inline(stack[-1], element, tag)
            in_link += tag == "a"
            _add_text(stack[-1], element.text, in_link > 0)
            continue
        in_link -= tag == "a" and in_link > 0
        if tag == "br":
            stack[-1].pieces.append(_LINE_BREAK)
        if is_block and len(stack) > 1:
            _flush(stack.pop(), blocks)
        _add_text(stack[-1], element.tail, in_link > 0)
    for open_block in reversed(stack):
        _flush(open_block, blocks)
    return tuple(blocks)


def _note_inline(block: _OpenBlock, element: etree._Element, tag: str) -> None:
    block.inline_tags.append(tag)
    for name in ("title", "alt"):
        value = element.get(name)
        if value:
            block.attr_texts.append(value.strip())


def _add_text(block: _OpenBlock, text: str | None, in_link: bool) -> None:
    if not text:
        return
    block.pieces.append(text)
    if in_link:
        block.link_chars += len(text.strip())


def _flush(block: _OpenBlock, blocks: list[Block]) -> None:
    """Emit the text gathered so far as a block and start a new run."""
    text = normalise_text("".join(block.pieces)) if block.pieces else ""
    if text:
        element = block.element
        blocks.append(
            Block(
                index=len(blocks),
                element=element,
                tag=element.tag if isinstance(element.tag, str) else "",
                text=text,
                depth=block.depth,
                link_chars=min(block.link_chars, len(text)),
                inline_tags=tuple(block.inline_tags),
                attr_texts=tuple(block.attr_texts),
            )
        )
    block.pieces, block.link_chars, block.inline_tags, block.attr_texts = [], 0, [], []


def normalise_text(text: str) -> str:
    """Fold runs of white space; keep single line breaks.

    >>> normalise_text("  a \\u2028\\u2028  b\\u00a0 c\\n d ")
    'a\\nb c d'
    """
    text = _SPACE.sub(" ", text.replace("\n", " ").replace("\x00", ""))
    return _BREAKS.sub("\n", text.strip(" " + _LINE_BREAK)).strip()

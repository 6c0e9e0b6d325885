"""Blocks (method A's unit): a block-level element with its direct inline content.

A block's text is the text of the element and of its inline descendants that are not
inside a nested block element. One block is one paragraph of output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

#: HTML 4.01 block elements plus the HTML5 sectioning elements.
BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "center",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "li",
        "main",
        "menu",
        "nav",
        "noframes",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
        "caption",
        "legend",
        "option",
    ]
)
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Where a <br> stood: a Unicode noncharacter, so that it is no space to str.split() and
# never a character of real text.
_LINE_BREAK = "\ufdd0"
_BREAKS = re.compile(" ?\ufdd0[ \ufdd0]*")


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


def split_blocks(root: etree._Element) -> tuple[Block, ...]:
    """Cut a cleaned tree into blocks with non-empty text, without recursion.

    Only one run of text is open at a time: a nested block closes the run of its parent,
    and the parent starts a new run after it. The loop is written flat, with local state,
    because it runs for every element of every page (the hot path of parsing); the runs'
    texts are normalised together in one pass afterwards.
    """
    runs: list[_RawRun] = []
    owners: list[etree._Element] = [root]
    pieces: list[str] = [root.text] if root.text else []
    tags: list[str] = []
    attrs: list[str] = []
    link_chars = in_link = 0
    # Comments and processing instructions come as one event; only their tail is text.
    walk = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    next(walk)  # the root itself is already open
    for event, element in walk:
        tag = element.tag
        if tag.__class__ is not str:
            tag = ""
        boundary = tag in BLOCK_TAGS
        if event == "start":
            if boundary:
                owner, depth = owners[-1], len(owners) - 1
                owners.append(element)
            else:
                tags.append(tag)
                for name in _ATTR_NAMES:
                    value = element.get(name)
                    if value and not value.isspace():
                        attrs.append(value.strip())
            if tag == "a":
                in_link += 1
            text = element.text
        else:
            if tag == "a" and in_link:
                in_link -= 1
            elif tag == "br":
                pieces.append(_LINE_BREAK)
            if boundary:
                if len(owners) > 1:
                    owner = owners.pop()
                    depth = len(owners)
                else:
                    boundary = False
            text = element.tail
        if boundary:
            if pieces:
                runs.append((owner, depth, pieces, link_chars, tags, attrs))
                pieces, tags, attrs = [], [], []
            elif tags:
                tags, attrs = [], []
            link_chars = 0
        if text:
            pieces.append(text)
            if in_link:
                link_chars += len(text.strip())
    if pieces:
        runs.append((owners[-1], len(owners) - 1, pieces, link_chars, tags, attrs))
    return _make_blocks(runs)


# owner element, depth, text pieces, link characters, inline tags, attribute texts
_RawRun = tuple[etree._Element, int, list[str], int, list[str], list[str]]
_ATTR_NAMES = ("title", "alt")


def _make_blocks(runs: list[_RawRun]) -> tuple[Block, ...]:
    blocks: list[Block] = []
    for run in runs:
        text = normalise_text("".join(run[2]))
        if not text:
            continue
        element, depth, _, link_chars, tags, attrs = run
        tag = element.tag
        blocks.append(
            Block(
                index=len(blocks),
                element=element,
                tag=tag if tag.__class__ is str else "",
                text=text,
                depth=depth,
                link_chars=min(link_chars, len(text)),
                inline_tags=tuple(tags),
                attr_texts=tuple(attrs),
            )
        )
    return tuple(blocks)


def normalise_text(text: str) -> str:
    """Fold runs of white space; keep single line breaks (``\\u2028`` or a ``<br>`` mark).

    >>> normalise_text("  a \\u2028\\u2028  b\\u00a0 c\\n d ")
    'a\\nb c d'
    """
    if "\u2028" in text:
        text = text.replace("\u2028", _LINE_BREAK)
    if "\u200b" in text or "\x00" in text:
        text = text.replace("\u200b", " ").replace("\x00", "")
    text = " ".join(text.split())  # str.split() knows every Unicode space, in C
    if _LINE_BREAK in text:
        text = _BREAKS.sub("\n", text).strip()
    return text

"""Blocks (method A's unit): a block-level element with its direct inline content.

A block's text is the text of the element and of its inline descendants that are not
inside a nested block element. One block is one paragraph of output.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from unicodedata import is_normalized, normalize

from lxml import etree

from newsextract.extraction.visibility import hidden_elements

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
#: The elements that hold the whole page: their class and id name its template and settings
#: (WordPress's "has-comments", a consent tool's "cookie-consent-given"), never a region of it.
PAGE_TAGS = frozenset({"html", "body"})
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
    hidden: bool = False  # inside a block element hidden by its attributes (a tab, a menu)

    @property
    def link_density(self) -> float:
        return self.link_chars / len(self.text) if self.text else 0.0

    @property
    def words(self) -> int:
        return len(self.text.split())


def split_blocks(
    root: etree._Element, hidden: Collection[etree._Element] | None = None
) -> tuple[Block, ...]:
    """Cut a cleaned tree into blocks with non-empty text, in one pass, without recursion.

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


def normalise_text(text: str) -> str:
    """Fold runs of white space; keep single line breaks (``\\u2028`` or a ``<br>`` mark);
    compose characters (Unicode NFC), so that one text is written one way whatever the page's
    editor produced (Bengali "\\u09dc" is "\\u09a1\\u09bc" to every search and corpus tool).

    >>> normalise_text("  a \\u2028\\u2028  b\\u00a0 c\\n d ")
    'a\\nb c d'
    >>> normalise_text("Cafe\\u0301") == "Caf\\u00e9"
    True
    """
    if not text.isascii() and not is_normalized("NFC", text):
        text = normalize("NFC", text)
    if "\u2028" in text:
        text = text.replace("\u2028", _LINE_BREAK)
    if "\u200b" in text or "\x00" in text:
        text = text.replace("\u200b", " ").replace("\x00", "")
    text = " ".join(text.split())  # str.split() knows every Unicode space, in C
    if _LINE_BREAK in text:
        text = _BREAKS.sub("\n", text).strip()
    return text

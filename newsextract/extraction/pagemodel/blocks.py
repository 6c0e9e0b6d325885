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

from newsextract.extraction.pagemodel.compiled import block_runs
from newsextract.extraction.pagemodel.visibility import hidden_elements

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
    """Cut a cleaned tree into blocks with non-empty text, in one compiled walk.

    Only one run of text is open at a time: a nested block closes the run of its parent,
    and the parent starts a new run after it. White space before a run's first real text
    changes nothing after normalisation, so it is never stored, and a run without real text
    is never made a block. ``hidden``: the hidden block elements of the tree, when the
    caller has them already.
    """
    hidden_here = hidden_elements(root) if hidden is None else hidden
    blocks: list[Block] = []
    for element, raw, depth, link_chars, tags, attrs, hiding in block_runs(
        root, hidden_here, BLOCK_TAGS
    ):
        text = normalise_text(raw)
        if not text:
            continue
        tag = element.tag
        # What Block(...) builds, in one step: a frozen dataclass's __init__ sets each field
        # through object.__setattr__, a third of the cost of a block on a page of short
        # blocks. tests/test_extraction_page.py checks that the fields are exactly Block's.
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
                "inline_tags": tags,
                "attr_texts": attrs,
                "hidden": hiding,
            },
        )
        blocks.append(block)
    return tuple(blocks)


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

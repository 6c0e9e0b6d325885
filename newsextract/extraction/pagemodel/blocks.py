"""Blocks (method A's unit): a block-level element with its direct inline content.

A block's text is the text of the element and of its inline descendants that are not
inside a nested block element. One block is one paragraph of output.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from lxml import etree

from newsextract.extraction.pagemodel.compiled import block_list, normalise_text
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
# Where a <br> stood, the walk marks U+FDD0: a Unicode noncharacter, so that it is no space
# to str.split() and never a character of real text.


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
    changes nothing after normalisation (:func:`normalise_text`), so it is never stored, and
    a run without real text is never made a block. ``hidden``: the hidden block elements of
    the tree, when the caller has them already.
    """
    hidden_here = hidden_elements(root) if hidden is None else hidden
    return tuple(block_list(root, hidden_here, BLOCK_TAGS, Block))


__all__ = ["BLOCK_TAGS", "HEADING_TAGS", "PAGE_TAGS", "Block", "normalise_text", "split_blocks"]

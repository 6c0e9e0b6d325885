"""The block table: what every method reads of a page's blocks, counted once.

Text counts (characters, words, punctuation, digits ...), each block's chain of enclosing
elements, numbered parents first, and their class and id words judged once a distinct string,
all from the compiled page model. The layout features and the classifiers read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from lxml import etree

from newsextract.extraction.pagemodel.blocks import PAGE_TAGS
from newsextract.extraction.pagemodel.compiled import (
    PROPERTY_BITS,
    ClassNames,
    block_columns,
    element_tree,
    fill_text_counts,
    token_table,
    upper_case_table,
)
from newsextract.extraction.pagemodel.page import Page

#: How many enclosing elements of a block are looked at; bounds work on deeply nested pages.
MAX_ANCESTORS_DEFAULT = 48

_POSITIVE = re.compile(
    r"article|body|content|entry|main|news|post|story|text|blog|hentry|paragraph|detail|prose"
    r"|column|permalink|instapaper|^page$"
)
_NEGATIVE = re.compile(
    r"comment|meta|footer|foot|footnote|nav|menu|sidebar|side|sponsor|ads\b|advert|banner"
    r"|\bad(?!d|min|van|vic|jus|mon|obe|jac|apt|mis|a$)"  # "ad", "adslot", not "address", "admin"
    r"|promo|related|share|social|widget|breadcrumb|\btags?\b|login|subscribe|newsletter|popup"
    r"|masthead|header|copyright|disclaimer|rss|tool|pagination|pager|outbrain|taboola|recommend"
    r"|popular|trending|^most$|signup|register|cookie|modal|teaser|more|extra|byline|author|date"
    r"|caption|credit|photo|gallery|video|label|rating|print|email|button|skip|search|hidden"
)
#: "responses", not "responsive" (a layout class on every element of some themes) nor
#: "responsibility"; they had flagged whole pages as comment sections.
_COMMENT = re.compile(r"comment|disqus|respon(?!si)|repl(?:y|ies)|discussion")

#: Tags that get their own indicator feature; every other block tag shares one.
OWN_TAGS = (
    "p",
    "div",
    "li",
    "td",
    "h1",
    "h2",
    "h3",
    "h4",
    "span",
    "dd",
    "dt",
    "blockquote",
    "pre",
    "section",
    "article",
    "body",
    "form",
    "th",
    "figcaption",
    "font",
    "center",
    "address",
)
#: Ancestor tag kinds: (name, tags); a block gets 1 when any enclosing element has one.
_ANCESTOR_KINDS = (
    ("nav", frozenset({"nav", "menu"})),
    ("header", frozenset({"header"})),
    ("footer", frozenset({"footer"})),
    ("aside", frozenset({"aside"})),
    ("article", frozenset({"article", "main"})),
    ("list", frozenset({"ul", "ol", "dl", "li"})),
    ("table", frozenset({"table"})),
    ("form", frozenset({"form"})),
    ("quote", frozenset({"blockquote"})),
    ("figure", frozenset({"figure", "figcaption"})),
    ("link", frozenset({"a"})),
)


@dataclass(frozen=True, eq=False)  # arrays inside: == by identity
class BlockTable:
    """Counts read from each block once, plus each block's ancestor element ids."""

    chars: np.ndarray  # characters of the block's text (float)
    words: np.ndarray  # metric tokens (CJK: characters)
    link_chars: np.ndarray
    ancestors: np.ndarray  # (blocks, MAX_ANCESTORS) element ids, -1 past the root
    counts: np.ndarray  # (blocks, len(COUNT_NAMES)) raw counts from the text
    tags: np.ndarray  # (blocks,) index into OWN_TAGS, len(OWN_TAGS) for other tags
    element_flags: np.ndarray  # (elements, len(ELEMENT_FLAG_NAMES)), the element's own
    element_any: np.ndarray  # the same flags, set when the element or an ancestor has them
    element_names: tuple[tuple[str, ...], ...]  # class and id words of each element
    vocabulary: tuple[str, ...]  # the page's distinct lower-cased words, as they first occur
    token_ids: np.ndarray  # each word of all blocks (a token), by its number in ``vocabulary``
    token_block: np.ndarray  # the block each token belongs to
    levels: int  # columns of ``ancestors`` that hold any element (the others are all -1)
    token_chars: np.ndarray  # characters of each block's tokens
    texts: tuple[str, ...]  # each block's text

    def chains(self) -> np.ndarray:
        """``ancestors`` cut after its first column of padding in every row: a count, a maximum
        or a search along a row gives what it gives on the whole row, in less time."""
        chains: np.ndarray = self.ancestors[:, : self.levels + 1]
        return chains

    def inside(self, flag: str) -> np.ndarray:
        """Per block: whether its element or an ancestor has the flag (a name of
        ``element_flag_names()``: "comment", "hidden", "nav" ...)."""
        column = ELEMENT_FLAG_NAMES.index(flag)
        flags: np.ndarray = self.element_any[self.ancestors[:, 0], column] > 0
        return flags

    def ancestors_with(self, flag: str, levels: int, blocks: np.ndarray) -> np.ndarray:
        """Per block of ``blocks``: how many of the ``levels`` elements above its own have the
        flag themselves (a ``<p>`` in a list item in a list has two with "list")."""
        column = ELEMENT_FLAG_NAMES.index(flag)
        above = self.ancestors[blocks, 1 : levels + 1]
        counts: np.ndarray = ((above >= 0) & (self.element_flags[above, column] > 0)).sum(axis=1)
        return counts

    @property
    def word_ids(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """Each token's number among the page's distinct words, and those words in the order
        they first occur."""
        return self.token_ids, self.vocabulary

    @cached_property
    def tokens(self) -> tuple[str, ...]:
        """The lower-cased words of all blocks, in order (for training)."""
        return tuple(map(self.vocabulary.__getitem__, self.token_ids.tolist()))

    def block_tokens(self) -> list[list[str]]:
        """Tokens grouped by block (for training)."""
        grouped: list[list[str]] = [[] for _ in self.chars]
        for token, block in zip(self.tokens, self.token_block.tolist(), strict=True):
            grouped[block].append(token)
        return grouped


COUNT_NAMES = (
    "punct",
    "sentence_end",
    "digits",
    "upper",
    "pipes",
    "date_like",
    "byline",
    "copyright",
    "cjk",
    "line_breaks",
    "inline_tags",
    "images",
    "capitalised",
    "final_stop",
)
ELEMENT_FLAG_NAMES = (
    ("positive", "negative", "comment") + tuple(k for k, _ in _ANCESTOR_KINDS) + ("hidden",)
)


def read_blocks(page: Page, max_ancestors: int = MAX_ANCESTORS_DEFAULT) -> BlockTable:
    """One compiled pass over the blocks for their fields, one up their elements for the
    ancestor chains, and the text counts over all texts at once."""
    n = len(page.blocks)
    tags = np.empty(n, dtype=np.int64)
    link, inline_tags, images = np.empty(n), np.empty(n), np.empty(n)
    texts, elements, hidden = block_columns(
        tuple(page.blocks), _TAG_INDEX, len(OWN_TAGS), tags, link, inline_tags, images
    )
    tree = _element_tree(elements, hidden)
    ancestors = _ancestor_matrix(tree.own, tree.parent, max_ancestors, tree.depth)
    joined = "\x00".join(texts)  # NUL never occurs in block text
    lowered = joined.lower()  # lower-casing is as at a text's end next to a NUL
    chars, words, counts = _text_counts(joined, n)
    counts[:, 10], counts[:, 11] = inline_tags, images
    vocabulary, token_ids, token_block, token_chars = _token_table(lowered, n)
    return BlockTable(
        chars,
        words,
        link,
        ancestors,
        counts,
        tags,
        _unpack_bits(tree.bits),
        _unpack_bits(tree.bits_any),
        tree.names,
        vocabulary,
        token_ids,
        token_block,
        min(tree.depth, max_ancestors),
        token_chars,
        texts,
    )


def _token_table(
    lowered: str, n: int
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray]:
    """Every block's words (in its lower-cased text: runs of letters, each CJK character a
    word of its own) as the page's distinct words and each word's number among them, the
    block each one belongs to, and each block's characters in words; ``lowered``: the ``n``
    texts joined by NULs. One compiled pass."""
    if n == 0:
        return (), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    sizes = np.zeros(n, dtype=np.int64)
    token_chars = np.zeros(n)
    vocabulary, ids = token_table(lowered, sizes, token_chars)
    token_ids = np.frombuffer(ids, dtype=np.int64)
    return vocabulary, token_ids, np.repeat(np.arange(n, dtype=np.int64), sizes), token_chars


_TAG_INDEX = {tag: i for i, tag in enumerate(OWN_TAGS)}


def _code_set(characters: str) -> np.ndarray:
    """A lookup table over the Basic Multilingual Plane: True for the given characters."""
    table = np.zeros(0x10000, dtype=bool)
    table[[ord(c) for c in characters]] = True
    return table


_PUNCT_CODES = _code_set(".,;:!?\u3001\u3002\uff0c\uff0e\uff1a\uff1b\uff01\uff1f\u060c\u0964")
_END_CODES = _code_set(".!?\u3002\uff01\uff1f\u0964")
_CLOSE_CODES = _code_set("\"'\u201d\u300d)] \n\x00")
_PIPE_CODES = _code_set("|\u00bb\u203a>\u00b7\u2022/")
_CJK_DATE_CODES = _code_set("\u5e74\u6708\u65e5")
_NOT_WORD_CODES = _code_set("\u00d7\u00f7")
#: Upper-case letters of every script that has them (Latin, Greek, Cyrillic, Armenian ...).
_UPPER_CODES = np.frombuffer(upper_case_table(), dtype=np.uint8).astype(bool)


def _bmp(codes: np.ndarray) -> np.ndarray:
    """Code points as table indexes; characters past the BMP share the last slot."""
    index: np.ndarray = np.minimum(codes, 0xFFFF).astype(np.intp)
    return index


def _cjk_mask(codes: np.ndarray) -> np.ndarray:
    mask: np.ndarray = (
        ((codes >= 0x3040) & (codes <= 0x30FF))
        | ((codes >= 0x3400) & (codes <= 0x4DBF))
        | ((codes >= 0x4E00) & (codes <= 0x9FFF))
        | ((codes >= 0xAC00) & (codes <= 0xD7AF))
        | ((codes >= 0xF900) & (codes <= 0xFAFF))
    )
    return mask


def _word_mask(codes: np.ndarray) -> np.ndarray:
    """Characters ``\\w`` would match, closely enough for a feature (no per-char Python)."""
    ascii_word = (
        ((codes >= 48) & (codes <= 57))
        | ((codes >= 65) & (codes <= 90))
        | ((codes >= 97) & (codes <= 122))
        | (codes == 95)
    )
    punctuation = (
        (codes < 0xC0)
        | ((codes >= 0x2000) & (codes <= 0x2BFF))
        | ((codes >= 0x3000) & (codes <= 0x303F))
        | ((codes >= 0xFF00) & (codes <= 0xFF0F))
        | ((codes >= 0xFF1A) & (codes <= 0xFF20))
        | _NOT_WORD_CODES[_bmp(codes)]
    )
    mask: np.ndarray = ascii_word | ~punctuation
    return mask


def _char_properties() -> np.ndarray:
    """One table over the BMP: the bits _PROP_* of every character (past the BMP: slot 0xFFFF,
    which is a word character like all of them, and nothing else)."""
    codes = np.arange(0x10000, dtype=np.uint32)
    cjk = _cjk_mask(codes)
    masks = (
        cjk,
        _word_mask(codes) & ~cjk,
        _PUNCT_CODES,
        _END_CODES,
        _CLOSE_CODES,
        (codes >= 48) & (codes <= 57),
        _UPPER_CODES,
        _PIPE_CODES,
        codes == 10,
        _CJK_DATE_CODES,
    )
    table = np.zeros(0x10000, dtype=np.uint16)
    for bit, mask in enumerate(masks):
        table |= mask.astype(np.uint16) << bit
    return table


_CHAR_PROPERTIES = _char_properties()
# The bits of _CHAR_PROPERTIES, as the compiled text counts read them.
_PROP_CJK, _PROP_WORD, _PROP_PUNCT, _PROP_END, _PROP_CLOSE = (
    PROPERTY_BITS[name] for name in ("cjk", "word", "punct", "end", "close")
)
_PROP_DIGIT, _PROP_UPPER, _PROP_PIPE, _PROP_NEWLINE, _PROP_CJK_DATE = (
    PROPERTY_BITS[name] for name in ("digit", "upper", "pipe", "newline", "cjk_date")
)


def _text_counts(joined: str, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Characters, words and the counts of COUNT_NAMES for every block at once (``joined``:
    the ``n`` texts joined by NULs), in one compiled pass."""
    counts = np.zeros((n, len(COUNT_NAMES)))
    lengths = np.zeros(n)
    words = np.zeros(n)
    if n:
        fill_text_counts(joined, _CHAR_PROPERTIES, lengths, words, counts)
    return lengths, words, counts


class _ElementTree(NamedTuple):
    """The elements enclosing a page's blocks, numbered parents first, judged once each."""

    parent: np.ndarray  # each element's parent id, -1 at the top
    own: np.ndarray  # each block's element id
    depth: int  # elements on the longest chain from a block up
    bits: np.ndarray  # each element's own flags (ELEMENT_FLAG_NAMES as bits)
    bits_any: np.ndarray  # the same, OR-ed with every ancestor's
    names: tuple[tuple[str, ...], ...]  # class and id words of each element


def _element_tree(block_elements: list[etree._Element], hidden: list[bool]) -> _ElementTree:
    """Number every element enclosing a block, parents before children, in one walk up.

    An element is visited once, however many blocks it encloses; its class/id flags and
    tag kind are read then, and OR-ed with its parent's (numbered before it).
    """
    own = np.empty(len(block_elements), dtype=np.int64)
    parents, depth, bits, bits_any, names = element_tree(
        block_elements,
        hidden,
        CLASS_NAMES,
        _TAG_BITS,
        PAGE_TAGS,
        ~(_NEGATIVE_BIT | _COMMENT_BIT),
        _HIDDEN_BIT,
        own,
    )
    return _ElementTree(
        np.frombuffer(parents, dtype=np.int64),
        own,
        depth,
        np.frombuffer(bits, dtype=np.int64),
        np.frombuffer(bits_any, dtype=np.int64),
        names,
    )


def _ancestor_matrix(own: np.ndarray, parent: np.ndarray, width: int, depth: int) -> np.ndarray:
    """Each block's element and its ancestors, nearest first, padded with -1.

    ``depth`` (the longest chain) bounds the columns that need a lookup; the rest is padding.
    """
    up = np.append(parent, -1)  # index -1 reads the padding: the root's parent stays -1
    matrix = np.full((len(own), width), -1, dtype=np.int64)
    if width:
        matrix[:, 0] = own
    for level in range(1, min(width, depth)):
        matrix[:, level] = up[matrix[:, level - 1]]
    return matrix


def _unpack_bits(values: np.ndarray) -> np.ndarray:
    shifts = np.arange(len(ELEMENT_FLAG_NAMES))
    bits: np.ndarray = ((values[:, None] >> shifts) & 1).astype(float)
    return bits


#: The flags a class/id word raises (the first three of ``ELEMENT_FLAG_NAMES``).
_POSITIVE_BIT, _NEGATIVE_BIT, _COMMENT_BIT = 1, 1 << 1, 1 << 2
_TAG_BITS = {
    tag: 1 << (3 + k) for k, (_, kind_tags) in enumerate(_ANCESTOR_KINDS) for tag in kind_tags
}
_HIDDEN_BIT = 1 << (3 + len(_ANCESTOR_KINDS))
#: Distinct class/id strings remembered across pages (a site repeats its own on every page);
#: the memo is emptied when full, so memory stays bounded in a long crawl.
NAME_CACHE_SIZE_DEFAULT = 50_000


def _word_bits(word: str) -> int:
    """Positive, negative and comment bits of one class/id word (patterns match in words)."""
    return (
        (_POSITIVE_BIT if _POSITIVE.search(word) else 0)
        | (_NEGATIVE_BIT if _NEGATIVE.search(word) else 0)
        | (_COMMENT_BIT if _COMMENT.search(word) else 0)
    )


#: Every page's class and id texts judged, each once a process (see ``ClassNames``).
CLASS_NAMES = ClassNames(_word_bits, NAME_CACHE_SIZE_DEFAULT)

"""Layout features of a page's blocks (method E), one row a block, as a numpy matrix.

The per-block Python work is limited to numbering the elements that enclose blocks (each
visited once) and judging their class and id strings (once a distinct string, once a
distinct word); text counts, ancestor chains, neighbours, subtree totals and readability's
container vote are vectorised. Feature names are part of the trained model, so a change
here needs ``newsextract train`` to be run again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import chain

import numpy as np
from lxml import etree

from newsextract.extraction.page import Page

#: How many enclosing elements of a block are looked at; bounds work on deeply nested pages.
MAX_ANCESTORS_DEFAULT = 48
#: Ancestor levels whose subtree totals become features (0 = the block's own element).
SUBTREE_LEVELS_DEFAULT = (0, 1, 2, 3, 5)

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W\d_{_CJK}]+")
#: A byline starts its block ("By Jane", "von", "par" ...); checked on each block's first
#: characters only, which spares a scan of the whole page text.
_BYLINE_START = re.compile(r"\x00 ?(?:[Bb][Yy]|[Vv]on|[Pp]ar|[Pp]or|[Dd]i|[Dd]oor) [A-Z]")
_BYLINE_HEAD_CHARS = 8
_BYLINE_WORDS = ("\u8a18\u8005", "\u8bb0\u8005")  # "reporter" anywhere (ja, zh)
#: Looked up in the lower-cased text with ``str.find``, far faster than a regex scan.
_COPYRIGHT_WORDS = ("\u00a9", "(c)", "copyright", "all rights reserved", "\u7248\u6743")

_POSITIVE = re.compile(
    r"article|body|content|entry|main|news|post|story|text|blog|hentry|paragraph|detail|prose"
    r"|column|permalink|instapaper|^page$"
)
_NEGATIVE = re.compile(
    r"comment|meta|footer|foot|footnote|nav|menu|sidebar|side|sponsor|\bad|ads\b|advert|banner"
    r"|promo|related|share|social|widget|breadcrumb|\btags?\b|login|subscribe|newsletter|popup"
    r"|masthead|header|copyright|disclaimer|rss|tool|pagination|pager|outbrain|taboola|recommend"
    r"|popular|trending|^most$|signup|register|cookie|modal|teaser|more|extra|byline|author|date"
    r"|caption|credit|photo|gallery|video|label|rating|print|email|button|skip|search|hidden"
)
_COMMENT = re.compile(r"comment|disqus|respon|repl(?:y|ies)|discussion")

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
_HEADING = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
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


@dataclass(frozen=True)
class BlockTable:
    """Counts read from each block once, plus each block's ancestor element ids."""

    chars: np.ndarray  # characters of the block's text (float)
    words: np.ndarray  # metric tokens (CJK: characters)
    link_chars: np.ndarray
    ancestors: np.ndarray  # (blocks, MAX_ANCESTORS) element ids, -1 past the root
    counts: np.ndarray  # (blocks, len(_COUNT_NAMES)) raw counts from the text
    tags: np.ndarray  # (blocks,) index into OWN_TAGS, len(OWN_TAGS) for other tags
    element_flags: np.ndarray  # (elements, len(_ELEMENT_FLAG_NAMES)), the element's own
    element_any: np.ndarray  # the same flags, set when the element or an ancestor has them
    element_names: tuple[tuple[str, ...], ...]  # class and id words of each element
    tokens: tuple[str, ...]  # lower-cased words of all blocks, for the language model
    token_block: np.ndarray  # the block each token belongs to

    def block_tokens(self) -> list[list[str]]:
        """Tokens grouped by block (for training)."""
        grouped: list[list[str]] = [[] for _ in self.chars]
        for token, block in zip(self.tokens, self.token_block.tolist(), strict=True):
            grouped[block].append(token)
        return grouped


_COUNT_NAMES = (
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
)
_RATE_COLUMNS = [0, 1, 2, 3, 4, 8]
_LOG_COLUMNS = [9, 10, 11]
_ELEMENT_FLAG_NAMES = ("positive", "negative", "comment") + tuple(k for k, _ in _ANCESTOR_KINDS)


def read_blocks(page: Page, max_ancestors: int = MAX_ANCESTORS_DEFAULT) -> BlockTable:
    """One pass over the blocks for tags and ancestor chains; text counts are vectorised."""
    blocks = page.blocks
    n = len(blocks)
    get_tag, other = _TAG_INDEX.get, len(OWN_TAGS)
    tags = np.fromiter((get_tag(block.tag, other) for block in blocks), np.int64, n)
    elements, parent, own = _element_tree([block.element for block in blocks])
    ancestors = _ancestor_matrix(own, parent, max_ancestors)
    inline = np.zeros((n, 2))
    for i, block in enumerate(blocks):
        if block.inline_tags:
            inline[i] = len(block.inline_tags), block.inline_tags.count("img")
    texts = [block.text for block in blocks]
    link = np.fromiter((block.link_chars for block in blocks), float, n)
    chars, words, counts = _text_counts(texts)
    counts[:, 10:12] = inline
    tokens, token_block = _tokens(texts)
    flags, flags_any, names = _element_flags(elements, parent)
    return BlockTable(
        chars,
        words,
        link,
        ancestors,
        counts,
        tags,
        flags,
        flags_any,
        names,
        tokens,
        token_block,
    )


def _tokens(texts: list[str]) -> tuple[tuple[str, ...], np.ndarray]:
    """Every block's lower-cased words, and the block each one belongs to."""
    findall = _TOKEN.findall
    per_block = [findall(text.lower()) for text in texts]
    sizes = np.fromiter(map(len, per_block), np.int64, len(per_block))
    words = tuple(chain.from_iterable(per_block))
    return words, np.repeat(np.arange(len(texts), dtype=np.int64), sizes)


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


def _date_like(codes: np.ndarray) -> np.ndarray:
    """Where a year (19xx, 20xx), a clock time (9:30) or a CJK date (7月) starts."""
    digit = (codes >= 48) & (codes <= 57)
    pad = np.zeros(5, dtype=bool)
    d = np.concatenate([digit, pad])
    c = np.concatenate([codes, pad.astype(np.uint32)])
    n = len(codes)
    before = np.concatenate([[False], digit[:-1]])
    century = ((c[:n] == 49) & (c[1 : n + 1] == 57)) | ((c[:n] == 50) & (c[1 : n + 1] == 48))
    year = century & d[2 : n + 2] & d[3 : n + 3] & ~d[4 : n + 4] & ~before
    clock = digit & (c[1 : n + 1] == 58) & d[2 : n + 2] & d[3 : n + 3]
    cjk_date = digit & _CJK_DATE_CODES[_bmp(c[1 : n + 1])]
    mask: np.ndarray = year | clock | cjk_date
    return mask


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


def _text_counts(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Characters, words and the counts of _COUNT_NAMES for every block at once."""
    n = len(texts)
    counts = np.zeros((n, len(_COUNT_NAMES)))
    lengths = np.fromiter(map(len, texts), float, n)
    if n == 0:
        return lengths, np.zeros(0), counts
    joined = "\x00".join(texts)  # NUL never occurs in block text
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    owner = np.repeat(np.arange(n), lengths.astype(np.int64) + 1)[: len(codes)]
    cjk = _cjk_mask(codes)
    word = _word_mask(codes) & ~cjk
    word_start = word & ~np.concatenate([[False], word[:-1]])
    bmp = _bmp(codes)
    following = np.concatenate([bmp[1:], [0]])
    sentence_end = _END_CODES[bmp] & _CLOSE_CODES[following]
    masks = (
        _PUNCT_CODES[bmp],
        sentence_end,
        (codes >= 48) & (codes <= 57),
        (codes >= 65) & (codes <= 90),
        _PIPE_CODES[bmp],
    )
    for column, mask in enumerate(masks):
        counts[:, column] = np.bincount(owner[mask], minlength=n)
    starts = np.concatenate([[0], np.cumsum(lengths[:-1] + 1)])
    counts[:, 5] = np.bincount(owner[_date_like(codes)], minlength=n) > 0
    counts[:, 6] = _byline_blocks(texts, joined, starts)
    lowered = joined.lower()
    if len(lowered) == len(joined):
        counts[:, 7] = _blocks_with(lowered, _COPYRIGHT_WORDS, starts)
    else:  # a few characters grow when lower-cased (U+0130): positions would shift
        counts[:, 7] = [any(w in t.lower() for w in _COPYRIGHT_WORDS) for t in texts]
    counts[:, 8] = np.bincount(owner[cjk], minlength=n)
    counts[:, 9] = np.bincount(owner[codes == 10], minlength=n)
    words = np.bincount(owner[word_start], minlength=n) + counts[:, 8]
    return lengths, words.astype(float), counts


def _byline_blocks(texts: list[str], joined: str, starts: np.ndarray) -> np.ndarray:
    """1 for blocks that open with a byline or name a reporter."""
    heads = "".join("\x00" + text[:_BYLINE_HEAD_CHARS] for text in texts)
    flags = _blocks_with(joined, _BYLINE_WORDS, starts)
    hits = [match.start() for match in _BYLINE_START.finditer(heads)]
    if hits:
        head_starts = np.arange(len(texts)) + np.cumsum(
            [0] + [min(len(t), _BYLINE_HEAD_CHARS) for t in texts[:-1]]
        )
        flags[np.searchsorted(head_starts, hits, side="right") - 1] = 1.0
    return flags


def _blocks_with(joined: str, words: tuple[str, ...], starts: np.ndarray) -> np.ndarray:
    """1 for blocks (starting at ``starts`` in ``joined``) that contain any of ``words``."""
    flags = np.zeros(len(starts))
    for word in words:
        at = joined.find(word)
        while at >= 0:
            block = int(np.searchsorted(starts, at, side="right")) - 1
            flags[block] = 1.0
            next_block = block + 1
            resume = int(starts[next_block]) if next_block < len(starts) else len(joined)
            at = joined.find(word, resume)
    return flags


def _element_tree(
    block_elements: list[etree._Element],
) -> tuple[list[etree._Element], np.ndarray, np.ndarray]:
    """Numbers every element enclosing a block, parents before children.

    Returns the elements, each one's parent id (-1 at the root) and each block's element id.
    An element is visited once, however many blocks it encloses.
    """
    ids: dict[etree._Element, int] = {}
    elements: list[etree._Element] = []
    parents: list[int] = []
    own: list[int] = []
    for element in block_elements:
        ident = ids.get(element)
        if ident is None:
            path: list[etree._Element] = []
            current: etree._Element | None = element
            while current is not None and current not in ids:
                path.append(current)
                current = current.getparent()
            ident = -1 if current is None else ids[current]
            for member in reversed(path):
                parents.append(ident)
                ident = ids[member] = len(elements)
                elements.append(member)
        own.append(ident)
    return elements, np.array(parents, dtype=np.int64), np.array(own, dtype=np.int64)


def _ancestor_matrix(own: np.ndarray, parent: np.ndarray, width: int) -> np.ndarray:
    """Each block's element and its ancestors, nearest first, padded with -1."""
    up = np.append(parent, -1)  # index -1 reads the padding: the root's parent stays -1
    matrix = np.empty((len(own), width), dtype=np.int64)
    if width:
        matrix[:, 0] = own
    for level in range(1, width):
        matrix[:, level] = up[matrix[:, level - 1]]
    return matrix


def _element_flags(
    elements: list[etree._Element], parent: np.ndarray
) -> tuple[np.ndarray, np.ndarray, tuple[tuple[str, ...], ...]]:
    """Each element's flags as bits, and the same OR-ed down from all its ancestors."""
    judged = [_names_of(element) for element in elements]
    get_tag = _TAG_BITS.get
    own = np.fromiter(
        (
            bits | get_tag(element.tag, 0)
            for (bits, _), element in zip(judged, elements, strict=True)
        ),
        np.int64,
        len(elements),
    )
    cumulative = own.copy()
    jump = parent.copy()
    while len(jump) and (jump >= 0).any():  # pointer jumping: log2(depth) steps
        here = jump >= 0
        cumulative[here] |= cumulative[jump[here]]
        jump = np.where(here, jump[np.maximum(jump, 0)], -1)
    return _unpack_bits(own), _unpack_bits(cumulative), tuple(words for _, words in judged)


def _unpack_bits(values: np.ndarray) -> np.ndarray:
    shifts = np.arange(len(_ELEMENT_FLAG_NAMES))
    bits: np.ndarray = ((values[:, None] >> shifts) & 1).astype(float)
    return bits


_NAME_WORD = re.compile(r"[a-z]{2,}")
_TAG_BITS = {
    tag: 1 << (3 + k) for k, (_, kind_tags) in enumerate(_ANCESTOR_KINDS) for tag in kind_tags
}
_NO_NAMES: tuple[int, tuple[str, ...]] = (0, ())
#: Distinct class/id strings remembered across pages (a site repeats its own on every page);
#: the memo is emptied when full, so memory stays bounded in a long crawl.
NAME_CACHE_SIZE_DEFAULT = 50_000
_NAME_CACHE: dict[str, tuple[int, tuple[str, ...]]] = {}
_WORD_BITS: dict[str, int] = {}


def _names_of(element: etree._Element) -> tuple[int, tuple[str, ...]]:
    """The flag bits and the words of an element's class and id, judged once a string."""
    classes, ident = element.get("class"), element.get("id")
    if not classes and not ident:
        return _NO_NAMES
    key = f"{classes or ''} {ident or ''}"
    found = _NAME_CACHE.get(key)
    if found is None:
        if len(_NAME_CACHE) >= NAME_CACHE_SIZE_DEFAULT:
            _NAME_CACHE.clear()
            _WORD_BITS.clear()
        words = tuple(dict.fromkeys(_NAME_WORD.findall(key[:200].lower())))
        bits = 0
        for word in words:
            bits |= _word_bits(word)
        found = _NAME_CACHE[key] = (bits, words)
    return found


def _word_bits(word: str) -> int:
    """Positive, negative and comment bits of one class/id word (patterns match in words)."""
    bits = _WORD_BITS.get(word)
    if bits is None:
        bits = _WORD_BITS[word] = (
            (_POSITIVE.search(word) is not None)
            | (_NEGATIVE.search(word) is not None) << 1
            | (_COMMENT.search(word) is not None) << 2
        )
    return bits


def feature_names() -> tuple[str, ...]:
    """Column names of :func:`layout_features`, stored with the trained model."""
    names = ["log_chars", "log_words", "link_density", "rel_index", "rel_char_pos", "depth"]
    names += [f"rate_{name}" for name in _COUNT_NAMES]
    names += [f"tag_{tag}" for tag in OWN_TAGS] + ["tag_other", "tag_heading"]
    names += [f"self_{name}" for name in _ELEMENT_FLAG_NAMES[:3]]
    names += [f"near_{name}" for name in _ELEMENT_FLAG_NAMES[:3]]
    names += [f"any_{name}" for name in _ELEMENT_FLAG_NAMES]
    for level in SUBTREE_LEVELS_DEFAULT:
        names += [f"up{level}_share", f"up{level}_links", f"up{level}_blocks", f"up{level}_ends"]
    for offset in (-2, -1, 1, 2):
        names += [f"nb{offset}_log_chars", f"nb{offset}_links", f"nb{offset}_ends"]
    names += ["win_chars", "win_links", "page_log_chars", "page_blocks", "same_parent_prev"]
    names += ["name_self", "name_near", "name_max", "name_min", "name_sum"]
    names += list(CONTAINER_FEATURE_NAMES)
    return tuple(names)


def layout_features(table: BlockTable, names: dict[str, float] | None = None) -> np.ndarray:
    """The layout feature matrix, one row a block, columns as :func:`feature_names`."""
    n = len(table.chars)
    if n == 0:
        return np.zeros((0, len(feature_names())))
    chars = table.chars
    safe = np.maximum(chars, 1.0)
    links = table.link_chars / safe
    ends = np.minimum(table.counts[:, 1], 20.0)
    own = _own_features(table, safe, links)
    flags = _ancestor_flags(table)
    totals = element_totals(table, ends)
    subtree = _subtree_features(table, totals)
    neighbours = _neighbour_features(np.log1p(chars), links, ends)
    page = _page_features(table, links)
    named = _name_features(table, names or {})
    container = container_features(table, totals)
    return np.hstack([own, flags, subtree, neighbours, page, named, container])


def _own_features(table: BlockTable, safe: np.ndarray, links: np.ndarray) -> np.ndarray:
    n = len(safe)
    cum = np.cumsum(table.chars) - table.chars
    total = max(float(table.chars.sum()), 1.0)
    depth = (table.ancestors >= 0).sum(axis=1)
    base = np.column_stack(
        [
            np.log1p(table.chars),
            np.log1p(table.words),
            links,
            np.arange(n) / max(n - 1, 1),
            cum / total,
            depth,
        ]
    )
    rates = table.counts.copy()
    rates[:, _RATE_COLUMNS] /= safe[:, None]  # counts of characters become rates
    rates[:, _LOG_COLUMNS] = np.log1p(rates[:, _LOG_COLUMNS])  # counts of things stay counts
    tag_onehot = np.zeros((n, len(OWN_TAGS) + 1))
    tag_onehot[np.arange(n), table.tags] = 1.0
    heading = np.isin(table.tags, [OWN_TAGS.index(t) for t in ("h1", "h2", "h3", "h4")])
    return np.hstack([base, rates, tag_onehot, heading[:, None].astype(float)])


def _ancestor_flags(table: BlockTable) -> np.ndarray:
    anc = table.ancestors
    own = table.element_flags[anc[:, 0], :3]
    near = np.zeros_like(own)
    for level in (1, 2, 3):
        column = anc[:, min(level, anc.shape[1] - 1)]
        here = column >= 0
        near = np.maximum(near, table.element_flags[np.where(here, column, 0), :3] * here[:, None])
    return np.hstack([own, near, table.element_any[anc[:, 0]]])


def _name_features(table: BlockTable, names: dict[str, float]) -> np.ndarray:
    """Learned class/id word log-odds: the block's own element, its parent, the chain."""
    get = names.get
    score = np.zeros(len(table.element_names) + 1)  # the last slot stands for "no element"
    memo: dict[tuple[str, ...], float] = {(): 0.0}
    for ident, words in enumerate(table.element_names):
        value = memo.get(words)
        if value is None:
            values = [v for v in map(get, words) if v is not None]
            value = memo[words] = sum(values) / len(values) if values else 0.0
        score[ident] = value
    chain = score[table.ancestors]  # -1 picks the empty last slot
    near = chain[:, 1:4] if chain.shape[1] > 1 else chain[:, :1]
    return np.column_stack(
        [chain[:, 0], near.mean(axis=1), chain.max(axis=1), chain.min(axis=1), chain.sum(axis=1)]
    )


@dataclass(frozen=True)
class ElementTotals:
    """Sums over each element's subtree (its blocks' values), indexed by element id."""

    chars: np.ndarray
    link_chars: np.ndarray
    blocks: np.ndarray
    ends: np.ndarray
    parent: np.ndarray  # parent element id, -1 at the top of the chains


def element_totals(table: BlockTable, ends: np.ndarray) -> ElementTotals:
    anc = table.ancestors
    n_elements = len(table.element_flags)
    valid = anc >= 0
    rows = np.repeat(np.arange(len(anc)), valid.sum(axis=1))
    ids = anc[valid]
    parent = np.full(n_elements, -1, dtype=np.int64)
    if anc.shape[1] > 1:
        child, up = anc[:, :-1], anc[:, 1:]
        parent[child[child >= 0]] = up[child >= 0]
    return ElementTotals(
        np.bincount(ids, table.chars[rows], minlength=n_elements),
        np.bincount(ids, table.link_chars[rows], minlength=n_elements),
        np.bincount(ids, minlength=n_elements).astype(float),
        np.bincount(ids, ends[rows], minlength=n_elements),
        parent,
    )


def _subtree_features(table: BlockTable, totals: ElementTotals) -> np.ndarray:
    """Totals of the subtree of each block's ancestor at a few levels: readability's signal."""
    anc = table.ancestors
    chars, link_chars, blocks = totals.chars, totals.link_chars, totals.blocks
    total = max(float(table.chars.sum()), 1.0)
    columns = []
    for level in SUBTREE_LEVELS_DEFAULT:
        column = anc[:, min(level, anc.shape[1] - 1)]
        here = column >= 0
        pick = np.where(here, column, 0)
        share = np.where(here, chars[pick] / total, 1.0)
        dens = np.where(here, link_chars[pick] / np.maximum(chars[pick], 1.0), 0.0)
        count = np.where(here, np.log1p(blocks[pick]), 0.0)
        end_rate = np.where(here, totals.ends[pick] / np.maximum(blocks[pick], 1.0), 0.0)
        columns += [share, dens, count, end_rate]
    return np.column_stack(columns)


#: A block with fewer characters adds nothing to its containers' score (readability: 25).
CONTAINER_MIN_CHARS_DEFAULT = 25
#: A container's share of the page's text at which it counts as holding most of it.
MAJORITY_SHARE_DEFAULT = 0.5
CONTAINER_FEATURE_NAMES = (
    "box_in_best",
    "box_best_distance",
    "box_in_best_parent",
    "box_best_share",
    "box_parent_ratio",
    "box_chain_ratio",
    "box_majority_distance",
)


def container_features(table: BlockTable, totals: ElementTotals) -> np.ndarray:
    """Readability's container vote without training: where is the page's main text box?

    Every block of at least CONTAINER_MIN_CHARS_DEFAULT characters scores 1 + its punctuation
    + one point a hundred characters (at most 3), given to its parent in full and to its
    grandparent by half; a container's score is then discounted by its link density. Per
    block: inside the best container, how many levels below it, inside its parent (a
    sibling box), the best one's share of the page's text, its parent's and the best of its
    chain's score relative to the best, and the levels up to the nearest enclosing element
    that holds most of the page's text. None of these depends on a site's naming.
    """
    anc = table.ancestors
    n, width = anc.shape
    scores = np.where(
        table.chars >= CONTAINER_MIN_CHARS_DEFAULT,
        1.0 + table.counts[:, 0] + np.minimum(table.chars / 100.0, 3.0),
        0.0,
    )
    size = len(totals.chars) + 1  # the last slot stands for "no element" (-1)
    box = np.zeros(size)
    for level, share in ((1, 1.0), (2, 0.5)):
        if level < width:
            column = np.where(anc[:, level] >= 0, anc[:, level], size - 1)
            box += np.bincount(column, scores * share, minlength=size)
    box[:-1] *= 1.0 - totals.link_chars / np.maximum(totals.chars, 1.0)
    box[-1] = 0.0
    best = int(np.argmax(box[:-1])) if size > 1 else -1
    top = float(box[best]) if best >= 0 else 0.0
    columns = np.zeros((n, len(CONTAINER_FEATURE_NAMES)))
    total = max(float(table.chars.sum()), 1.0)
    majority = np.where(anc >= 0, totals.chars[anc] / total, 0.0) >= MAJORITY_SHARE_DEFAULT
    has_majority = majority.any(axis=1)
    columns[:, 6] = np.where(has_majority, np.argmax(majority, axis=1), width)
    if top <= 0.0:
        return columns
    at_best = anc == best
    inside = at_best.any(axis=1)
    parent = totals.parent[best]
    columns[:, 0] = inside
    columns[:, 1] = np.where(inside, np.argmax(at_best, axis=1), -1.0)
    columns[:, 2] = (anc == parent).any(axis=1) if parent >= 0 else 0.0
    columns[:, 3] = totals.chars[best] / total
    columns[:, 4] = box[anc[:, 1]] / top if width > 1 else 0.0
    columns[:, 5] = box[anc].max(axis=1) / top
    return columns


def _neighbour_features(log_chars: np.ndarray, links: np.ndarray, ends: np.ndarray) -> np.ndarray:
    columns = []
    for offset in (-2, -1, 1, 2):
        columns += [shift(log_chars, offset), shift(links, offset, 1.0), shift(ends, offset)]
    return np.column_stack(columns)


def shift(values: np.ndarray, offset: int, fill: float = 0.0) -> np.ndarray:
    """``values`` moved by ``offset`` places (the neighbour's value), ``fill`` past the ends."""
    out = np.full_like(values, fill)
    if offset < 0 and -offset < len(values):
        out[-offset:] = values[:offset]
    elif offset > 0 and offset < len(values):
        out[:-offset] = values[offset:]
    return out


def _page_features(table: BlockTable, links: np.ndarray) -> np.ndarray:
    n = len(table.chars)
    win_chars = window_sum(table.chars, 3)
    win_links = window_sum(table.link_chars, 3) / np.maximum(win_chars, 1.0)
    total = float(table.chars.sum())
    parents = table.ancestors[:, 1] if table.ancestors.shape[1] > 1 else table.ancestors[:, 0]
    same_parent = np.zeros(n)
    same_parent[1:] = parents[1:] == parents[:-1]
    return np.column_stack(
        [
            np.log1p(win_chars),
            win_links,
            np.full(n, np.log1p(total)),
            np.full(n, np.log1p(n)),
            same_parent,
        ]
    )


def window_sum(values: np.ndarray, half: int) -> np.ndarray:
    """Sum of ``values[i - half : i + half + 1]`` for every i, clipped at the ends."""
    cum = np.concatenate([[0.0], np.cumsum(values)])
    n = len(values)
    index = np.arange(n)
    result: np.ndarray = cum[np.minimum(index + half + 1, n)] - cum[np.maximum(index - half, 0)]
    return result

"""Method D: punctuation density (seed 003, after Mingqiu & Xintao, WiCOM 2007).

Running text is written in sentences, and sentences carry commas and full stops; menus,
link lists, bylines and captions carry few. The page's blocks are gathered into *nodes*
(their nearest container element: a DIV in the paper, any sectioning container here),
each node is scored by the sentence punctuation of its text, the nodes scoring above the
page average are kept, and the best node is the *main node*. Kept nodes that are not
inside the main node's parent are dropped (the paper's position check).

The paper's score formula was lost (it was an image). Here a node's score is its count
of sentence punctuation marks, discounted by the share of its text inside links: a
number, as in the paper's title, so that a long article paragraph outweighs a short
line that happens to end in a full stop.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from newsextract.extraction.evidence.method import MethodResult
from newsextract.extraction.pagemodel.blocks import Block
from newsextract.extraction.pagemodel.page import Page, is_inside

METHOD_NAME = "punctuation"

#: Sentence punctuation of many scripts: Latin and Greek (the Greek question mark is
#: U+037E), CJK full-width and ideographic forms, Arabic and Urdu, Devanagari and other
#: Indic dandas, Armenian, Ethiopic, Myanmar, Khmer, Tibetan. Brackets, quotes, dashes and
#: separators such as "|" and "»" are left out: menus and breadcrumbs are full of them.
SENTENCE_PUNCTUATION = (
    ".,;:!?"
    "\u037e\u0387"  # Greek question mark, ano teleia
    "\u3001\u3002\uff0c\uff0e\uff1a\uff1b\uff01\uff1f"  # CJK 、。，．：；！？
    "\uff61\uff64"  # halfwidth 。、
    "\u060c\u061b\u061f\u06d4"  # Arabic comma, semicolon, question mark, Urdu full stop
    "\u0964\u0965"  # Devanagari danda, double danda
    "\u0589"  # Armenian full stop
    "\u1361\u1362\u1363\u1364"  # Ethiopic wordspace, full stop, comma, semicolon
    "\u104a\u104b"  # Myanmar little and full section
    "\u17d4\u17d5"  # Khmer khan, bariyoosan
    "\u0f0d"  # Tibetan shad
    "\u2026"  # ellipsis
)
_PUNCTUATION = re.compile(f"[{re.escape(SENTENCE_PUNCTUATION)}]")

#: Containers that make a node. The paper used DIV only, which fails on pages not built
#: of DIVs (its Suntimes result); the sectioning elements and table cells do the same job.
NODE_TAGS_DEFAULT = frozenset(
    {"div", "article", "section", "main", "td", "th", "body", "form", "center", "blockquote"}
)
#: Nodes whose text is more link than not score nothing: link lists with a full stop in
#: every title would otherwise pass. 0.5 is the conventional boundary (also the interim
#: combiner's); checked on dragnet, where 0.4-0.6 change F1 by under 0.005.
MAX_LINK_DENSITY_DEFAULT = 0.5
#: A node is kept when its score is above this multiple of the mean score of the scored
#: nodes. The paper keeps nodes "above the page average": 1.0.
AVERAGE_FACTOR_DEFAULT = 1.0
#: Nodes with fewer marks than this never count, so a page of captions is not an article.
MIN_PUNCTUATION_DEFAULT = 1


@dataclass(frozen=True)
class PunctuationConfig:
    """Tunables of method D; see the ``*_DEFAULT`` constants for their calibration."""

    node_tags: frozenset[str] = NODE_TAGS_DEFAULT
    max_link_density: float = MAX_LINK_DENSITY_DEFAULT
    average_factor: float = AVERAGE_FACTOR_DEFAULT
    min_punctuation: int = MIN_PUNCTUATION_DEFAULT
    position_check: bool = True


@dataclass(frozen=True)
class _Node:
    element: etree._Element
    blocks: tuple[int, ...]
    score: float


def punctuation_count(text: str) -> int:
    """Sentence punctuation marks in ``text``, in any supported script.

    >>> punctuation_count("Hello, world. 東京、晴れ。 Salam، dunya؟ | » -")
    6
    """
    return len(_PUNCTUATION.findall(text))


def block_score(
    block: Block, config: PunctuationConfig = PunctuationConfig(), marks: int | None = None
) -> float:
    """A block's punctuation count, discounted by its link share; 0 for link-heavy text and
    for hidden blocks (tabs and menus a script shows: the method cannot judge them)."""
    if block.hidden or block.link_density > config.max_link_density:
        return 0.0
    count = punctuation_count(block.text) if marks is None else marks
    return count * (1.0 - block.link_density)


def punctuation_density(
    page: Page, config: PunctuationConfig = PunctuationConfig()
) -> MethodResult:
    """Method D on one page: the blocks of the main node and its kept siblings."""
    marks = [punctuation_count(block.text) for block in page.blocks]
    block_scores = [
        block_score(block, config, count) for block, count in zip(page.blocks, marks, strict=True)
    ]
    nodes = _score_nodes(page.blocks, marks, block_scores, config)
    kept_nodes = _above_average(nodes, config)
    if not kept_nodes:
        return MethodResult(METHOD_NAME, (), 0.0, _normalised(block_scores))
    main = max(kept_nodes, key=lambda node: node.score)
    if config.position_check:
        kept_nodes = _position_check(kept_nodes, main)
    kept = tuple(sorted(i for node in kept_nodes for i in node.blocks if not page.blocks[i].hidden))
    total = sum(block_scores)
    confidence = sum(block_scores[i] for i in kept) / total if total else 0.0
    return MethodResult(METHOD_NAME, kept, confidence, _normalised(block_scores))


def node_of(block: Block, node_tags: frozenset[str]) -> etree._Element:
    """The block's nearest container (itself included), or the topmost element."""
    element: etree._Element | None = block.element
    last = block.element
    while element is not None:
        if element.tag in node_tags:
            return element
        last = element
        element = element.getparent()
    return last


def _score_nodes(
    blocks: Sequence[Block],
    marks: Sequence[int],
    block_scores: Sequence[float],
    config: PunctuationConfig,
) -> list[_Node]:
    members: dict[etree._Element, list[int]] = {}
    for block in blocks:
        members.setdefault(node_of(block, config.node_tags), []).append(block.index)
    nodes = []
    for element, indexes in members.items():
        length = sum(len(blocks[i].text) for i in indexes)
        link_chars = sum(blocks[i].link_chars for i in indexes)
        density = link_chars / length if length else 0.0
        node_marks = sum(marks[i] for i in indexes)
        if density > config.max_link_density or node_marks < config.min_punctuation:
            score = 0.0
        else:
            score = sum(block_scores[i] for i in indexes)
        nodes.append(_Node(element, tuple(indexes), score))
    return nodes


def _above_average(nodes: Sequence[_Node], config: PunctuationConfig) -> list[_Node]:
    """Nodes scoring above ``average_factor`` times the mean score of all nodes with text."""
    if not nodes:
        return []
    mean = sum(node.score for node in nodes) / len(nodes)
    return [node for node in nodes if node.score > 0 and node.score > config.average_factor * mean]


def _position_check(nodes: Sequence[_Node], main: _Node) -> list[_Node]:
    """Keep the nodes inside the main node's parent (the main node itself if it has none)."""
    scope = main.element.getparent()
    if scope is None:
        return [main]
    return [node for node in nodes if is_inside(node.element, scope)]


def _normalised(scores: Sequence[float]) -> tuple[float, ...]:
    top = max(scores, default=0.0)
    return tuple(score / top if top else 0.0 for score in scores)

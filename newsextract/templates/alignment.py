"""Method B (seed 002): page-pair tree alignment, template and non-template regions, pruning.

Both trees are walked in parallel from BODY, deep and order-tolerant: the children of two
matched nodes are paired by their key (tag, id, class) in document order, so an inserted box
does not shift every later comparison. Node comparison follows the paper: different tags
differ; a node with text and one without differ; equal text is the same. A matched node whose
text is equal on both pages is *template*; pruning deletes template nodes, and the *reduction
ratio* is the pruned size over the original size (0.4-0.5 was typical for the paper's sites).
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from dataclasses import dataclass

from lxml import etree

#: Alignment stops below this depth from BODY: a bound for pathological nesting, deeper than
#: the layouts of the development pages (not a tuned value).
MAX_ALIGN_DEPTH_DEFAULT = 40
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Alignment:
    """Template elements of the first page (matched and with equal text on the second)."""

    template: frozenset[etree._Element]
    total: int  # elements under BODY on the first page


def _key(element: etree._Element) -> tuple[str, str, str]:
    """Tag, id and class, with numbers folded (``post-1234`` pairs with ``post-5678``)."""
    return (
        str(element.tag),
        _DIGITS.sub("#", element.get("id", "")),
        _DIGITS.sub("#", element.get("class", "")),
    )


def _text(element: etree._Element) -> str:
    return " ".join(((element.text or "") + " " + (element.tail or "")).split())


def _pair_children(
    a: etree._Element, b: etree._Element
) -> list[tuple[etree._Element, etree._Element]]:
    """Children paired by key, in order, tolerant of insertions on either side."""
    waiting: dict[tuple[str, str, str], deque[etree._Element]] = defaultdict(deque)
    for child in b:
        if isinstance(child.tag, str):
            waiting[_key(child)].append(child)
    pairs = []
    for child in a:
        if isinstance(child.tag, str) and waiting[_key(child)]:
            pairs.append((child, waiting[_key(child)].popleft()))
    return pairs


def align(
    first: etree._Element, second: etree._Element, max_depth: int = MAX_ALIGN_DEPTH_DEFAULT
) -> Alignment:
    """Align two pages' trees (their roots) and mark the first page's template elements."""
    body_a, body_b = first.find("body"), second.find("body")
    if body_a is None or body_b is None:
        return Alignment(frozenset(), 0)
    template: set[etree._Element] = set()
    stack = [(body_a, body_b, 0)]
    while stack:
        a, b, depth = stack.pop()
        if _text(a) == _text(b):
            template.add(a)
        if depth < max_depth:
            stack.extend((x, y, depth + 1) for x, y in _pair_children(a, b))
    total = sum(1 for el in body_a.iter() if isinstance(el.tag, str))
    return Alignment(frozenset(template), total)


def pruned_size(root: etree._Element, alignment: Alignment) -> int:
    """Elements left once template nodes are deleted: non-template ones and their ancestors."""
    body = root.find("body")
    if body is None:
        return 0
    keep: set[etree._Element] = set()
    elements = [el for el in body.iter() if isinstance(el.tag, str)]
    for element in reversed(elements):  # children before parents
        if element not in alignment.template or any(child in keep for child in element):
            keep.add(element)
    return len(keep)


def reduction_ratio(first: etree._Element, second: etree._Element) -> float:
    """Seed 002's figure for one page pair: pruned size over original size of the first."""
    alignment = align(first, second)
    return pruned_size(first, alignment) / alignment.total if alignment.total else 0.0

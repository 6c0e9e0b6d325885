"""Candidate XPaths for an element: ways a rule can find it again on another page of the site.

A candidate is a (pivot, path) pair: the pivot is found on the page by its attributes (an id,
a class, an itemprop) or is the body element; the path walks from the pivot to the element by
tag and position among same-tag siblings. Identifiers that look generated per page (long runs
of digits) are never used.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml import etree

#: How many ancestors up a candidate may look for an attribute pivot (seed 002 used a label
#: near the data). Not calibrated: a bound on the candidates tried, above which the path
#: from a far pivot is as brittle as one from BODY, which is always a candidate.
MAX_PIVOT_DISTANCE_DEFAULT = 4
_VOLATILE = re.compile(r"\d{4,}|[0-9a-f]{8,}", re.I)
_SAFE_VALUE = re.compile(r"^[^'\"]{1,120}$")
_ATTRIBUTES = ("id", "itemprop", "class", "role")

Candidate = tuple[str, str]  # (pivot, path)


def _attribute_pivots(element: etree._Element) -> Iterator[str]:
    tag = element.tag
    for name in _ATTRIBUTES:
        value = element.get(name)
        if value and _SAFE_VALUE.match(value) and not _VOLATILE.search(value):
            yield f"//{tag}[@{name}='{value}']"


_INDEXED = re.compile(r"^//[\w-]+\[@(?:id|itemprop|class|role)='[^'\"]*'\]$|^//body$")


def is_indexed_pivot(pivot: str) -> bool:
    """Whether :func:`pivot_index` holds every element the pivot selects."""
    return _INDEXED.match(pivot) is not None


def pivot_index(root: etree._Element) -> dict[str, list[etree._Element]]:
    """Every attribute pivot of a page with the elements it selects, in document order: the
    same answer as evaluating each pivot's XPath, for the price of one walk (induction tries
    hundreds of pivots on every page)."""
    index: dict[str, list[etree._Element]] = {}
    for element in root.iter():
        if isinstance(element.tag, str):
            for pivot in _attribute_pivots(element):
                index.setdefault(pivot, []).append(element)
            if element.tag == "body":
                index.setdefault("//body", []).append(element)
    return index


def step(element: etree._Element) -> str:
    """The element as one step from its parent: tag, and position among same-tag siblings."""
    parent = element.getparent()
    if parent is None:
        return str(element.tag)
    same = [child for child in parent if child.tag == element.tag]
    if len(same) == 1:
        return str(element.tag)
    return f"{element.tag}[{same.index(element) + 1}]"


def candidates(
    element: etree._Element, max_distance: int = MAX_PIVOT_DISTANCE_DEFAULT
) -> Iterator[Candidate]:
    """Ways to find the element again, the most specific first."""
    steps: list[str] = []
    current: etree._Element | None = element
    distance = 0
    while current is not None and isinstance(current.tag, str):
        path = "/".join(reversed(steps)) or "."
        if current.tag == "body":
            yield "//body", path
            return
        if distance <= max_distance:
            for pivot in _attribute_pivots(current):
                yield pivot, path
        steps.append(step(current))
        current = current.getparent()
        distance += 1

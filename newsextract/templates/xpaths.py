"""Candidate XPaths for an element: ways a rule can find it again on another page of the site.

A candidate is a (pivot, path) pair: the pivot is found on the page by its attributes (an id,
a class, an itemprop) or is the body element; the path walks from the pivot to the element by
tag and position among same-tag siblings. Identifiers that look generated per page (long runs
of digits) are never used.

Tag names and attribute values come from the page, and libxml2 keeps ``|[]():*=`` and quotes
in tag names: pasted into an expression they would be code (``x|descendant::*[...]`` took 87 s
on one page, in every later crawl). So every name goes in through :func:`name_test` and every
value through :func:`xpath_literal`, and :func:`is_rule_xpath` says whether an expression fits
the grammar rules are written in: only such expressions are ever evaluated or loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from lxml import etree

#: How many ancestors up a candidate may look for an attribute pivot (seed 002 used a label
#: near the data). Not calibrated: a bound on the candidates tried, above which the path
#: from a far pivot is as brittle as one from BODY, which is always a candidate.
MAX_PIVOT_DISTANCE_DEFAULT = 4
_VOLATILE = re.compile(r"\d{4,}|[0-9a-f]{8,}", re.I)
_SAFE_VALUE = re.compile(r".{1,120}", re.S)  # quotes too: values go in as literals
_ATTRIBUTES = ("id", "itemprop", "class", "role")

Candidate = tuple[str, str]  # (pivot, path)

#: A name an expression may hold as it is: an XML name without a colon, in ASCII (every tag
#: and attribute name of HTML). Any other tag is matched by ``*[name()='...']``.
XML_NAME = r"[A-Za-z_][A-Za-z0-9._-]*"
_XML_NAME = re.compile(XML_NAME)


def xpath_literal(value: str) -> str:
    """``value`` as an XPath string literal, whatever quotes it holds (XPath 1.0 has no
    escapes: a value with both kinds is a ``concat()`` of pieces).

    >>> print(xpath_literal("story"), xpath_literal("it's"), xpath_literal('say "it' + "'s" + '"'))
    'story' "it's" concat('say "it', "'", 's"')
    """
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    apostrophe = '"\'"'  # the one character, as the one literal that can hold it
    return "concat(" + f", {apostrophe}, ".join(f"'{piece}'" for piece in value.split("'")) + ")"


def name_test(tag: str) -> str:
    """The step that selects elements of the tag: the tag itself when it is a plain name,
    else a test of the name as a literal (a name is never code).

    >>> print(name_test("div"), name_test("o:p"), name_test("x|descendant::*"))
    div *[name()='o:p'] *[name()='x|descendant::*']
    """
    if _XML_NAME.fullmatch(tag):
        return tag
    return f"*[name()={xpath_literal(tag)}]"


#: Rule expressions longer than this are refused (induction writes under 200 characters).
MAX_XPATH_CHARS_DEFAULT = 1000
_QUOTED = r"""(?:'[^']*'|"[^"]*")"""
_LITERAL = rf"(?:{_QUOTED}|concat\(\s*{_QUOTED}(?:\s*,\s*{_QUOTED})+\s*\))"
_TEST = rf"(?:{XML_NAME}|\*\[name\(\)\s*=\s*{_LITERAL}\]|\*)"
_PREDICATE = (
    rf"\[\s*(?:[1-9][0-9]{{0,5}}|@{XML_NAME}(?:\s*=\s*{_LITERAL})?"
    rf"|contains\(\s*@{XML_NAME}\s*,\s*{_LITERAL}\s*\))\s*\]"
)
_STEP = rf"{_TEST}(?:{_PREDICATE}){{0,2}}"
_RULE_XPATH = re.compile(rf"\.|(?:\.?//?)?{_STEP}(?:/{_STEP})*")


@lru_cache(maxsize=8192)
def is_rule_xpath(expression: str) -> bool:
    """Whether an expression fits the grammar of rules (``RULES.md``): what induction writes
    (``//tag[@name='value']``, ``.//tag``, ``tag[2]/tag``, ``*[name()='o:p']``) and what a
    person adds by hand (``contains(@class, '...')``, ``[@href]``, ``/`` from the root): one
    ``//`` at most, at the start, steps down by name, attribute and position, no other axis
    or function. Each such expression costs one walk of the page at most.

    >>> is_rule_xpath("//div[@class='story']"), is_rule_xpath("div[2]/p"), is_rule_xpath(".")
    (True, True, True)
    >>> is_rule_xpath("//x|descendant::*[count(following::*)=1]"), is_rule_xpath("//a//b")
    (False, False)
    """
    if len(expression) > MAX_XPATH_CHARS_DEFAULT:
        return False
    return _RULE_XPATH.fullmatch(expression) is not None


def _attribute_pivots(element: etree._Element) -> Iterator[str]:
    test = name_test(str(element.tag))
    for name in _ATTRIBUTES:
        value = element.get(name)
        if value and _SAFE_VALUE.fullmatch(value) and not _VOLATILE.search(value):
            yield f"//{test}[@{name}={xpath_literal(value)}]"


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
    test = name_test(str(element.tag))
    parent = element.getparent()
    if parent is None:
        return test
    same = [child for child in parent if child.tag == element.tag]
    if len(same) == 1:
        return test
    return f"{test}[{same.index(element) + 1}]"


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

"""What an element inherits from its ancestors (lies in a dialog, a footer, a form), read
once an element for a whole page: a block of a page of 20,000 blocks, 60 levels deep, then
costs one step, not 60."""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree


class Inherited:
    """Flags of an element or-ed with those of every ancestor, up to (not including) the
    first element whose tag is in ``stop``; memoised, so use one a page."""

    def __init__(
        self, own: Callable[[etree._Element], int], stop: frozenset[str] = frozenset()
    ) -> None:
        self._own = own
        self._stop = stop
        self._of: dict[etree._Element, int] = {}

    def __call__(self, element: etree._Element) -> int:
        path: list[etree._Element] = []
        node: etree._Element | None = element
        while node is not None and node not in self._of and node.tag not in self._stop:
            path.append(node)
            node = node.getparent()
        flags = self._of[node] if node is not None and node in self._of else 0
        for step in reversed(path):
            flags |= self._own(step)
            self._of[step] = flags
        return flags

from collections.abc import Collection

from lxml import etree

#: One run of a block's direct text: (owner element, raw text, depth, link characters,
#: inline tags, title and alt texts, hidden).
Run = tuple[etree._Element, str, int, int, tuple[str, ...], tuple[str, ...], bool]

def block_runs(
    root: etree._Element, hidden: Collection[etree._Element], block_tags: frozenset[str]
) -> list[Run]: ...

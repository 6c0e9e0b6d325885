from collections.abc import Callable, Collection
from typing import Any, TypeVar

import numpy as np
from lxml import etree

T = TypeVar("T")

def block_list(
    root: etree._Element,
    hidden: Collection[etree._Element],
    block_tags: frozenset[str],
    block_class: type[T],
) -> list[T]: ...
def normalise_text(text: str) -> str: ...
def without_overlong_tags(html: str, length: int) -> str: ...
def text_chars(element: etree._Element) -> int: ...
def is_hidden(element: etree._Element) -> bool: ...
def tag_or_attribute(
    element: etree._Element, tag: bytes, name: bytes, value: bytes
) -> list[etree._Element]: ...
def block_columns(
    blocks: tuple[Any, ...],
    tag_index: dict[str, int],
    other_tag: int,
    tags: np.ndarray,
    link_chars: np.ndarray,
    inline_tags: np.ndarray,
    images: np.ndarray,
) -> tuple[tuple[str, ...], list[etree._Element], list[bool]]: ...
def element_tree(
    block_elements: list[etree._Element],
    hidden: list[bool],
    class_names: ClassNames,
    tag_bits: dict[str, int],
    page_tags: frozenset[str],
    page_mask: int,
    hidden_bit: int,
    own: np.ndarray,
) -> tuple[bytearray, int, bytearray, bytearray, tuple[tuple[str, ...], ...]]: ...

class ClassNames:
    """The flag bits and the words of an element's class and id text ("class id"), judged
    once a text: its words are the runs of two or more ASCII letters of its first 200
    characters lower-cased, each distinct word once in order, and its bits those of its
    words, OR-ed. ``word_bits`` judges a word it has not seen. Each memo (of texts, of
    words) is emptied when it holds ``size``."""

    texts: dict[str, tuple[int, tuple[str, ...]]]
    words: dict[str, int]
    size: int
    def __init__(self, word_bits: Callable[[str], int], size: int) -> None: ...
    def __call__(self, text: str) -> tuple[int, tuple[str, ...]]: ...

class Places:
    """Numbers the places of one page's elements: the same number, the same place (tag,
    class, id less its digits, and the parent's place)."""

    def __init__(self) -> None: ...
    def __call__(self, element: etree._Element) -> int: ...

class AttributeJudge:
    """An element's own flags from its attributes, judged in C for :class:`Inherited`:
    ``judge_text`` of the values of ``text_attributes`` joined by spaces, cut to
    ``max_chars`` (-1: whole), remembered by text; where that gives 0, ``flag`` when the tag
    is one of ``tags`` or an attribute of ``values`` has one of its values, else 0."""

    def __init__(
        self,
        text_attributes: tuple[bytes, ...],
        judge_text: Callable[[str], int],
        max_chars: int = -1,
        tags: frozenset[str] = ...,
        values: tuple[tuple[bytes, frozenset[str]], ...] = (),
        flag: int = 0,
        memo_size: int = 20_000,
    ) -> None: ...
    def __call__(self, element: etree._Element) -> int: ...

class Inherited:
    """Flags of an element or-ed with those of every ancestor, up to (not including) the
    first element whose tag is in ``stop``; memoised by node: one a page, on a tree that
    does not change meanwhile. With ``reads`` (the attributes ``own`` reads), an element with
    none of them and a tag not in ``tags`` is judged 0 without calling ``own``."""

    def __init__(
        self,
        own: Callable[[etree._Element], int],
        stop: frozenset[str] = ...,
        reads: tuple[bytes, ...] = ...,
        tags: frozenset[str] = ...,
    ) -> None: ...
    def __call__(self, element: etree._Element) -> int: ...

def cleaning_parts(
    root: etree._Element,
    noise_tags: frozenset[str],
    page_holders: frozenset[str],
    archive_ids: frozenset[str],
    block_tags: frozenset[str],
) -> tuple[
    list[etree._Element], list[etree._Element], list[etree._Element], set[etree._Element]
]: ...
def with_attributes(
    root: etree._Element, attribute_names: tuple[bytes, ...]
) -> list[etree._Element]: ...
def tag_attribute_matches(
    context: etree._Element,
    include_self: bool,
    tags: tuple[bytes, ...],
    plans: tuple[tuple[tuple[bytes, tuple[tuple[bytes, tuple[str, ...]], ...]], ...], ...],
    found: dict[str, list[etree._Element]],
) -> None: ...
def source_counts(source: bytes) -> tuple[int, int, bool]: ...
def text_counts(text: str) -> tuple[int, int, bool]: ...
def kept_by_cleaning(
    elements: list[etree._Element],
    noise_tags: frozenset[str],
    block_tags: frozenset[str],
    archive_ids: frozenset[str],
    hiding: tuple[bytes, ...],
    is_noise: Callable[[etree._Element], bool],
) -> list[etree._Element]: ...
def named_candidates(
    region: etree._Element,
    noise_tags: frozenset[str],
    verdicts: dict[str, bool],
    judge: Callable[[str], bool],
) -> list[etree._Element]: ...
def structured_parts(
    root: etree._Element, scripts: bool
) -> tuple[dict[str, str], etree._Element | None, str | None, list[etree._Element]]: ...

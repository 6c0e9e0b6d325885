"""Method A's parts: block features, the similarity join on both sides of its threshold, the
length steps and the duplicate guard."""

from __future__ import annotations

from lxml import etree

from newsextract.extraction.pagemodel.blocks import Block
from newsextract.templates.alignment import align, pruned_size, reduction_ratio
from newsextract.templates.frequency import FrequencyConfig, find_template_blocks
from newsextract.templates.signature import jaccard, signature, similarity_join


def block(index: int, text: str, tags: tuple[str, ...] = ()) -> Block:
    return Block(index, etree.Element("p"), "p", text, 1, 0, tags, ())


def words(n: int, prefix: str = "w") -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


def test_multiset_jaccard_counts_repeats() -> None:
    a = signature(0, block(0, "x x y")).features
    b = signature(1, block(0, "x y y")).features
    assert jaccard(a, b) == 2 / 4


def test_same_block_threshold_on_both_sides() -> None:
    base = words(20)
    # 19 of 20 words shared, one changed: Jaccard 19/21 = 0.905 >= 0.9: the same block
    close = base.replace("w19", "other")
    # two changed: 18/22 = 0.82 < 0.9: different blocks
    far = close.replace("w18", "else")
    pages = [[block(0, base)], [block(0, close)], [block(0, far)]]
    join = similarity_join(pages)
    assert join.pages_with(0, 0) == frozenset({1})  # base ~ close
    assert join.pages_with(2, 0) == frozenset({1})  # far ~ close, but far !~ base


def own_story(n: int) -> list[Block]:
    """Each page's own long paragraphs, so that the pages are not duplicates."""
    return [block(10 + k, words(30, f"own{n}x{k}_")) for k in range(3)]


def test_longer_blocks_need_more_pages() -> None:
    short, medium = words(19, "s"), words(20, "m")
    # four pages; the short and the medium block each appear on two of them
    pages = [[block(0, short), block(1, medium), *own_story(n)] for n in range(2)]
    pages += [own_story(n) for n in range(2, 4)]
    result = find_template_blocks(pages, FrequencyConfig(match_steps=(20, 50)))
    assert 0 in result.template[0]  # 19 words: one other page suffices
    assert 1 not in result.template[0]  # 20 words: needs two other pages
    pages[2].append(block(1, medium))
    assert 1 in find_template_blocks(pages).template[0]


def test_a_group_of_two_needs_only_the_other_page() -> None:
    long_block = words(60, "l")
    pages = [[block(0, long_block), *own_story(n)] for n in range(2)]
    assert 0 in find_template_blocks(pages).template[1]


def test_duplicate_pages_do_not_erase_each_other() -> None:
    story = [block(i, words(25, f"story{i}_")) for i in range(4)]
    menu = block(10, "Home World Sport")
    other = [block(0, words(25, "elsewhere")), menu]
    pages = [[*story, menu], [*story, menu], other]
    result = find_template_blocks(pages)
    assert result.duplicates[0] == frozenset({1})
    assert result.template[0] == frozenset({10})  # the menu, not the story


def test_alignment_marks_equal_nodes_as_template() -> None:
    first = etree.fromstring(
        "<html><body><div id='nav'>Home</div><div id='story'><p>one</p></div></body></html>"
    )
    second = etree.fromstring(
        "<html><body><div id='ad'>x</div><div id='nav'>Home</div>"
        "<div id='story'><p>two</p></div></body></html>"
    )
    alignment = align(first, second)
    nav = first.find(".//div[@id='nav']")
    paragraph = first.find(".//p")
    assert nav in alignment.template and paragraph not in alignment.template
    # body, nav and story are template; p is not, so story and body stay as its ancestors
    assert pruned_size(first, alignment) == 3
    assert reduction_ratio(first, second) == 3 / 4

"""Method A over a page group: blocks repeated across pages are the site's template.

Two refinements from the trial on the development sites:

* the *duplicate guard*: a page that shares half or more of its long, rare blocks with another
  page (the same story under two URLs, a regional copy) is not evidence against it;
* longer blocks need more matching pages before they count as template (a long paragraph quoted
  once on another page is still content).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from newsextract.extraction.pagemodel.blocks import Block
from newsextract.templates.signature import SAME_BLOCK_JACCARD_DEFAULT, JoinResult, similarity_join

#: A block of at least this many words is "long" for the duplicate guard. 8 lost on dragnet
#: (0.925 -> 0.919: short shared lines made pages duplicates); 12 and 20 were alike, 20 a shade
#: better on msv_big9_dev.
LONG_BLOCK_WORDS_DEFAULT = 20
#: Share of a page's long, rare blocks found on another page that makes the two duplicates
#: ("half or more" in the trial on msv_big9, cleanportaleval and dragnet).
DUPLICATE_SHARE_DEFAULT = 0.5
#: Words below which a block needs 1, 2 other pages to be template; 3 at and above the last
#: (the trial's "1 page under 20 words, 2 under 50, 3 above").
MATCH_STEPS_DEFAULT = (20, 50)


@dataclass(frozen=True)
class FrequencyConfig:
    same_block_jaccard: float = SAME_BLOCK_JACCARD_DEFAULT
    long_block_words: int = LONG_BLOCK_WORDS_DEFAULT
    duplicate_share: float = DUPLICATE_SHARE_DEFAULT
    match_steps: tuple[int, int] = MATCH_STEPS_DEFAULT


@dataclass(frozen=True)
class GroupTemplate:
    """Method A's verdict on a group: per page, the indexes of its template blocks."""

    template: tuple[frozenset[int], ...]
    duplicates: tuple[frozenset[int], ...]  # per page, the pages that duplicate it

    def is_template(self, page: int, block: int) -> bool:
        return block in self.template[page]


def find_template_blocks(
    pages: Sequence[Sequence[Block]], config: FrequencyConfig = FrequencyConfig()
) -> GroupTemplate:
    """Mark, on every page of the group, the blocks that repeat on other (non-duplicate) pages."""
    join = similarity_join(pages, config.same_block_jaccard)
    duplicates = find_duplicates(pages, join, config)
    independent_count = [len(pages) - 1 - len(dups) for dups in duplicates]
    template = []
    for p, blocks in enumerate(pages):
        marked = set()
        for block in blocks:
            others = join.pages_with(p, block.index) - duplicates[p]
            needed = min(_needed(block.words, config), max(1, independent_count[p]))
            if len(others) >= needed:
                marked.add(block.index)
        template.append(frozenset(marked))
    return GroupTemplate(tuple(template), duplicates)


def _needed(words: int, config: FrequencyConfig) -> int:
    short, medium = config.match_steps
    return 1 if words < short else 2 if words < medium else 3


def find_duplicates(
    pages: Sequence[Sequence[Block]], join: JoinResult, config: FrequencyConfig
) -> tuple[frozenset[int], ...]:
    """Pages sharing half or more of their long, rare blocks with one another."""
    rare_limit = max(2, len(pages) // 4)
    shared: list[dict[int, int]] = []
    long_counts = []
    for p, blocks in enumerate(pages):
        counts: dict[int, int] = {}
        total = 0
        for block in blocks:
            others = join.pages_with(p, block.index)
            if block.words < config.long_block_words or len(others) > rare_limit:
                continue
            total += 1
            for other in others:
                counts[other] = counts.get(other, 0) + 1
        shared.append(counts)
        long_counts.append(total)
    result = []
    for p, counts in enumerate(shared):
        dups = {
            o
            for o, n in counts.items()
            if long_counts[p] and n >= config.duplicate_share * long_counts[p]
        }
        result.append(frozenset(dups))
    return tuple(result)

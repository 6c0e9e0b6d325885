"""The headline is a field of its own: every ``articleBody`` leaves it out.

schema.org's ``articleBody``, Fundus and trafilatura all give the body without the headline;
the record has ``headline`` beside it (``batch --with-headline`` and the scoring of sets whose
gold opens with the headline put it back in front).
"""

from __future__ import annotations

import numpy as np

from newsextract.extraction.pagemodel.compiled import fold_text

#: The body starts at its first block of this many words: a headline comes before it, after
#: a kicker or a section name at most.
PARAGRAPH_MIN_WORDS_DEFAULT = 12
#: A body line shorter than this (folded characters) is the headline only when it is the
#: whole headline: a short line inside a longer headline is often a kicker or a section name.
MIN_PARTIAL_HEADLINE_CHARS_DEFAULT = 16


def without_headline(
    kept: tuple[int, ...], title: np.ndarray, words: np.ndarray
) -> tuple[int, ...]:
    """Kept block indexes less the headline: the blocks that match the page's title or are
    an ``<h1>`` (``title``: 1 for those) before the body's first paragraph (a kept block of
    PARAGRAPH_MIN_WORDS_DEFAULT ``words`` or more)."""
    first_paragraph = next(
        (i for i in kept if words[i] >= PARAGRAPH_MIN_WORDS_DEFAULT and not title[i]), None
    )
    return tuple(
        i for i in kept if not title[i] or (first_paragraph is not None and i > first_paragraph)
    )


def strip_headline(body: str, headline: str) -> str:
    """The body less its opening lines that repeat the headline.

    >>> strip_headline("Storm hits coast\\nThe storm arrived.", "Storm hits coast | Daily")
    'The storm arrived.'
    >>> strip_headline("The storm arrived.", "Storm hits coast")
    'The storm arrived.'
    """
    folded = fold_text(headline)
    if not folded:
        return body
    lines = body.split("\n")
    start = 0
    while start < len(lines) - 1 and _repeats(fold_text(lines[start]), folded):
        start += 1
    return "\n".join(lines[start:])


def _repeats(line: str, headline: str) -> bool:
    if not line:
        return False
    partial = len(line) >= MIN_PARTIAL_HEADLINE_CHARS_DEFAULT and line in headline
    return line == headline or partial

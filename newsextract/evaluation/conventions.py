"""How each development set's gold is written, so that a body is scored as its gold reads.

Records follow schema.org: ``articleBody`` leaves the headline out. Some sets' gold opens
with the headline, so a body scored against them gets the headline as its first line
(``shared/data/README.md`` measured it from the pages' ``<h1>``: 75-94 % of pages in the
sets below, 0-13 % in ``wcxb_dev`` and ``chinese_wced``).
"""

from __future__ import annotations

from pathlib import Path

#: Sets whose gold text opens with the headline.
HEADLINE_SETS = frozenset({"dragnet", "cleaneval", "cleanportaleval", "msv_big9_dev", "msv_chaos"})


def set_name(manifest: Path) -> str:
    """A set's name: its folder's (``manifest`` is the folder or its ``manifest.jsonl``)."""
    return (manifest if manifest.is_dir() or manifest.suffix != ".jsonl" else manifest.parent).name


def gold_opens_with_headline(manifest: Path) -> bool:
    """Whether scoring against this set's gold puts the headline before the body."""
    return set_name(manifest) in HEADLINE_SETS


def with_headline(body: str, headline: str) -> str:
    """The body as a gold that opens with the headline reads: the headline, then the body.

    >>> with_headline("First paragraph.", "The headline")
    'The headline\\nFirst paragraph.'
    >>> with_headline("", "The headline")  # no article: nothing to open
    ''
    """
    return f"{headline}\n{body}" if headline and body else body

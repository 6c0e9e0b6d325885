"""URL patterns: the regexes people write (``-a allow``, a profile's ``[patterns]``), run on
RE2 so that no pattern can stall a crawl.

Python's ``re`` backtracks: ``/news/(\\w+-?)+\\.html`` took 58 s on one 31-character link
that almost matched, and the whole crawl stood still meanwhile (the matcher holds the GIL).
RE2 (the ``google-re2`` package) matches in time linear in the URL, whatever the pattern.
It reads Python's syntax except what only backtracking can do (backreferences, lookaround,
``\\Z``, possessive repeats): such a pattern is refused when it is compiled, with a message
saying so, rather than run slowly. Two differences remain for patterns that compile:
``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII-only (write ``\\pL`` or ``[^/]`` for other
scripts; links are mostly percent-encoded anyway), and ``$`` never matches before a final
newline (URLs have none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import re2

#: Mentioned when RE2 refuses a pattern Python accepts, so the user knows what to change.
_MISSING_FEATURES = "backreferences, lookaround, \\Z and possessive repeats"


class PatternError(ValueError):
    """A URL pattern that is not a regex, or one that needs a feature RE2 lacks."""


@dataclass(frozen=True)
class UrlPattern:
    """One compiled URL pattern; equal to another of the same source text."""

    pattern: str
    regex: Any = field(compare=False, repr=False)  # re2's compiled pattern (untyped)

    def search(self, url: str) -> bool:
        """Whether the pattern matches anywhere in ``url`` (as ``re.search``)."""
        return self.regex.search(url) is not None


def compile_pattern(source: str) -> UrlPattern:
    """Compile a URL pattern for RE2; PatternError says why one cannot be used.

    >>> compile_pattern(r"/news/(\\w+-?)+\\.html").search("https://a.jp/news/a-b.html")
    True
    >>> compile_pattern(r"/(\\d+)/\\1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    newsextract.sites.patterns.PatternError: '/(\\d+)/\\1' needs a feature ...
    """
    options = re2.Options()
    options.log_errors = False  # the error is raised, not printed on stderr as well
    try:
        regex = re2.compile(source, options)
    except re2.error as exc:
        raise PatternError(_why_refused(source, exc)) from None
    return UrlPattern(source, regex)


def _why_refused(source: str, exc: Exception) -> str:
    detail = exc.args[0] if exc.args else str(exc)
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    try:
        re.compile(source)
    except re.error as python_error:  # not a regex at all: Python's message is the familiar one
        return f"bad regex '{source}': {python_error}"
    return (
        f"'{source}' needs a feature the linear-time regex engine (RE2) does not have "
        f"({_MISSING_FEATURES}): {detail}"
    )

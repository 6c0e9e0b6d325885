"""Dates in sitemaps and feeds (W3C/ISO 8601, RFC 822) and the ``-a since=`` filter."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from email.utils import parsedate_to_datetime


def parse_since(value: str) -> datetime:
    """The ``since`` argument as an aware UTC datetime (a bare date means its midnight, UTC).

    >>> parse_since("2026-11-01").isoformat()
    '2026-11-01T00:00:00+00:00'
    """
    parsed = parse_date(value)
    if parsed is None:
        raise ValueError(f"since: expected YYYY-MM-DD or an ISO 8601 time, got {value!r}")
    return parsed


def parse_date(value: str | None) -> datetime | None:
    """Parse a sitemap ``lastmod``, a feed ``pubDate``/``dc:date``/``updated``; None if unreadable.

    Naive times are taken as UTC.

    >>> parse_date("Sun, 01 Nov 2026 09:30:00 +0900").isoformat()
    '2026-11-01T00:30:00+00:00'
    >>> parse_date("2026-11-01T09:30+09:00").isoformat()
    '2026-11-01T00:30:00+00:00'
    >>> parse_date("yesterday") is None
    True
    """
    text = (value or "").strip()
    if not text:
        return None
    parsed = _parse_iso(text) or _parse_rfc822(text)
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _parse_iso(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    try:  # W3C datetime allows a year-month only
        return datetime.combine(date.fromisoformat(text + "-01"), time())
    except ValueError:
        return None


def _parse_rfc822(text: str) -> datetime | None:
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


def is_recent(when: datetime | None, since: datetime | None) -> bool:
    """Keep an entry unless both dates are known and the entry is older than ``since``."""
    return since is None or when is None or when >= since

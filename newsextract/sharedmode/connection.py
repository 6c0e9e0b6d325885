"""Which Redis a crawl shares, and one connection to it that fails with a clear message."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import redis

from newsextract.exceptions import NewsExtractError

REDIS_URL_SETTING = "NEWSEXTRACT_REDIS_URL"
#: Every key of the project in Redis starts with this (``NEWSEXTRACT_REDIS_PREFIX``), so that
#: several corpora can share one Redis.
KEY_PREFIX_DEFAULT = "newsextract"
#: Seconds to wait for Redis to answer before a call is counted as failed.
SOCKET_TIMEOUT_DEFAULT = 5.0


class SharedModeError(NewsExtractError):
    """Redis cannot be reached or used: the message names it and says what to do."""


def redis_url(settings: Mapping[str, Any]) -> str | None:
    """The Redis URL of shared mode, from the setting or else the environment; None: embedded."""
    value = settings.get(REDIS_URL_SETTING) or os.environ.get(REDIS_URL_SETTING) or ""
    value = str(value).strip()
    return value or None


def key_prefix(settings: Mapping[str, Any]) -> str:
    return str(settings.get("NEWSEXTRACT_REDIS_PREFIX") or KEY_PREFIX_DEFAULT)


def connect(url: str, check: bool = True) -> redis.Redis:
    """A client of the Redis at ``url`` (``check``: ping it now, so that an unreachable Redis
    is one clear error at the start and not a failure in the middle of a crawl)."""
    try:
        client = redis.Redis.from_url(
            url,
            socket_timeout=SOCKET_TIMEOUT_DEFAULT,
            socket_connect_timeout=SOCKET_TIMEOUT_DEFAULT,
        )
    except ValueError as error:
        raise SharedModeError(f"{REDIS_URL_SETTING}={url!r} is not a Redis URL ({error})") from None
    if check:
        try:
            client.ping()
        except redis.RedisError as error:
            raise SharedModeError(
                f"Redis at {url} cannot be reached ({type(error).__name__}: {error}): start it "
                f"(Debian: apt-get install redis-server) or fix {REDIS_URL_SETTING}"
            ) from None
    return client


def text(value: Any) -> str | None:
    """A Redis reply as text (replies are bytes; None stays None)."""
    if value is None:
        return None
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)

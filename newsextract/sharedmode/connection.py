"""Which Redis a crawl shares, and one connection to it that rides out an outage.

Every client of a crawl retries a call that cannot reach Redis for one budget of time,
``NEWSEXTRACT_REDIS_RETRY`` seconds (:data:`REDIS_RETRY_DEFAULT`), with a backoff doubling
from :data:`BACKOFF_FIRST` to :data:`BACKOFF_LAST`; after it, the call fails and the crawl
stops (exit 1). Every failed attempt is noted in :data:`OUTAGES`, the process's record of
when it last lost Redis: a worker counts another worker out only after it has itself been
connected for a whole lease since then (:mod:`newsextract.sharedmode.state`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from newsextract.exceptions import NewsExtractError

REDIS_URL_SETTING = "NEWSEXTRACT_REDIS_URL"
#: Every key of the project in Redis starts with this (``NEWSEXTRACT_REDIS_PREFIX``), so that
#: several corpora can share one Redis.
KEY_PREFIX_DEFAULT = "newsextract"
#: Seconds to wait for Redis to answer before a call is counted as failed.
SOCKET_TIMEOUT_DEFAULT = 5.0
REDIS_RETRY_SETTING = "NEWSEXTRACT_REDIS_RETRY"
#: Seconds a call retries through an outage. A Redis restarted by its service manager is
#: back within seconds; one that saves or loads a large snapshot may take tens of seconds.
#: The outage tests (5 s and 40 s down) all rode through at 60 s.
REDIS_RETRY_DEFAULT = 60.0
#: The pause after the first failed attempt, doubled after each one up to the last.
BACKOFF_FIRST = 0.25
BACKOFF_LAST = 4.0

T = TypeVar("T")


class SharedModeError(NewsExtractError):
    """Redis cannot be reached or used: the message names it and says what to do."""


def redis_url(settings: Mapping[str, Any]) -> str | None:
    """The Redis URL of shared mode, from the setting or else the environment; None: embedded."""
    value = settings.get(REDIS_URL_SETTING) or os.environ.get(REDIS_URL_SETTING) or ""
    value = str(value).strip()
    return value or None


def key_prefix(settings: Mapping[str, Any]) -> str:
    return str(settings.get("NEWSEXTRACT_REDIS_PREFIX") or KEY_PREFIX_DEFAULT)


def retry_budget(settings: Mapping[str, Any]) -> float:
    """``NEWSEXTRACT_REDIS_RETRY``: seconds a Redis call retries through an outage."""
    value = settings.get(REDIS_RETRY_SETTING) or os.environ.get(REDIS_RETRY_SETTING)
    return REDIS_RETRY_DEFAULT if value in (None, "") else max(0.0, float(value))


class OutageRecord:
    """When this process last failed to reach Redis (every client and thread tells it), and
    whether a call outlasted the retry budget: then the crawl stops, and the calls made as it
    closes try once instead of waiting out the budget again."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.gave_up = False

    def failed(self) -> None:
        self.since = time.monotonic()

    def connected_for(self) -> float:
        """Seconds since this process last failed to reach Redis (infinite: never)."""
        return float("inf") if self.since is None else time.monotonic() - self.since


OUTAGES = OutageRecord()


class BudgetRetry(Retry):
    """redis-py's retry for a budget of seconds instead of a count of attempts. redis-py
    nests a connection's retry inside a command's: only the outermost one waits."""

    _inside = threading.local()

    def __init__(self, budget: float) -> None:
        super().__init__(ExponentialBackoff(cap=BACKOFF_LAST, base=BACKOFF_FIRST), -1)
        self.budget = budget

    def call_with_retry(
        self,
        do: Callable[[], T],
        fail: Callable[..., Any],
        is_retryable: Callable[[Exception], bool] | None = None,
        with_failure_count: bool = False,
    ) -> T:
        if getattr(self._inside, "active", False):
            return do()
        self._inside.active = True
        try:
            return self._retry(do, fail, is_retryable, with_failure_count)
        finally:
            self._inside.active = False

    def _retry(
        self,
        do: Callable[[], T],
        fail: Callable[..., Any],
        is_retryable: Callable[[Exception], bool] | None,
        with_failure_count: bool,
    ) -> T:
        deadline = time.monotonic() + self.budget
        failures = 0
        while True:
            try:
                return do()
            except self._supported_errors as error:
                OUTAGES.failed()
                failures += 1
                if with_failure_count:
                    fail(error, failures)
                else:
                    fail(error)
                pause = min(BACKOFF_LAST, BACKOFF_FIRST * 2 ** (failures - 1))
                if is_retryable is not None and not is_retryable(error):
                    raise
                if OUTAGES.gave_up or time.monotonic() + pause > deadline:
                    OUTAGES.gave_up = self.budget > 0 or OUTAGES.gave_up
                    raise
                time.sleep(pause)


class Steadiness:
    """Whether this process has been connected to Redis for ``seconds`` since it last lost
    it: a lease that lapsed before that tells nothing of its worker (see
    :mod:`newsextract.sharedmode.state`). A process that lived through a restart saw it (its
    connections broke)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def steady(self) -> bool:
        return OUTAGES.connected_for() >= self.seconds


def connect(url: str, check: bool = True, retry: float = REDIS_RETRY_DEFAULT) -> redis.Redis:
    """A client of the Redis at ``url`` whose calls retry through an outage for ``retry``
    seconds (``check``: ping it now, once, so that an unreachable Redis is one clear error
    at the start and not a failure in the middle of a crawl)."""
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
    client.set_retry(BudgetRetry(retry))
    return client


def text(value: Any) -> str | None:
    """A Redis reply as text (replies are bytes; None stays None)."""
    if value is None:
        return None
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)

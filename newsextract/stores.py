"""What every harvest state store is: the interface the spiders and the harvest stage use
(:class:`HarvestStore`), the open request a store keeps (:class:`PendingRequest`), its one
error (:class:`StateStoreError`) and where a crawl's data lives (:func:`state_path`).

The SQLite store (:mod:`newsextract.state`) and the Redis one
(:mod:`newsextract.sharedmode.state`) both build on this module, which imports neither.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from newsextract.exceptions import NewsExtractError

#: The directory used when neither the setting nor the environment names one.
DATA_DIR_DEFAULT = "data"
#: The store's file name inside the data directory.
STATE_FILE_DEFAULT = "state.sqlite3"
_OFF_WORDS = frozenset({"0", "off", "no", "false", "none", "disabled"})


class StateStoreError(NewsExtractError):
    """The state store cannot be used; the message names the file and says what to do."""


@dataclass(frozen=True)
class PendingRequest:
    """A request a crawl scheduled and has not finished: its spider methods by name, and an
    optional number (an id-range crawl's id)."""

    url: str
    callback: str
    errback: str
    value: int | None = None


class HarvestStore(Protocol):
    """What the spiders and the harvest stage ask of a state store: :class:`StateStore` (one
    SQLite file) or, in shared mode, :class:`~newsextract.sharedmode.state.RedisStateStore`.
    Every failure is a :class:`StateStoreError`, told to the store's ``on_error`` first."""

    @property
    def path(self) -> Path | str: ...  # where the store is, for messages
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def is_harvested(self, url: str) -> bool: ...
    def record_alias(self, source: str, target: str) -> None: ...
    def harvested_count(self) -> int: ...
    def holder_of(self, digest: str, url: str) -> str | None: ...
    def record_harvest(
        self, url: str, digest: str, site: str = "", fetched_at: str = ""
    ) -> str | None: ...
    def progress(self, key: str) -> int | None: ...
    def clear_progress(self, key: str) -> None: ...
    def record_progress(self, key: str, value: int) -> None: ...
    def add_pending(self, crawl: str, request: PendingRequest) -> None: ...
    def clear_pending(self, crawl: str, url: str) -> None: ...
    def pending(self, crawl: str) -> list[PendingRequest]: ...


def state_enabled(value: Any) -> bool:
    """Read the ``NEWSEXTRACT_STATE`` switch: anything but off/no/false/0 means on.

    >>> state_enabled("off"), state_enabled(True), state_enabled("on")
    (False, True, True)
    """
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() not in _OFF_WORDS


def state_path(settings: Mapping[str, Any]) -> Path | None:
    """Where the store lives under these settings, or None when the state is switched off."""
    if not state_enabled(settings.get("NEWSEXTRACT_STATE", True)):
        return None
    data_dir = settings.get("NEWSEXTRACT_DATA_DIR") or os.environ.get(
        "NEWSEXTRACT_DATA_DIR", DATA_DIR_DEFAULT
    )
    return Path(str(data_dir)).expanduser() / STATE_FILE_DEFAULT

"""Ctrl-C in a batch run: at once while pages are read, after the write under way."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from types import FrameType, TracebackType
from typing import Any


class StopOnInterrupt(AbstractContextManager["StopOnInterrupt"]):
    """Ctrl-C (SIGINT) raises KeyboardInterrupt at once while a page is being extracted, and
    at the end of :meth:`deferred` while its result is being written: a file is never left
    half-written."""

    def __init__(self) -> None:
        self.requested = False
        self._writing = False
        self._previous: Any = None

    def __enter__(self) -> StopOnInterrupt:
        try:
            self._previous = signal.signal(signal.SIGINT, self._handle)
        except ValueError:  # not the main thread: Python's own handling stays
            self._previous = None
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True
        if not self._writing:
            raise KeyboardInterrupt

    @contextmanager
    def deferred(self) -> Iterator[None]:
        self._writing = True
        try:
            yield
        finally:
            self._writing = False
        if self.requested:
            raise KeyboardInterrupt

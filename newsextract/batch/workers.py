"""Batch work spread over worker processes, written as one process would write it.

The units of :mod:`newsextract.batch.pages` go to a pool of processes, a few more at a time
than there are workers, and come back in the order they were handed out; their outcomes are
then given in the order of their positions, so that the files written are byte for byte
those of a run with one process. The workers ignore Ctrl-C: the run's own process stops
them, after the write under way (:mod:`newsextract.batch.interrupt`), and keeps what it
wrote. A worker that fails or dies makes its pages failure records, with the reason.
"""

from __future__ import annotations

import itertools
import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from types import TracebackType

from newsextract.batch.pages import Unit, in_order
from newsextract.evaluation.outcome import PageOutcome
from newsextract.exceptions import failure_reason

#: Units handed out ahead, per worker: a worker never waits for its next unit, and the
#: outcomes waiting to be written stay few.
UNITS_AHEAD = 4
_METHODS = {"single": "combined"}  # the method name of a failure record, as one process says


class WorkerPool:
    """``workers`` processes (one: the work is done in this process, as it comes).

    ``uninterrupted`` makes the context in which a unit is handed out: Ctrl-C waits there
    (:meth:`newsextract.batch.interrupt.StopOnInterrupt.deferred`), since a worker started
    but not yet known to the pool would never be stopped, and the run would wait for it."""

    def __init__(
        self,
        workers: int,
        uninterrupted: Callable[[], AbstractContextManager[object]] = nullcontext,
    ) -> None:
        self.workers = max(1, workers)
        self._uninterrupted = uninterrupted
        self._executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._executor is not None:
            if exc_type is not None:
                _terminate(self._executor)
            self._executor.shutdown(wait=True, cancel_futures=True)

    def outcomes(self, work: Iterable[Unit]) -> Iterator[PageOutcome]:
        """The outcomes of every unit, in the order of their positions. The first units are
        handed out at once (so the workers start before the caller starts any thread)."""
        units = iter(work)
        first = self._ahead(units) if self.workers > 1 else []
        if len(first) < 2:  # one worker, or work for one: no process is worth starting
            return in_order((unit, unit.outcomes()) for unit in itertools.chain(first, units))
        handed = deque((unit, self._submit(unit)) for unit in first)
        return in_order(self._done(handed, units))

    def _ahead(self, units: Iterator[Unit]) -> list[Unit]:
        return [unit for _, unit in zip(range(self.workers * UNITS_AHEAD), units, strict=False)]

    def _done(
        self, handed: deque[tuple[Unit, Future[list[PageOutcome]]]], units: Iterator[Unit]
    ) -> Iterator[tuple[Unit, list[PageOutcome]]]:
        while handed:
            unit, future = handed.popleft()
            following = next(units, None)
            if following is not None:
                handed.append((following, self._submit(following)))
            yield unit, _result(unit, future)

    def _submit(self, unit: Unit) -> Future[list[PageOutcome]]:
        with self._uninterrupted():
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=_context(), initializer=_ignore_interrupts
                )
            return self._executor.submit(_unit_outcomes, unit)


def _unit_outcomes(unit: Unit) -> list[PageOutcome]:
    return list(unit.outcomes())


def _result(unit: Unit, future: Future[list[PageOutcome]]) -> list[PageOutcome]:
    try:
        return future.result()
    except Exception as error:  # a worker's failure is its pages' failure, not the run's
        reason = f"worker failed: {failure_reason(error)}"
        method = _METHODS.get(unit.mode, unit.mode)
        return [PageOutcome(entry, "", method, 0.0, reason) for entry in unit.entries]


def _context() -> multiprocessing.context.BaseContext:
    """Fork where there is one: a worker starts in milliseconds with the model already read,
    instead of importing the package again."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _terminate(executor: ProcessPoolExecutor) -> None:
    """Stop the workers now (Ctrl-C): what they were reading is not written. The standard
    library gives no public call for it before Python 3.14 (``terminate_workers``).

    A worker stopped while it sends a result leaves part of it in the result pipe, and the
    pool's thread then waits for the rest, which would hang the shutdown. This process holds
    the pipe's last writing end: closing it makes that wait end (end of file), and the pool
    shuts down as broken."""
    processes = getattr(executor, "_processes", None) or {}
    for process in list(processes.values()):
        process.terminate()
    results = getattr(executor, "_result_queue", None)
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()

"""Progress of a long command: a bar on a terminal, a plain line now and then elsewhere.

One way for every command to show how far it is::

    with progress(len(pages), "pages", quiet=args.quiet) as bar:
        for page in pages:
            ...
            bar.update()

or, for a loop over a sequence, ``for page in track(pages, "pages", quiet=args.quiet):``.

On a terminal the bar (tqdm's) shows the count, the rate and the time left. When standard
error is not a terminal (a log file, a cron job, CI) a bar's carriage returns would be noise:
a line ``N/M pages, X pages/s, about T left`` is printed instead, every
:data:`PLAIN_EVERY_SECONDS_DEFAULT` seconds and each time another tenth of the total is
done. ``quiet`` prints nothing at all.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator, Sized
from contextlib import contextmanager
from typing import Protocol, TextIO, TypeVar

from tqdm import tqdm

__all__ = ["Progress", "progress", "track"]

#: Without a terminal, a line at least this often (seconds)...
PLAIN_EVERY_SECONDS_DEFAULT = 10.0
#: ...and this many times in a whole run (each time another tenth of it is done).
PLAIN_LINES_PER_RUN_DEFAULT = 10

T = TypeVar("T")


class Progress(Protocol):
    """What a command calls as it goes: :meth:`update` after each item done."""

    def update(self, n: int = 1) -> object: ...


class _Silent:
    def update(self, n: int = 1) -> None:
        pass


class _PlainLines:
    """``N/M pages, X pages/s, about T left``, now and then, one line each time."""

    def __init__(
        self, total: int | None, unit: str, label: str, stream: TextIO, every_seconds: float
    ) -> None:
        self.total, self.unit, self.stream = total, unit, stream
        self.prefix = f"{label}: " if label else ""
        self.every_seconds = every_seconds
        self.done = 0
        self.started = self.last_shown = time.monotonic()
        self.next_step = 1  # of PLAIN_LINES_PER_RUN_DEFAULT

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        steps = self.done * PLAIN_LINES_PER_RUN_DEFAULT // self.total if self.total else 0
        if steps >= self.next_step or now - self.last_shown >= self.every_seconds:
            self.next_step = max(self.next_step, steps + 1)
            self.last_shown = now
            print(self.prefix + self.line(now), file=self.stream, flush=True)

    def line(self, now: float) -> str:
        rate = self.done / max(now - self.started, 1e-9)
        shown = f"{rate:.1f}" if rate < 10 else f"{rate:.0f}"
        if not self.total:
            return f"{self.done} {self.unit}, {shown} {self.unit}/s"
        counts = f"{self.done}/{self.total} {self.unit}, {shown} {self.unit}/s"
        left = max(self.total - self.done, 0)
        if not left:
            return f"{counts}, done in {duration(now - self.started)}"
        return f"{counts}, about {duration(left / rate) if rate else '?'} left"


def duration(seconds: float) -> str:
    """A short human duration.

    >>> duration(42.4), duration(150), duration(3 * 3600 + 120)
    ('42 s', '2 min 30 s', '3 h 2 min')
    """
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, rest = divmod(whole, 3600)
    return f"{hours} h {rest // 60} min"


@contextmanager
def progress(
    total: int | None,
    unit: str = "pages",
    *,
    label: str = "",
    quiet: bool = False,
    stream: TextIO | None = None,
    every_seconds: float = PLAIN_EVERY_SECONDS_DEFAULT,
) -> Iterator[Progress]:
    """Show the progress of ``total`` items (None: unknown) on ``stream`` (standard error),
    after ``label`` if given: call ``update()`` on what it yields after each item."""
    out = sys.stderr if stream is None else stream
    if quiet:
        yield _Silent()
    elif _is_terminal(out):
        bar_options = {"unit": f" {unit}", "desc": label or None, "dynamic_ncols": True}
        with tqdm(total=total, file=out, **bar_options) as bar:
            yield bar
    else:
        yield _PlainLines(total, unit, label, out, every_seconds)


def track(
    items: Iterable[T],
    unit: str = "pages",
    *,
    total: int | None = None,
    label: str = "",
    quiet: bool = False,
    stream: TextIO | None = None,
) -> Iterator[T]:
    """``items`` one by one, showing progress as :func:`progress` does (the total is
    ``len(items)`` when it has one)."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    with progress(total, unit, label=label, quiet=quiet, stream=stream) as bar:
        for item in items:
            yield item
            bar.update()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or file-like stream
        return False

"""Saved pages into article records, many at a time: the work of ``newsextract batch``.

:mod:`~newsextract.batch.pages` reads the pages and gives their outcomes in each mode,
:mod:`~newsextract.batch.workers` spreads that work over a pool of processes,
:mod:`~newsextract.batch.output` writes each outcome as it comes, and
:mod:`~newsextract.batch.interrupt` lets Ctrl-C stop a run between two writes.
"""


class BatchError(Exception):
    """A run that cannot start: its message is one line for the user."""

"""A crawl's rules directory, whose history saves are written by a thread of their own.

A site's history (:data:`~newsextract.templates.site.SAVE_HISTORY_EVERY_DEFAULT`) is saved
every 25 of its pages, and each save ends with an fsync: 0.3 ms on an idle disk, 10 ms on a
busy one, during which a crawl's event loop would fetch and extract nothing. Here the saves go
to one writer thread, in the order they were made, so each file ends as the same bytes; a read
of a history waits for the saves in flight, and :meth:`QueuedHistoryStore.close` for all of
them. Rule files are still written at once, under the site's lock, as before.

A crawl killed outright may lose the save in flight: the file is then the save before it
(each save replaces the file atomically), which only costs re-induction a few pages of
evidence, as deleting the history does.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from newsextract.templates.store import RuleStore

logger = logging.getLogger(__name__)


class QueuedHistoryStore(RuleStore):
    """:class:`RuleStore` with its history saves queued to one thread (see the module)."""

    def __init__(self, rules_dir: Path) -> None:
        super().__init__(rules_dir)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="newsextract-history")
        self._closed = False

    def save_history(self, site: str, records: list[dict[str, str]]) -> None:
        if self._closed:
            super().save_history(site, records)
            return
        self._writer.submit(self._write, site, records)

    def load_history(self, site: str) -> list[dict[str, str]]:
        self.wait()
        return super().load_history(site)

    def wait(self) -> None:
        """Return once every save made so far is written (or has failed, with its error logged)."""
        if not self._closed:
            self._writer.submit(lambda: None).result()

    def close(self) -> None:
        """Write the saves in flight; later saves are written at once."""
        self._closed = True
        self._writer.shutdown(wait=True)

    def _write(self, site: str, records: list[dict[str, str]]) -> None:
        try:
            super().save_history(site, records)
        except Exception:  # a disk full or a folder gone: re-induction loses some evidence
            logger.exception("history of %s not saved", site)

"""A crawl's ledger: which URLs it has asked for, which it harvested before, which are open.

Three questions every spider asks before and after a request:

- asked already in this crawl? (one request a URL, whatever links to it);
- harvested by an earlier run? (then a scheduled re-run does not request it at all);
- still open? Every scheduled request is written to the state store's ``pending`` table
  until it ends (a listing read, an article exported or dropped, an error recorded). Scrapy's
  ``JOBDIR`` queue does not survive SIGKILL (its disk queue writes its length on close),
  while its duplicate filter does, so a resumed crawl would never fetch what was in flight
  or queued; the ledger hands those requests back instead.

Without a state store (``NEWSEXTRACT_STATE=off``) only the first question is answered.
"""

from __future__ import annotations

from newsextract.state import PendingRequest, StateStore


class CrawlLedger:
    def __init__(self, crawl: str, store: StateStore | None) -> None:
        self.crawl = crawl  # the crawl's identity: spider name and its sources
        self.store = store
        self.requested: set[str] = set()

    def claim(self, url: str) -> bool:
        """True the first time a URL is claimed in this crawl, False after."""
        if url in self.requested:
            return False
        self.requested.add(url)
        return True

    def is_harvested(self, url: str) -> bool:
        return self.store is not None and self.store.is_harvested(url)

    def open(self, request: PendingRequest) -> None:
        if self.store is not None:
            self.store.add_pending(self.crawl, request)

    def close(self, url: str) -> None:
        if self.store is not None:
            self.store.clear_pending(self.crawl, url)

    def redirected(self, chain: list[str], request: PendingRequest) -> None:
        """A request was redirected along ``chain`` to ``request.url``: what stays open is
        the final URL (what records carry), and every URL of the chain becomes an alias of
        it, so that a re-run does not follow the redirect to a harvested page again."""
        if not chain:
            return
        self.close(chain[0])
        self.open(request)
        if self.store is not None:
            for source in chain:
                if source != request.url:
                    self.store.record_alias(source, request.url)

    def recover(self) -> list[PendingRequest]:
        """The requests an earlier run of this crawl left open and nobody else holds,
        claimed for this run. After a clean pause (see :meth:`paused`) ``JOBDIR``'s queue
        holds them: they are claimed, so not scheduled twice, but not handed back."""
        if self.store is None:
            return []
        pending = self.store.pending(self.crawl)
        self.requested.update(request.url for request in pending)
        if self.store.progress(self._paused_key) is not None:
            self.store.clear_progress(self._paused_key)
            return []
        return pending

    def paused(self) -> None:
        """The crawl stopped cleanly with ``JOBDIR`` set: Scrapy saved its own queue."""
        if self.store is not None:
            self.store.record_progress(self._paused_key, 1)

    @property
    def _paused_key(self) -> str:
        return f"paused {self.crawl}"

"""A crawl's ledger: which URLs it has asked for, which it harvested before, which are open.

Three questions every spider asks before and after a request:

- asked already in this crawl? (one request a URL, whatever links to it);
- harvested by an earlier run? (then a scheduled re-run does not request it at all);
- still open? Every scheduled request is written to the state store's ``pending`` table
  until it ends (a listing read, an article held by the feeds or dropped, an error
  recorded). Scrapy's ``JOBDIR`` queue does not survive SIGKILL (its disk queue writes its
  length on close), while its duplicate filter does, so a resumed crawl would never fetch
  what was in flight or queued; the ledger hands those requests back instead.

An open request names its spider methods, and a newer version of a spider may no longer
have them: such a request is handed back through the spider's generic callback
(:data:`FALLBACK_CALLBACK`, which tells an article from a listing by its URL), with a
warning, rather than break every later start of the crawl. A request the spider cannot
take at all is dropped, with the same warning.

In shared mode the store is in Redis (:mod:`newsextract.sharedmode.state`) and an open
request belongs to the worker that opened it: what :meth:`CrawlLedger.recover` hands back
is what dead workers left open (and what this worker's name left in an earlier session),
each request to one worker only. A clean pause keeps nothing there: scrapy-redis's queue,
not ``JOBDIR``'s, holds the requests.

Without a state store (``NEWSEXTRACT_STATE=off``) only the first question is answered.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from dataclasses import replace

from newsextract.state import HarvestStore, PendingRequest, StateStore, StateStoreError

logger = logging.getLogger(__name__)

# _SIGNALLED: close() and paused() are called from signal handlers, where an error is only
# logged again with a traceback. The store's first failure has already stopped the crawl
# with its message (StateStore's error hook), and the request stays open for the next run.

#: Requests of exported articles closed together, in one transaction instead of one each
#: (a commit each cost as much as the rest of the harvest stage's store work). Only those the
#: store holds as harvested wait: a kill leaves them open, and a re-run closes them without
#: fetching them (``NewsSpider.recovered_requests``), as it did after a kill just before a close.
EXPORTED_CLOSE_BATCH_DEFAULT = 64

#: Where an open request goes when its stored callback or errback no longer exists.
FALLBACK_CALLBACK = "parse"
FALLBACK_ERRBACK = "on_error"


class CrawlLedger:
    def __init__(self, crawl: str, store: HarvestStore | None) -> None:
        self.crawl = crawl  # the crawl's identity: spider name and its sources
        self.store = store
        self.requested: set[str] = set()
        self._exported: dict[str, None] = {}  # closed, not yet in the store (in order)

    def asked(self, url: str) -> bool:
        """Whether this crawl asked for ``url`` already, or decided not to."""
        return url in self.requested

    def skip(self, url: str) -> None:
        """This crawl does not request ``url`` (harvested before): later links to it neither."""
        self.requested.add(url)

    def first_ask(self, url: str) -> bool:
        """True the first time this worker asks for ``url``, False after."""
        if url in self.requested:
            return False
        self.requested.add(url)
        return True

    def take(self, request: PendingRequest) -> bool:
        """Claim the request's URL for this crawl and open it until it ends; False when the
        crawl asked for it already."""
        if not self.first_ask(request.url):
            return False
        self.open(request)
        return True

    def is_harvested(self, url: str) -> bool:
        return self.store is not None and self.store.is_harvested(url)

    def open(self, request: PendingRequest) -> None:
        if request.url in self._exported:
            self.flush()  # its close must not clear the request opened now
        if self.store is not None:
            self.store.add_pending(self.crawl, request)

    def close(self, url: str) -> None:
        # A feed that stores its items at the end confirms them after the spider closed its
        # store: the request stays open, and the next run finds it harvested and closes it.
        if self.store is not None and not self.store.closed:
            with suppress(StateStoreError):  # see _SIGNALLED
                self.store.clear_pending(self.crawl, url)

    def close_exported(self, url: str) -> None:
        """An exported article's request: closed with the next ones
        (:data:`EXPORTED_CLOSE_BATCH_DEFAULT`) when the store holds it as harvested, else at
        once (no harvest stage, a text another crawl harvested, a store of another kind)."""
        if not isinstance(self.store, StateStore) or self.store.closed or not self._known(url):
            self.close(url)
            return
        self._exported[url] = None
        if len(self._exported) >= EXPORTED_CLOSE_BATCH_DEFAULT:
            self.flush()

    def _known(self, url: str) -> bool:
        try:
            return self.is_harvested(url)
        except StateStoreError:  # see _SIGNALLED
            return False

    def flush(self) -> None:
        """Close the exported articles' requests still open in the store."""
        urls, self._exported = list(self._exported), {}
        if urls and isinstance(self.store, StateStore) and not self.store.closed:
            with suppress(StateStoreError):  # see _SIGNALLED
                self.store.clear_pending_many(self.crawl, urls)

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

    def recover(self, spider: object = None) -> list[PendingRequest]:
        """The requests an earlier run of this crawl left open and nobody else holds,
        claimed for this run. After a clean pause (see :meth:`paused`) ``JOBDIR``'s queue
        holds them: they are claimed, so not scheduled twice, but not handed back.

        With ``spider``, a request naming a method it does not have is re-routed (or
        dropped): see the module docstring."""
        if self.store is None:
            return []
        pending = self.store.pending(self.crawl)
        if spider is not None:
            pending = self._routable(pending, spider)
        self.requested.update(request.url for request in pending)
        if self.store.progress(self._paused_key) is not None:
            self.store.clear_progress(self._paused_key)
            return []
        return pending

    def _routable(self, pending: list[PendingRequest], spider: object) -> list[PendingRequest]:
        """The open requests the spider can take, re-routed where their methods are gone."""
        assert self.store is not None
        kept: list[PendingRequest] = []
        stale: set[str] = set()
        rerouted = dropped = 0
        for request in pending:
            missing = {m for m in (request.callback, request.errback) if not _has(spider, m)}
            if not missing:
                kept.append(request)
                continue
            stale |= missing
            callback = FALLBACK_CALLBACK if request.callback in missing else request.callback
            errback = FALLBACK_ERRBACK if request.errback in missing else request.errback
            if _has(spider, callback) and _has(spider, errback):
                routed = replace(request, callback=callback, errback=errback)
                self.store.add_pending(self.crawl, routed)
                kept.append(routed)
                rerouted += 1
            else:
                self.store.clear_pending(self.crawl, request.url)
                dropped += 1
        if stale:
            logger.warning(
                "%d open requests left by an earlier run of %r name methods the spider no "
                "longer has (%s): %d handed back through %s(), %d dropped (a page that links "
                "to them requests them again)",
                rerouted + dropped,
                self.crawl,
                ", ".join(sorted(stale)),
                rerouted,
                FALLBACK_CALLBACK,
                dropped,
            )
        return kept

    def paused(self) -> None:
        """The crawl stopped cleanly with ``JOBDIR`` set: Scrapy saved its own queue (not
        in shared mode, whose queue is in Redis: the open requests stay recoverable)."""
        self.flush()
        if isinstance(self.store, StateStore):
            with suppress(StateStoreError):  # see _SIGNALLED
                self.store.record_progress(self._paused_key, 1)

    @property
    def _paused_key(self) -> str:
        return f"paused {self.crawl}"


def _has(spider: object, name: str) -> bool:
    return callable(getattr(spider, name, None))

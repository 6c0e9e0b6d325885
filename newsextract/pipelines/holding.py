"""Pages held back by the template stage until their group's template is learned.

Each held page is waiting in Scrapy's item pipeline on a Deferred; the scraper counts it
as active and keeps its response's size in ``SCRAPER_SLOT_MAX_ACTIVE_SIZE``'s account, so
the hold is bounded both in pages and in bytes. This module is the bounded queue only;
``templates.py`` decides when to release.

No Scrapy import (Twisted's Deferred only), so it is tested without a crawler.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from twisted.internet.defer import Deferred

from newsextract.extraction.pagemodel.page import Page
from newsextract.pipelines.grouping import GroupKey

#: Pages held at once (NEWSEXTRACT_TEMPLATE_HOLD). A new site's group needs only
#: NEWSEXTRACT_TEMPLATE_MIN_PAGES distinct pages, but a crawl fetches pages of several
#: kinds at once (listings, articles), and pages wait for their group's siblings.
HOLD_PAGES_DEFAULT = 32
#: Bytes of held page bodies at once (NEWSEXTRACT_TEMPLATE_HOLD_BYTES). Kept below half of
#: Scrapy's SCRAPER_SLOT_MAX_ACTIVE_SIZE (5 MB by default), which counts every held
#: response, so that held pages never stall the downloads that would complete their group.
HOLD_BYTES_DEFAULT = 2_000_000


@dataclass(eq=False)
class HeldPage:
    """One page waiting for its group: the item, its parsed page, and whom to answer."""

    key: GroupKey
    item: Any  # a PageItem
    page: Page
    size: int
    waiter: Deferred[Any] = field(default_factory=Deferred)


@dataclass
class HoldQueue:
    """Held pages in arrival order, at most ``max_pages`` and ``max_bytes`` at once."""

    max_pages: int = HOLD_PAGES_DEFAULT
    max_bytes: int = HOLD_BYTES_DEFAULT
    _held: list[HeldPage] = field(default_factory=list)
    _bytes: int = 0

    def fits(self, size: int) -> bool:
        """Whether a page of ``size`` bytes could ever be held (the bounds allow it)."""
        return self.max_pages > 0 and size <= self.max_bytes

    def add(self, held: HeldPage) -> list[HeldPage]:
        """Hold ``held``; return the oldest pages that must leave to respect the bounds."""
        self._held.append(held)
        self._bytes += held.size
        overflow: list[HeldPage] = []
        while len(self._held) > self.max_pages or self._bytes > self.max_bytes:
            overflow.append(self._pop(0))
        return overflow

    def pop_group(self, key: GroupKey) -> list[HeldPage]:
        """Release every page of one group, in arrival order."""
        leaving = [held for held in self._held if held.key == key]
        for held in leaving:
            self.remove(held)
        return leaving

    def pop_all(self) -> list[HeldPage]:
        leaving, self._held, self._bytes = self._held, [], 0
        return leaving

    def _pop(self, index: int) -> HeldPage:
        held = self._held.pop(index)
        self._bytes -= held.size
        return held

    def pages(self) -> list[HeldPage]:
        """The held pages, oldest first (a copy: the queue may change while it is read)."""
        return list(self._held)

    def remove(self, held: HeldPage) -> None:
        self._held.remove(held)
        self._bytes -= held.size

    @property
    def bytes(self) -> int:
        return self._bytes

    def keys(self) -> Iterator[GroupKey]:
        return (held.key for held in self._held)

    def __len__(self) -> int:
        return len(self._held)

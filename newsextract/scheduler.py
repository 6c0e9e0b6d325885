"""The scheduler of embedded crawls: Scrapy's, except that a request it cannot keep in the
job's disk queue (``JOBDIR``) is kept in memory instead of raising.

Scrapy hands each response's output to ``CONCURRENT_ITEMS`` tasks and lets a task die when
scheduling a request raises; the project runs two (:mod:`newsextract.settings`), so two such
errors in one response would leave the crawl waiting forever. A queue file cut short by a
killed crawl raises on every push to its priority, and leaves a file open each time: after
its first error, a priority's requests go to memory for the rest of the job.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy import Request, Spider
from scrapy.core.scheduler import Scheduler

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred

logger = logging.getLogger(__name__)

STAT_DISK_ERRORS = "newsextract/scheduler/disk_queue_errors"


class EmbeddedScheduler(Scheduler):
    """Scrapy's scheduler, with the memory queue behind a disk queue that fails."""

    def open(self, spider: Spider) -> Deferred[None] | None:
        self._memory_priorities: set[int] = set()  # their disk queues failed
        return super().open(spider)

    def enqueue_request(self, request: Request) -> bool:
        try:
            return super().enqueue_request(request)
        except Exception as error:  # any error here would end one of the output's tasks
            self._count_disk_error(error)
            self.mqs.push(request)
            if self.stats is not None:
                self.stats.inc_value("scheduler/enqueued/memory")
                self.stats.inc_value("scheduler/enqueued")
            return True

    def _dqpush(self, request: Request) -> bool:
        """False: Scrapy keeps the request in memory."""
        if request.priority in self._memory_priorities:
            return False
        try:
            return super()._dqpush(request)
        except Exception as error:
            self._memory_priorities.add(request.priority)
            self._count_disk_error(error)
            return False

    def _count_disk_error(self, error: Exception) -> None:
        if self.stats is None:
            return
        if not self.stats.get_value(STAT_DISK_ERRORS):
            logger.warning(
                "the job's disk queue failed (%s: %s); the requests it refuses are kept in "
                "memory, and so are those of the same priority for the rest of the job (stat "
                "%s counts the failures)",
                type(error).__name__,
                str(error),  # not the error: its frames hold the queue's open file
                STAT_DISK_ERRORS,
            )
        self.stats.inc_value(STAT_DISK_ERRORS)

"""The scheduler of embedded crawls: Scrapy's, except that a request it cannot keep in the
job's disk queue (``JOBDIR``) is kept in memory instead of raising.

Scrapy hands each response's output to ``CONCURRENT_ITEMS`` tasks and lets a task die when
scheduling a request raises; the project runs two (:mod:`newsextract.settings`), so two such
errors in one response would leave the crawl waiting forever. A queue file cut short by a
killed crawl raises on every push to its priority.
"""

from __future__ import annotations

import logging

from scrapy import Request
from scrapy.core.scheduler import Scheduler

logger = logging.getLogger(__name__)

STAT_DISK_ERRORS = "newsextract/scheduler/disk_queue_errors"


class EmbeddedScheduler(Scheduler):
    """Scrapy's scheduler, with the memory queue behind a disk queue that fails."""

    def enqueue_request(self, request: Request) -> bool:
        try:
            return super().enqueue_request(request)
        except Exception as error:  # any error here would end one of the output's tasks
            return self._keep_in_memory(request, error)

    def _keep_in_memory(self, request: Request, error: Exception) -> bool:
        if self.stats is not None:
            if not self.stats.get_value(STAT_DISK_ERRORS):
                logger.warning(
                    "the job's disk queue failed (%s: %s); requests it refuses are kept in "
                    "memory (stat %s counts them)",
                    type(error).__name__,
                    str(error),  # not the error: its frames hold the queue's open file
                    STAT_DISK_ERRORS,
                )
            self.stats.inc_value(STAT_DISK_ERRORS)
            self.stats.inc_value("scheduler/enqueued/memory")
            self.stats.inc_value("scheduler/enqueued")
        self.mqs.push(request)
        return True

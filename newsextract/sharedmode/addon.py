"""The add-on that switches a crawl to shared mode when ``NEWSEXTRACT_REDIS_URL`` is set.

Registered in :mod:`newsextract.settings` (``ADDONS``), so the same ``scrapy crawl asahi``
runs on every machine: with the URL (a setting or the environment variable), the frontier
lives in Redis (:mod:`newsextract.sharedmode.frontier`); without it nothing changes.
"""

from __future__ import annotations

from scrapy.settings import BaseSettings

from newsextract.sharedmode.connection import key_prefix, redis_url

#: The scheduler of shared mode: scrapy-redis's, with the crawl's keys and stop rule.
SHARED_SCHEDULER = "newsextract.sharedmode.frontier.SharedScheduler"
#: Its duplicate filter: scrapy-redis's, with answers that survive a retried call.
SHARED_DUPEFILTER = "newsextract.sharedmode.frontier.SharedDupeFilter"


class SharedMode:
    """Scrapy add-on: scrapy-redis settings under the project's key prefix, or nothing."""

    def update_settings(self, settings: BaseSettings) -> None:
        url = redis_url(settings)
        if url is None:
            return  # embedded mode: one process, SQLite and rule files, exactly as before
        prefix = key_prefix(settings)
        settings.set("SCHEDULER", SHARED_SCHEDULER, "project")  # over the embedded one
        settings.set("DUPEFILTER_CLASS", SHARED_DUPEFILTER, "addon")
        settings.set("SCHEDULER_PERSIST", True, "addon")
        settings.set("SCHEDULER_QUEUE_CLASS", "scrapy_redis.queue.PriorityQueue", "addon")
        settings.set("REDIS_URL", url, "addon")
        # %(spider)s is the crawl's name: the spider and a digest of its sources.
        settings.set("SCHEDULER_QUEUE_KEY", f"{prefix}:%(spider)s:requests", "addon")
        settings.set("SCHEDULER_DUPEFILTER_KEY", f"{prefix}:%(spider)s:dupefilter", "addon")

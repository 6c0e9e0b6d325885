"""The objects a crawl made to start are kept out of the garbage collector's walks.

Modules, settings, middlewares, the classifier's model and the spider live as long as the
crawl, yet each full collection walked all of them again: a crawl of 1,000 articles spent
a third of a second in full collections, and the event loop stood still meanwhile. Once the
spider opens they are frozen (``gc.freeze``): the collector walks only what the crawl makes
after that. ``-s NEWSEXTRACT_GC_FREEZE=False`` leaves the collector as Python sets it.

Measured on the site of ``benchmarks/crawl_speed.py --articles 1000`` (median of four runs
each, from spider open to close): without the item stage, 2.44 to 2.16 s of CPU and 3.33 to
2.76 s of crawl; with it, 3.11 to 2.93 s of CPU and 3.88 to 3.75 s of crawl. Only the
project's settings enable it, not the add-on: a project that hosts newsextract may have its
own reasons to leave its process's collector alone.
"""

from __future__ import annotations

import gc

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

SETTING = "NEWSEXTRACT_GC_FREEZE"


class FrozenStartup:
    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FrozenStartup:
        if not crawler.settings.getbool(SETTING, True):
            raise NotConfigured(f"{SETTING} is off")
        extension = cls()
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        return extension

    def spider_opened(self) -> None:
        gc.collect()  # what start-up left as garbage is freed, not frozen
        gc.freeze()

"""What the crawl made to start is frozen out of the collector's walks when the spider opens."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from newsextract.extensions.heap import FrozenStartup
from newsextract.spiders.site import SiteSpider


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the test process's collector as it was


def test_the_start_is_frozen_when_the_spider_opens(unfrozen: None) -> None:
    crawler = get_crawler(SiteSpider, {"EXTENSIONS": {FrozenStartup: 100}})
    FrozenStartup.from_crawler(crawler)
    assert gc.get_freeze_count() == 0
    crawler.signals.send_catch_log(signals.spider_opened, spider=None)
    assert gc.get_freeze_count() > 0


def test_the_collector_is_left_alone_when_the_setting_is_off(unfrozen: None) -> None:
    crawler = get_crawler(SiteSpider, {"NEWSEXTRACT_GC_FREEZE": False})
    with pytest.raises(NotConfigured, match="NEWSEXTRACT_GC_FREEZE"):
        FrozenStartup.from_crawler(crawler)


def test_the_project_enables_it_and_the_add_on_does_not() -> None:
    from newsextract import addon, settings

    name = "newsextract.extensions.heap.FrozenStartup"
    assert name in settings.EXTENSIONS
    assert name not in addon.COMPONENTS["EXTENSIONS"]

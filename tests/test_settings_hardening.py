"""The project's settings open no door into a running crawl: no telnet console, and none of
Scrapy's RemoteControl (an HTTP server that runs the Python code sent to it, on by default)."""

from __future__ import annotations

from typing import Any

from scrapy import Spider
from scrapy.extensions.remote_control import RemoteControl
from scrapy.extensions.telnet import TelnetConsole
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from newsextract.extensions.failures import FailureLog
from newsextract.extensions.feeds import FeedWatch


def project_settings() -> dict[str, Any]:
    """Scrapy's defaults overridden by the project's, as ``scrapy crawl`` reads them (the
    test helper's own defaults, which switch both doors off, are left out). The reactor is
    the test process's own."""
    settings = Settings()
    settings.setmodule("newsextract.settings", priority="project")
    values = settings.copy_to_dict()
    for name in ("TWISTED_REACTOR", "TWISTED_REACTOR_ENABLED"):
        values.pop(name, None)
    values["LOGSTATS_INTERVAL"] = 0  # Scrapy's periodic stats log needs a running reactor
    return values


def test_a_crawler_built_from_the_project_settings_has_no_remote_control() -> None:
    crawler = get_crawler(Spider, project_settings())
    assert crawler.settings.getbool("REMOTE_CONTROL_ENABLED") is False
    assert crawler.get_extension(RemoteControl) is None
    assert crawler.get_extension(TelnetConsole) is None
    # the project's own extensions are there: the manager was really built
    assert crawler.get_extension(FailureLog) is not None
    assert crawler.get_extension(FeedWatch) is not None

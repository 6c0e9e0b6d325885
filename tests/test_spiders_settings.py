"""The project settings: polite defaults, and every component they name can be loaded."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings
from scrapy.utils.misc import load_object


@pytest.fixture(scope="module")
def settings() -> Settings:
    settings = Settings()
    settings.setmodule("newsextract.settings", priority="project")
    return settings


def test_polite_by_default(settings: Settings) -> None:
    assert settings.getbool("ROBOTSTXT_OBEY")
    assert settings.getbool("AUTOTHROTTLE_ENABLED")
    assert settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN") == 1
    assert settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY") <= 1.0
    assert settings["USER_AGENT"].startswith("newsextract/")
    assert not settings.getbool("HTTPCACHE_ENABLED")


def test_a_held_item_leaves_room_for_its_responses_requests(settings: Settings) -> None:
    # more than one, so that a request yielded after a held item goes on; few, as Scrapy
    # starts a task for each of them for every response
    assert 2 <= settings.getint("CONCURRENT_ITEMS") <= 4


def test_failures_are_bounded(settings: Settings) -> None:
    assert 0 < settings.getint("DOWNLOAD_TIMEOUT") <= 60
    assert 0 < settings.getint("RETRY_TIMES") <= 3
    assert 0 < settings.getint("REDIRECT_MAX_TIMES") <= 20
    assert 0 < settings.getint("DOWNLOAD_WARNSIZE") < settings.getint("DOWNLOAD_MAXSIZE")


def test_output_settings(settings: Settings) -> None:
    assert settings["FEED_EXPORT_ENCODING"] == "utf-8"
    assert settings["TWISTED_REACTOR"].endswith("AsyncioSelectorReactor")
    assert settings.getdict("FEED_EXPORTERS")["xml"].endswith("SafeXmlItemExporter")
    assert settings["SPIDER_MODULES"] == ["newsextract.spiders"]


def test_pipelines_run_templates_then_extraction_then_harvest(settings: Settings) -> None:
    pipelines = settings.getdict("ITEM_PIPELINES")
    order = [path.rsplit(".", 1)[-1] for path in sorted(pipelines, key=pipelines.__getitem__)]
    assert order == ["TemplatePipeline", "ExtractionPipeline", "HarvestPipeline"]


@pytest.mark.parametrize(
    "name", ["ITEM_PIPELINES", "EXTENSIONS", "FEED_EXPORTERS", "FEED_STORAGES"]
)
def test_every_component_named_can_be_loaded(settings: Settings, name: str) -> None:
    table = settings.getdict(name)
    by_key = name in ("ITEM_PIPELINES", "EXTENSIONS")  # {path: order} or {format: path}
    for key, value in table.items():
        assert callable(load_object(key if by_key else value))


def test_the_crawl_command_checks_spider_arguments_first(settings: Settings) -> None:
    from scrapy.commands.crawl import Command as ScrapyCrawl

    from newsextract.commands.crawl import Command

    assert settings["COMMANDS_MODULE"] == "newsextract.commands"
    assert issubclass(Command, ScrapyCrawl)

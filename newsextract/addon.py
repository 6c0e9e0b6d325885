"""The Scrapy add-on for a project of your own: ``ADDONS = {"newsextract.NewsExtract": 300}``.

It turns on the item stage of newsextract's crawls for your spiders: page grouping and site
templates learned on the fly (``ITEM_PIPELINES`` 300), single-page extraction (500), the
state store that drops articles harvested before (800), failure records for every page that
did not become an article, and the feed settings that write the records as the project does.
Your spiders yield the responses of article pages (``yield response``: the
:class:`~newsextract.spidermiddlewares.pages.ResponsePages` middleware makes them page items)
or :class:`~newsextract.items.PageItem` objects, and your feeds get article records.

Every setting of the project (``NEWSEXTRACT_DATA_DIR``, ``NEWSEXTRACT_RULES_DIR``,
``NEWSEXTRACT_FAILURES``, ``NEWSEXTRACT_STATE``, ``NEWSEXTRACT_TEMPLATE_*``,
``NEWSEXTRACT_MAX_ELEMENTS``...) applies, with the same defaults. The add-on sets its
components at its own priority: your project's settings still win.
"""

from __future__ import annotations

from scrapy.settings import BaseSettings

#: What the add-on adds to each component setting, by setting name (orders as the project's).
COMPONENTS: dict[str, dict[str, int | str]] = {
    "ITEM_PIPELINES": {
        "newsextract.pipelines.templates.TemplatePipeline": 300,
        "newsextract.pipelines.extraction.ExtractionPipeline": 500,
        "newsextract.pipelines.state.HarvestPipeline": 800,
    },
    "EXTENSIONS": {
        "newsextract.extensions.failures.FailureLog": 100,
        # After Scrapy's FeedExporter (0): it tells the state store which articles a feed holds.
        "newsextract.extensions.feeds.FeedWatch": 100,
    },
    "SPIDER_MIDDLEWARES": {"newsextract.spidermiddlewares.pages.ResponsePages": 950},
    "FEED_EXPORTERS": {
        "xml": "newsextract.exporters.SafeXmlItemExporter",
        **dict.fromkeys(
            ("jsonlines", "jsonl", "jl"), "newsextract.exporters.ArticleJsonLinesItemExporter"
        ),
    },
    "FEED_STORAGES": {
        "": "newsextract.exporters.FlushedFileFeedStorage",
        "file": "newsextract.exporters.FlushedFileFeedStorage",
    },
}
#: Plain settings the add-on sets, as the project's settings set them.
VALUES = {"FEED_EXPORT_ENCODING": "utf-8"}


class NewsExtract:
    """Scrapy add-on: newsextract's item stage for the spiders of your own project."""

    def update_settings(self, settings: BaseSettings) -> None:
        for name, components in COMPONENTS.items():
            current = settings[name]
            for component, value in components.items():
                if isinstance(current, BaseSettings):
                    current.set(component, value, "addon")
                elif component not in current:
                    current[component] = value
        for name, value in VALUES.items():
            settings.set(name, value, "addon")

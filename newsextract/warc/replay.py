"""A crawl's item pipeline again, offline, over the web archive the crawl wrote.

A crawl hands its article pages to the template stage (:mod:`newsextract.pipelines.learning`)
one at a time, in the order their responses arrive; what the stage answers for a page depends
on the pages before it (a URL pattern's rules are learned from its first distinct pages, the
first pages wait in the hold, a page the rules fail on is a sample for learning them again).
The archive holds the responses in that same order: the middleware writes each one as it
arrives, before the spider reads it. So the same stage, given the same pages in archive order
with the crawl's settings, learns the same rules at the same pages and gives the same bodies;
pages it passes on get the single-page stage (:mod:`newsextract.pipelines.extraction`), as in
the crawl.

Which responses were pages: a newsextract crawl names, in each record, the kind of page its
spider asked for (``Newsextract-Kind``; only ``article`` pages reach the item pipeline), and the
site and language it gave them. As in the spider, an article response reaches the pipeline only
with a 2xx status (Scrapy's HttpErrorMiddleware) and an HTML body
(:func:`newsextract.spiders.content.is_html`); the others are the crawl's failure records.
The settings the stage reads are in the archive's ``warcinfo`` record
(:data:`~newsextract.warc.writer.TEMPLATE_SETTINGS`); missing ones are the project's. An
archive from another crawler has none of this: each HTML response is a page of the site of
its host, in archive order.

Not replayed: a crawl that fell idle with pages held (they are released then, learned from
fewer pages) before fetching more; pages the state store dropped as harvested meanwhile (a
redirect to a page harvested already); and shared mode, where other workers' rules count.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scrapy.settings import Settings

from newsextract.items import ArticleItem, PageItem
from newsextract.pipelines import DropPage
from newsextract.pipelines.extraction import extract_item, page_limits
from newsextract.pipelines.learning import SiteLearner, SiteTemplatesLike
from newsextract.pipelines.templates import learner_config
from newsextract.spiders.content import is_html, looks_binary, media_type
from newsextract.spiders.urls import site_of
from newsextract.warc.reader import ArchivedResponse
from newsextract.warc.writer import ARTICLE_KIND, TEMPLATE_SETTINGS

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Replayed:
    """One response's answer: the crawl's article item, or the failure it ended as."""

    response: ArchivedResponse
    item: ArticleItem | None = None
    stage: str = ""
    reason: str = ""


def recorded_settings(info: Mapping[str, str]) -> dict[str, str]:
    """The crawl's values of :data:`TEMPLATE_SETTINGS` among an archive's warcinfo fields."""
    return {name: info[name] for name in TEMPLATE_SETTINGS if name in info}


def crawl_settings(recorded: Mapping[str, str]) -> Settings:
    """The project's settings, as a crawl reads them, with the values the archive recorded."""
    settings = Settings()
    settings.setmodule("newsextract.settings", priority="project")
    settings.update(dict(recorded), priority="cmdline")
    return settings


def not_a_page(response: ArchivedResponse) -> tuple[str, str] | None:
    """(stage, reason) when the crawl did not hand this response to its item pipeline, as
    its failure record says it (an empty stage: no failure, a listing page or a sitemap)."""
    if not response.kind:  # another crawler's archive: every HTML response is a page
        if response.is_html:
            return None
        return "content-type", f"not HTML: {response.content_type or 'no Content-Type'}"
    if response.kind != ARTICLE_KIND:
        return "", f"a {response.kind} page of the crawl"
    if not 200 <= response.status < 300:
        return "http", f"HTTP status {response.status}"
    if not is_html(response.content_type, response.body):
        declared = media_type(response.content_type) or "no Content-Type"
        why = "binary body" if looks_binary(response.body) else "not HTML"
        return "content-type", f"not an HTML page ({declared}, {why})"
    return None


def page_item(response: ArchivedResponse) -> PageItem:
    """The item the spider made of the response (``newsextract.spiders.base.page_item``)."""
    return PageItem(
        url=response.url,
        body=response.body,
        content_type=response.content_type,
        status=response.status,
        site=response.site or site_of(response.url),
        fetched_at=response.date,
        language=response.language,
    )


def _site_templates(site: str, rules_dir: Path | None) -> SiteTemplatesLike:
    from newsextract.templates.site import SiteTemplates

    return SiteTemplates(site, rules_dir)


class CrawlReplay:
    """The crawl's template stage, then its single-page stage, over pages in archive order.

    ``rules_dir``: where the rules are read and saved (None: learned afresh and kept in
    memory, as in a crawl that starts without rules)."""

    def __init__(self, recorded: Mapping[str, str], rules_dir: Path | None = None) -> None:
        settings = crawl_settings(recorded)
        self.limits = page_limits(settings)
        self.learner: SiteLearner | None = None
        if settings.getbool("NEWSEXTRACT_TEMPLATES_ENABLED", True):
            config = replace(learner_config(settings), rules_dir=rules_dir)
            self.learner = SiteLearner(_site_templates, config)
        self._responses: dict[int, ArchivedResponse] = {}

    def run(self, pages: Iterable[ArchivedResponse]) -> Iterator[Replayed]:
        """Every page's answer, in the order the crawl gave them (held pages later)."""
        for response in pages:
            yield from self.process(response)
        yield from self.finish()

    def process(self, response: ArchivedResponse) -> Iterator[Replayed]:
        item = page_item(response)
        if self.learner is None:
            yield self._settle(response, item)
            return
        self._responses[id(item)] = response
        try:
            verdict = self.learner.process(item)
        except Exception as error:  # in a crawl, Scrapy logs it and drops the page
            logger.exception("the template stage failed on %s", response.url)
            self._responses.pop(id(item), None)
            yield Replayed(response, None, "pipeline-error", f"{type(error).__name__}: {error}")
            return
        yield from self._released(verdict.released)
        if verdict.held is None:
            self._responses.pop(id(item), None)
            yield self._settle(response, verdict.result)

    def finish(self) -> Iterator[Replayed]:
        """The crawl's end: the held pages are learned from what there is, and answered."""
        if self.learner is not None:
            yield from self._released(self.learner.release_all())

    def _released(self, released: Iterable[tuple[Any, Any]]) -> Iterator[Replayed]:
        for held, result in released:
            yield self._settle(self._responses.pop(id(held.item)), result)

    def _settle(self, response: ArchivedResponse, result: Any) -> Replayed:
        """An article of the template stage, or the single-page stage's answer."""
        if isinstance(result, ArticleItem):
            return Replayed(response, result)
        try:
            return Replayed(response, extract_item(result, self.limits))
        except DropPage as error:
            return Replayed(response, None, error.stage, str(error))

"""The template stage of a crawl: learn each site's template on the fly and apply its rules.

Placed before single-page extraction (ITEM_PIPELINES 300). For every :class:`PageItem`:

- its group is the site and the URL pattern of the page (``PageItem.group`` is set here);
- if the site has rules for that group (learned in this crawl or saved by an earlier one),
  the rules extract the page (from a light page: decoded and parsed, cleaned and cut into
  blocks only where the rules look; the full page model is built only when that gives no
  validated answer) and the stage returns an :class:`ArticleItem` whose
  ``extraction`` says ``method`` (``"rules"``), ``ruleVersion`` and ``confidence``; if
  validation fails (a redesign) the page is passed on unchanged to single-page extraction
  and kept as a sample of the new layout, and the rules are learned again from those;
- otherwise the page is held back until its group has enough distinct pages to learn
  from, then answered with the new rules. Every page ends as an article here or passes on.

Holding a page means that ``process_item`` has not returned yet: Scrapy keeps the page's
response in the scraper's active set and will not close the spider. Held pages are
released (1) when their group's rules are learned, (2) oldest first when the hold's bound
is reached, (3) when the crawl has nothing else in flight (a periodic check of the
engine: no download, no scheduled or start request, no other item in the pipelines; seen
twice in a row) or is closing, after a last attempt to learn from fewer pages.

Settings (all optional):

``NEWSEXTRACT_TEMPLATES_ENABLED`` (bool, default True)
    False switches the stage off: every page goes to single-page extraction.
``NEWSEXTRACT_RULES_DIR`` (path)
    Where each site's rule files are read and written; default
    ``<NEWSEXTRACT_DATA_DIR>/rules`` (the data directory comes from the setting or the
    environment variable of that name, else ``./data``). ``none`` keeps rules in memory.
``NEWSEXTRACT_TEMPLATE_SAMPLES`` (int, default 6)
    Sample pages kept per group to learn from.
``NEWSEXTRACT_TEMPLATE_MIN_PAGES`` (int, default 3)
    Distinct pages a group needs before its template is learned.
``NEWSEXTRACT_TEMPLATE_HOLD`` (int, default 32; 0 holds nothing)
    Pages held back at most, over all groups.
``NEWSEXTRACT_TEMPLATE_HOLD_BYTES`` (int, default 2 MB)
    Bytes of held pages at most; never more than half of ``SCRAPER_SLOT_MAX_ACTIVE_SIZE``.
``NEWSEXTRACT_TEMPLATE_GROUPS`` (int, default 64)
    Page groups kept at once; the least recently seen group is forgotten first.
``NEWSEXTRACT_MAX_ELEMENTS``, ``NEWSEXTRACT_MAX_BLOCKS``
    How complex a page may be (see :mod:`newsextract.pipelines.extraction`); a page over
    them is passed on, and single-page extraction records it as ``too-complex``.
``NEWSEXTRACT_REDIS_URL`` (setting or environment variable)
    Shared mode: the rules live in that Redis (under ``NEWSEXTRACT_REDIS_PREFIX``) instead of
    the rules directory, one worker at a time learns a site's rules, and every worker uses a
    new version from its next page on (:mod:`newsextract.sharedmode.rules`). An unreachable
    Redis stops the crawl at its start with one line saying so.
"""

from __future__ import annotations

import logging
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from twisted.internet.defer import Deferred
from twisted.internet.task import LoopingCall

from newsextract.pipelines.extraction import page_limits, read_model_early
from newsextract.pipelines.grouping import MAX_GROUPS_DEFAULT, SAMPLES_DEFAULT
from newsextract.pipelines.holding import HOLD_BYTES_DEFAULT, HOLD_PAGES_DEFAULT, HeldPage
from newsextract.pipelines.learning import (
    MIN_PAGES_DEFAULT,
    STAT_PREFIX,
    LearnerConfig,
    SiteLearner,
    SiteTemplatesLike,
    TemplatesFactory,
)
from newsextract.sharedmode.connection import connect, key_prefix, redis_url, retry_budget

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from twisted.internet.interfaces import IReactorTime

    from newsextract.templates.historyqueue import QueuedHistoryStore

logger = logging.getLogger(__name__)

#: Seconds between two looks at whether the crawl is only waiting for held pages. Short
#: enough that a finished crawl ends promptly; the check itself costs microseconds.
IDLE_CHECK_SECONDS_DEFAULT = 0.5
#: Consecutive idle looks before held pages are released: one look can fall between a
#: response and the requests its callback is about to schedule.
IDLE_CHECKS_DEFAULT = 2
DATA_DIR_DEFAULT = "data"


class TemplatePipeline:
    """Scrapy item pipeline around :class:`SiteLearner`; see the module's docstring."""

    def __init__(
        self,
        learner: SiteLearner,
        crawler: Crawler | None = None,
        idle_check_seconds: float = IDLE_CHECK_SECONDS_DEFAULT,
        clock: IReactorTime | None = None,
        history: QueuedHistoryStore | None = None,
    ) -> None:
        self.learner = learner
        self.history = history  # closed last: the held pages' answers save history too
        self.crawler = crawler
        self.idle_check_seconds = idle_check_seconds
        self.clock = clock  # None: the running reactor
        self._idle_looks = 0
        self._watch: LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> TemplatePipeline:
        settings = crawler.settings
        if not settings.getbool("NEWSEXTRACT_TEMPLATES_ENABLED", True):
            raise NotConfigured("NEWSEXTRACT_TEMPLATES_ENABLED is off")
        stats = crawler.stats

        def count(key: str) -> None:
            if stats is not None:  # keys of other namespaces (newsextract/shared/) as they are
                stats.inc_value(key if key.startswith("newsextract/") else STAT_PREFIX + key)

        read_model_early()  # learning a template reads it too
        history = rules_store(settings)
        factory = templates_factory(settings, history)
        return cls(SiteLearner(factory, learner_config(settings), count), crawler, history=history)

    # --- Scrapy's hooks -------------------------------------------------------------

    def open_spider(self) -> None:
        self._watch = LoopingCall(self.check_idle)
        if self.clock is not None:
            self._watch.clock = self.clock
        self._watch.start(self.idle_check_seconds, now=False)

    def close_spider(self) -> None:
        if self._watch is not None and self._watch.running:
            self._watch.stop()
        self._answer(self.learner.release_all())
        if self.history is not None:
            self.history.close()

    async def process_item(self, item: Any) -> Any:
        verdict = self.learner.process(item)
        self._answer(verdict.released)
        if verdict.held is None:
            return verdict.result
        return await _awaitable(verdict.held.waiter)

    # --- releasing held pages ---------------------------------------------------------

    def check_idle(self) -> None:
        """Release every held page when the crawl waits only for them, or is closing.

        It never raises: a failure here would stop the periodic check and leave the crawl
        waiting forever for its held pages, so they are passed on unchanged instead."""
        try:
            self._check_idle()
        except Exception:
            logger.exception("the template stage failed to release its held pages")
            self._answer([(held, held.item) for held in self.learner.hold.pop_all()])

    def _check_idle(self) -> None:
        if not len(self.learner.hold):
            self._idle_looks = 0
            return
        closing, idle = crawl_activity(self.crawler, len(self.learner.hold))
        self._idle_looks = self._idle_looks + 1 if idle else 0
        if closing or self._idle_looks >= IDLE_CHECKS_DEFAULT:
            self._idle_looks = 0
            self._answer(self.learner.release_all())

    def _answer(self, released: list[tuple[HeldPage, Any]]) -> None:
        for held, result in released:
            if not held.waiter.called:
                held.waiter.callback(result)


def crawl_activity(crawler: Crawler | None, held: int) -> tuple[bool, bool]:
    """(closing, idle): whether the engine is closing, and whether nothing but the ``held``
    items is in flight. Reads the engine's internals defensively: when they cannot be
    read, the crawl counts as idle, which releases pages early (never loses them)."""
    engine = getattr(crawler, "engine", None)
    slot = getattr(engine, "_slot", None)
    if engine is None or slot is None:
        return False, True
    if getattr(slot, "closing", None) is not None or not getattr(engine, "running", True):
        return True, True
    scraper_slot = getattr(getattr(engine, "scraper", None), "slot", None)
    busy = (
        bool(getattr(getattr(engine, "downloader", None), "active", ()))
        or getattr(engine, "_start", None) is not None
        or bool(slot.scheduler.has_pending_requests())
        or bool(getattr(scraper_slot, "queue", ()))
        or getattr(scraper_slot, "itemproc_size", 0) > held
    )
    return False, not busy


def _awaitable(waiter: Deferred[Any]) -> Any:
    # Under the asyncio reactor a coroutine can only await futures; under another
    # reactor, or when no reactor is installed (unit tests), it awaits the Deferred.
    from scrapy.utils.defer import maybe_deferred_to_future

    try:
        return maybe_deferred_to_future(waiter)
    except RuntimeError:
        return waiter


def learner_config(settings: BaseSettings) -> LearnerConfig:
    """The stage's bounds from the crawl's settings (see the module's docstring)."""
    active_size = settings.getint("SCRAPER_SLOT_MAX_ACTIVE_SIZE", 5_000_000)
    hold_bytes = settings.getint("NEWSEXTRACT_TEMPLATE_HOLD_BYTES", HOLD_BYTES_DEFAULT)
    return LearnerConfig(
        rules_dir=rules_dir(settings),
        samples=max(2, settings.getint("NEWSEXTRACT_TEMPLATE_SAMPLES", SAMPLES_DEFAULT)),
        min_pages=max(2, settings.getint("NEWSEXTRACT_TEMPLATE_MIN_PAGES", MIN_PAGES_DEFAULT)),
        hold_pages=max(0, settings.getint("NEWSEXTRACT_TEMPLATE_HOLD", HOLD_PAGES_DEFAULT)),
        hold_bytes=max(0, min(hold_bytes, active_size // 2)),
        max_groups=max(1, settings.getint("NEWSEXTRACT_TEMPLATE_GROUPS", MAX_GROUPS_DEFAULT)),
        limits=page_limits(settings),
    )


def rules_dir(settings: BaseSettings) -> Path | None:
    """``NEWSEXTRACT_RULES_DIR``, else ``rules`` in the data directory; None for ``none``."""
    chosen = settings.get("NEWSEXTRACT_RULES_DIR")
    if chosen:
        return None if str(chosen).lower() == "none" else Path(chosen)
    data_dir = (
        settings.get("NEWSEXTRACT_DATA_DIR")
        or os.environ.get("NEWSEXTRACT_DATA_DIR")
        or DATA_DIR_DEFAULT
    )
    return Path(data_dir) / "rules"


def _site_templates(site: str, rules_dir: Path | None) -> SiteTemplatesLike:
    from newsextract.templates.site import SiteTemplates

    templates: SiteTemplatesLike = SiteTemplates(site, rules_dir)
    return templates


def rules_store(settings: BaseSettings) -> QueuedHistoryStore | None:
    """The crawl's rules directory, its history saves off the event loop; None in shared mode
    or when rules are kept in memory."""
    directory = rules_dir(settings)
    if directory is None or redis_url(settings) is not None:
        return None
    from newsextract.templates.historyqueue import QueuedHistoryStore

    return QueuedHistoryStore(directory)


def _stored_templates(
    store: QueuedHistoryStore, site: str, rules_dir: Path | None
) -> SiteTemplatesLike:
    from newsextract.templates.site import SiteTemplates

    templates: SiteTemplatesLike = SiteTemplates(site, store=store)  # store: of rules_dir
    return templates


def templates_factory(
    settings: BaseSettings, store: QueuedHistoryStore | None = None
) -> TemplatesFactory:
    """Each site's templates over the rules directory (``store``: that of
    :func:`rules_store`), or over Redis in shared mode (SharedModeError, one clear line, when
    it cannot be reached)."""
    from newsextract.templates.site import SiteTemplates  # now, not on the crawl's first page

    url = redis_url(settings)
    if url is None and store is not None:
        return partial(_stored_templates, store)
    if url is None:
        return _site_templates
    from newsextract.sharedmode.rules import RedisRuleStore

    shared_store = RedisRuleStore(connect(url, retry=retry_budget(settings)), key_prefix(settings))

    def shared(site: str, rules_dir: Path | None) -> SiteTemplatesLike:
        return SiteTemplates(site, store=shared_store)

    return shared

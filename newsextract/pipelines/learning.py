"""What the template stage decides for each page, without a crawler.

For every fetched page the :class:`SiteLearner` answers one of three things:

- an article made by the site's rules (the fast path, and held pages once rules exist).
  Where the site has rules for the page's group (or rules of its other groups to
  borrow), they are applied first to a light page (:mod:`newsextract.templates.fastpath`:
  decoded, parsed, cleaned and cut into blocks only where the rules look); the full page
  model is built only when that gives no validated answer, or to learn from the page;
- "pass the page on" to single-page extraction (no rules yet and no room to hold it, a
  page the rules failed to validate on, a page that is not HTML);
- "hold it": the page's group has no rules yet, so it waits (bounded) until the group has
  enough distinct pages to learn from, the hold is full, or the crawl has nothing else to
  do. Held pages are answered later through :class:`~newsextract.pipelines.holding.HeldPage`
  waiters, each exactly once.

A page the rules fail on is kept as a sample of the site's new layout; once enough of them
are collected the rules are learned again (the templates use the site's history).

In shared mode (many workers, one Redis: :mod:`newsextract.sharedmode.rules`) the site's
rules are checked for a version another worker saved before each page, and the held pages it
answers leave the hold; a group whose rules another worker is learning keeps holding pages
(within the hold's bound) and tries again with its next page.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import redis

from newsextract.exceptions import NewsExtractError, NotHTMLError, PageTooComplexError
from newsextract.extraction.pagemodel.page import (
    DEFAULT_LIMITS,
    Page,
    PageLimits,
    parse_page,
)
from newsextract.extraction.record.article import Article
from newsextract.items import ArticleItem, PageItem, article_item
from newsextract.pipelines.grouping import (
    MAX_GROUPS_DEFAULT,
    SAMPLES_DEFAULT,
    GroupKey,
    GroupTable,
    PageGroup,
    fingerprint,
    url_pattern,
)
from newsextract.pipelines.holding import (
    HOLD_BYTES_DEFAULT,
    HOLD_PAGES_DEFAULT,
    HeldPage,
    HoldQueue,
)
from newsextract.templates.fastpath import LightPage, light_page
from newsextract.templates.store import LeaseBusyError

logger = logging.getLogger(__name__)

#: Distinct pages a group needs before its template is learned
#: (NEWSEXTRACT_TEMPLATE_MIN_PAGES). Method A needs two; a third page keeps a block that
#: two articles share by chance (a date, a byline) from being taken for the template.
MIN_PAGES_DEFAULT = 3
#: When the crawl ends, groups still short of MIN_PAGES are learned from this many pages,
#: so that their held pages still get a template (method A's own minimum).
MIN_PAGES_AT_END_DEFAULT = 2
#: Re-learnings of one group in one crawl after validation failures. A URL pattern that
#: mixes two templates (articles and galleries) would otherwise re-learn back and forth.
MAX_RELEARNS_DEFAULT = 3
#: Sites whose templates are kept loaded at once; a forgotten site reloads from its files.
MAX_SITES_DEFAULT = 32
#: Kinds with rules remembered per site, and how many of them a page of a kind without
#: rules tries (each try is one validated rule application, about a millisecond).
MAX_KINDS_DEFAULT = 8
MAX_BORROWED_KINDS_DEFAULT = 3

STAT_PREFIX = "newsextract/templates/"


class SiteTemplatesLike(Protocol):
    """The facade of ``newsextract.templates.site.SiteTemplates`` that the stage uses."""

    def learn(self, pages: Sequence[Page], kind: str = "article") -> object | None: ...
    def extract(self, page: Page, kind: str = "article") -> Article | None: ...
    def extract_light(self, page: LightPage, kind: str = "article") -> Article | None: ...
    def has_rules(self, kind: str) -> bool: ...
    def rule_version(self, kind: str) -> str: ...


def refresh_rules(templates: SiteTemplatesLike) -> bool:
    """Reload templates whose store other workers write (those with a ``refresh`` method)
    when a new version was saved; True when they were reloaded. A look for the method, not
    ``isinstance`` of a runtime-checkable protocol, which costs more than the refresh."""
    refresh: Callable[[], bool] | None = getattr(templates, "refresh", None)
    return refresh is not None and refresh()


TemplatesFactory = Callable[[str, Path | None], SiteTemplatesLike]
Counter = Callable[[str], None]


@dataclass(frozen=True)
class LearnerConfig:
    """The stage's bounds; each field is documented by the setting that sets it."""

    rules_dir: Path | None = None
    samples: int = SAMPLES_DEFAULT
    min_pages: int = MIN_PAGES_DEFAULT
    min_pages_at_end: int = MIN_PAGES_AT_END_DEFAULT
    hold_pages: int = HOLD_PAGES_DEFAULT
    hold_bytes: int = HOLD_BYTES_DEFAULT
    max_groups: int = MAX_GROUPS_DEFAULT
    max_relearns: int = MAX_RELEARNS_DEFAULT
    max_sites: int = MAX_SITES_DEFAULT
    limits: PageLimits = DEFAULT_LIMITS  # NEWSEXTRACT_MAX_ELEMENTS, NEWSEXTRACT_MAX_BLOCKS


@dataclass
class Verdict:
    """The stage's answer for one page, and the held pages this page set free."""

    result: Any = None  # an ArticleItem or the PageItem passed on; None while held
    held: HeldPage | None = None
    released: list[tuple[HeldPage, Any]] = field(default_factory=list)


@dataclass
class _GroupState:
    """Per-group bookkeeping beyond the samples: learning attempts and re-learnings."""

    relearns: int = 0
    new_since_attempt: int = 0
    gave_up: bool = False


class SiteLearner:
    """Groups pages, learns each group's rules, holds first pages, applies rules."""

    def __init__(
        self,
        factory: TemplatesFactory,
        config: LearnerConfig = LearnerConfig(),
        count: Counter = lambda key: None,
    ) -> None:
        self.config = config
        self._factory = factory
        self._count = count
        self._sites: OrderedDict[str, SiteTemplatesLike] = OrderedDict()
        self._groups = GroupTable(config.samples, config.max_groups)
        self._states: dict[GroupKey, _GroupState] = {}
        self._kinds: dict[str, list[str]] = {}  # site -> kinds with rules, recent first
        self.hold = HoldQueue(config.hold_pages, config.hold_bytes)

    # --- one page -------------------------------------------------------------------

    def process(self, item: Any) -> Verdict:
        """Decide for one item; items other than pages pass through untouched."""
        if not isinstance(item, PageItem):
            return Verdict(item)
        key: GroupKey = (item.site, item.group or url_pattern(item.url))
        ready = self._refresh(item.site)
        verdict = self._decide(key, item)
        verdict.released[:0] = ready
        return verdict

    def _decide(self, key: GroupKey, item: PageItem) -> Verdict:
        fast = self._light(key, item) if item.page is None else None
        if fast is not None:
            item.group = key[1]
            self._count("pages")
            return Verdict(fast)
        page = self._parse(item)
        if page is None:
            return Verdict(item)
        item.group = key[1]
        self._count("pages")
        if self._site(item.site).has_rules(item.group):
            self._note_kind(key)
            return self._apply(key, item, page)
        borrowed = self._borrow(key, item, page)
        if borrowed is not None:
            return Verdict(borrowed)
        return self._collect(key, item, page)

    def _refresh(self, site: str) -> list[tuple[HeldPage, Any]]:
        """Reload the site's rules when another worker saved a version; the held pages of
        the site that have rules now leave the hold with their answer."""
        templates = self._site(site)
        if not refresh_rules(templates):
            return []
        self._count("newsextract/shared/rules_reloaded")
        ready = [k for k in dict.fromkeys(self.hold.keys()) if k[0] == site]
        released: list[tuple[HeldPage, Any]] = []
        for key in ready:
            if templates.has_rules(key[1]):
                self._note_kind(key)
                released += self._release(self.hold.pop_group(key), "ready")
        return released + self._release_borrowers(site)

    def _parse(self, item: PageItem) -> Page | None:
        if item.page is not None:
            return item.page
        try:
            limits = self.config.limits
            item.page = parse_page(item.body, item.url, item.content_type or None, limits=limits)
            return item.page
        except (NotHTMLError, PageTooComplexError):
            return None  # single-page extraction records the failure

    def _light(self, key: GroupKey, item: PageItem) -> ArticleItem | None:
        """The answer of the group's rules, or of rules borrowed from the site's other
        groups, on a light page; None when there are none or none gives a valid answer."""
        site, kind = key
        templates = self._site(site)
        kinds = [kind] if templates.has_rules(kind) else []
        if kinds:
            self._note_kind(key)
        kinds += self._borrowable(key)
        if not kinds:
            return None
        limit = self.config.limits.max_elements
        try:
            page = light_page(item.body, item.url, item.content_type or None, max_elements=limit)
        except NewsExtractError:
            return None  # over the bounds or no document: the full path records why
        for other in kinds:
            try:
                article = templates.extract_light(page, other)
            except Exception:
                logger.exception("applying the rules of %s %s to %s failed", site, other, item.url)
                self._count("errors")
                continue
            if article is not None and article.body.strip():
                self._count("applied")
                self._count("light")
                if other != kind:
                    self._prefer(site, other)
                    self._count("borrowed")
                return article_item(item, article)
        return None

    def _apply(self, key: GroupKey, item: PageItem, page: Page) -> Verdict:
        article = self._extract(key, item, page) or self._borrow(key, item, page)
        if article is not None:
            return Verdict(article)
        self._count("validation_failed")
        group, state = self._group(key)
        if (
            state.relearns < self.config.max_relearns
            and not state.gave_up
            and self._add_sample(group, state, page)
            and self._learn(key, group, state, self.config.min_pages)
        ):
            state.relearns += 1
            self._count("relearned")
            article = self._extract(key, item, page)
        return Verdict(article if article is not None else self._pass(item))

    def _collect(self, key: GroupKey, item: PageItem, page: Page) -> Verdict:
        group, state = self._group(key)
        released = self._evict()
        if state.gave_up:
            return Verdict(self._pass(item), released=released)
        if self._add_sample(group, state, page) and self._learn(
            key, group, state, self.config.min_pages
        ):
            self._count("induced")
            self._note_kind(key)
            released += self._release(self.hold.pop_group(key), "ready")
            released += self._release_borrowers(key[0])
            article = self._extract(key, item, page)
            return Verdict(article or self._pass(item), released=released)
        if not self.hold.fits(len(item.body)):
            return Verdict(self._pass(item), released=released)
        held = HeldPage(key, item, page, len(item.body))
        self._count("held")
        released += self._release(self.hold.add(held), "bound")
        return Verdict(held=held, released=released)

    # --- learning -----------------------------------------------------------------------

    def _group(self, key: GroupKey) -> tuple[PageGroup, _GroupState]:
        return self._groups.get(key), self._states.setdefault(key, _GroupState())

    def _add_sample(self, group: PageGroup, state: _GroupState, page: Page) -> bool:
        if not group.add(page, fingerprint(page)):
            self._count("duplicates")
            return False
        state.new_since_attempt += 1
        return True

    def _learn(self, key: GroupKey, group: PageGroup, state: _GroupState, needed: int) -> bool:
        """Learn when the group has ``needed`` pages and new ones since the last failure."""
        if len(group) < needed or state.new_since_attempt == 0:
            return False
        state.new_since_attempt = 0
        site, kind = key
        templates = self._site(site)
        before = templates.rule_version(kind)
        try:
            version = templates.learn(list(group.samples), kind)
        except LeaseBusyError:
            self._count("newsextract/shared/rules_lease_busy")
            state.new_since_attempt = max(state.new_since_attempt, 1)  # try again next page
            return False
        except redis.RedisError as error:  # shared mode: Redis stayed away, the crawl stops
            logger.warning("learning the template of %s %s failed: %s", site, kind, error)
            self._count("errors")
            version = None
        except Exception:
            logger.exception("learning the template of %s %s failed", site, kind)
            self._count("errors")
            version = None
        if version is not None and templates.rule_version(kind) in ("", before):
            version = None  # nothing new: the same rules, or a hand-edited version kept
        if version is None:
            self._count("learn_failed")
            if len(group) >= self.config.samples:
                state.gave_up = True  # a full sample and still nothing to learn
                group.clear()
            return False
        group.clear()
        return True

    def _extract(self, key: GroupKey, item: PageItem, page: Page) -> ArticleItem | None:
        site, kind = key
        try:
            article = self._site(site).extract(page, kind)
        except Exception:
            logger.exception("applying the rules of %s %s to %s failed", site, kind, item.url)
            self._count("errors")
            return None
        if article is None or not article.body.strip():
            return None
        self._count("applied")
        return article_item(item, article)

    def _site(self, site: str) -> SiteTemplatesLike:
        templates = self._sites.get(site)
        if templates is None:
            templates = self._sites[site] = self._factory(site, self.config.rules_dir)
            while len(self._sites) > self.config.max_sites:
                forgotten, _ = self._sites.popitem(last=False)
                self._kinds.pop(forgotten, None)
        self._sites.move_to_end(site)
        return templates

    # --- borrowing the rules of another kind of the same site ---------------------------

    def _note_kind(self, key: GroupKey) -> None:
        kinds = self._kinds.setdefault(key[0], [])
        if key[1] not in kinds:
            kinds.insert(0, key[1])
            del kinds[MAX_KINDS_DEFAULT:]

    def _borrow(self, key: GroupKey, item: PageItem, page: Page) -> ArticleItem | None:
        """Apply the rules of the site's other kinds, most recently useful first.

        A site's sections (/news/, /business/) are different URL patterns with one template;
        validation keeps a rule from answering for a page it does not fit."""
        site = key[0]
        for other in self._borrowable(key):
            article = self._extract((site, other), item, page)
            if article is not None:
                self._prefer(site, other)
                self._count("borrowed")
                return article
        return None

    def _borrowable(self, key: GroupKey) -> list[str]:
        """The site's other kinds with rules that a page of ``key`` tries, best first."""
        site, kind = key
        return [k for k in self._kinds.get(site, []) if k != kind][:MAX_BORROWED_KINDS_DEFAULT]

    def _prefer(self, site: str, kind: str) -> None:
        kinds = self._kinds.setdefault(site, [])
        if kind in kinds:
            kinds.remove(kind)
        kinds.insert(0, kind)

    # --- releasing held pages -----------------------------------------------------------

    def release_all(self) -> list[tuple[HeldPage, Any]]:
        """The crawl is ending or idle: learn what can be learned, answer every held page."""
        for site in dict.fromkeys(held.key[0] for held in self.hold.pages()):
            refresh_rules(self._site(site))  # another worker's rules answer them all the same
        for key in dict.fromkeys(self.hold.keys()):
            group, state = self._group(key)
            if self._site(key[0]).has_rules(key[1]) or state.gave_up:
                continue
            if len(group) < self.config.min_pages:  # never tried: too few pages until now
                state.new_since_attempt = max(state.new_since_attempt, 1)
            if self._learn(key, group, state, self.config.min_pages_at_end):
                self._count("induced")
                self._note_kind(key)
        return self._release(self.hold.pop_all(), "idle")

    def _evict(self) -> list[tuple[HeldPage, Any]]:
        released: list[tuple[HeldPage, Any]] = []
        for key in self._groups.evict():
            self._states.pop(key, None)
            released += self._release(self.hold.pop_group(key), "evicted")
        return released

    def _release(self, leaving: list[HeldPage], why: str) -> list[tuple[HeldPage, Any]]:
        answers: list[tuple[HeldPage, Any]] = []
        for held in leaving:
            self._count(f"released/{why}")
            article = self._from_rules(held)
            answers.append((held, article if article is not None else self._pass(held.item)))
        return answers

    def _release_borrowers(self, site: str) -> list[tuple[HeldPage, Any]]:
        """Held pages of the site's other kinds that the new rules fit leave the hold."""
        answers: list[tuple[HeldPage, Any]] = []
        for held in self.hold.pages():
            if held.key[0] != site:
                continue
            article = self._borrow(held.key, held.item, held.page)
            if article is not None:
                self.hold.remove(held)
                self._count("released/ready")
                answers.append((held, article))
        return answers

    def _from_rules(self, held: HeldPage) -> ArticleItem | None:
        if self._site(held.key[0]).has_rules(held.key[1]):
            return self._extract(held.key, held.item, held.page)
        return self._borrow(held.key, held.item, held.page)

    def _pass(self, item: PageItem) -> PageItem:
        self._count("passed")
        return item

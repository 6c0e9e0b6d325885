"""The facade the crawl's template stage and the batch commands code against.

``SiteTemplates(site, rules_dir)`` learns a site's rules from pages of one kind, saves them as a
new version when they differ, applies them (the fast path) with validation, and re-induces them
from earlier results when a redesign breaks them.

The rules are read once from their store and kept. A store that other processes write (Redis
in shared mode) gives a revision that :meth:`SiteTemplates.refresh` compares before each page,
so a version another worker saved is used from the next page on; and learning holds the
store's lease, so one worker at a time learns a site's rules of a kind.
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from newsextract.exceptions import NewsExtractError, RuleFileError
from newsextract.extraction.pagemodel.page import Page
from newsextract.extraction.record.article import Article
from newsextract.templates.config import DEFAULT, TemplateConfig
from newsextract.templates.fastpath import LightPage, light_article, light_page
from newsextract.templates.induce import induce
from newsextract.templates.listing import Record, induce_listing, records, reinduce_listing
from newsextract.templates.reinduce import Previous, reinduce
from newsextract.templates.rules import (
    Applied,
    BodyRule,
    RuleVersion,
    apply_version,
    find_region,
    rule_article,
)
from newsextract.templates.store import (
    HISTORY_RECORDS_KEPT_DEFAULT,
    RuleStore,
    RuleStoreLike,
    RuleStoreUnavailableError,
    current_version,
    with_version,
)
from newsextract.templates.validate import Verdict, validate_body

logger = logging.getLogger(__name__)

#: Earlier results kept per site for re-induction (bounded whatever the crawl's size).
MAX_PREVIOUS_DEFAULT = 200
#: Recent bodies remembered for the uniqueness check (a region that gives the same body on
#: two URLs is not the article: a redesign put a fixed box where the story was).
MAX_RECENT_BODIES_DEFAULT = 5000
#: Body rules a version keeps, one per template of the site (newest templates first).
MAX_BODY_RULES_DEFAULT = 8
#: Earlier results written beside the rules, how many, how often and how much of each body
#: (re-induction needs a few paragraphs to find an article again, not all of it).
MAX_SAVED_PREVIOUS_DEFAULT = 50
SAVE_HISTORY_EVERY_DEFAULT = 25
SAVED_BODY_LINES_DEFAULT = 12
#: The page kind whose rules are repeating rules (records of title and link).
LISTING_KIND = "listing"


class SiteTemplates:
    """One site's rules: learned, stored, applied, validated and re-learned."""

    def __init__(
        self,
        site: str,
        rules_dir: Path | None = None,
        config: TemplateConfig = DEFAULT,
        store: RuleStoreLike | None = None,
    ) -> None:
        """``store``: where the rules are kept, instead of the files of ``rules_dir``."""
        self.site = site
        self.config = config
        if store is None and rules_dir is not None:
            store = RuleStore(rules_dir)
        # the store the rules come from, kept to watch for a fixed version when self.store
        # is None because what it held could not be read
        self._source = store
        self.store = store
        self._revision: str | None = None
        self._unwatched = False  # the revision could not be read: said once, not every page
        self._versions: list[RuleVersion] = self._load()
        self._previous: OrderedDict[str, Previous] = OrderedDict()
        self._unsaved = 0
        for record in self.store.load_history(site) if self.store else []:
            self.remember(_previous_from(record), save=False)
        # body digest -> url of the recent bodies, for the uniqueness check (bounded)
        self._bodies: OrderedDict[str, str] = OrderedDict()
        self.last_verdict = Verdict(True)

    def _load(self) -> list[RuleVersion]:
        """The stored versions. A rule file that cannot be read (a person's edit broke it, or
        it is hostile) is left as it is for them to fix: rules are then kept in memory only."""
        if self._source is None:
            return []
        try:
            self._revision = self._source.revision(self.site)  # before: a later write reloads
            versions = self._source.load(self.site)
        except RuleFileError as error:
            logger.error("rules of %s not used and not overwritten: %s", self.site, error)
            self.store = None
            return []
        except RuleStoreUnavailableError as error:
            logger.error(
                "rules of %s not read, kept in memory until they can be: %s", self.site, error
            )
            self.store = None
            self._revision = ""  # no revision is "": the rules are read once the store answers
            return []
        self.store = self._source
        return versions

    def refresh(self) -> bool:
        """Reload the rules when their store's revision moved (another worker saved a
        version, or a person imported one); True when they were reloaded. A store that
        cannot be asked keeps the rules in memory, with one warning until it answers."""
        if self._source is None or self._revision is None:
            return False
        try:
            revision = self._source.revision(self.site)
        except RuleStoreUnavailableError as error:  # go on with the rules in hand
            if not self._unwatched:
                logger.warning("rules of %s not checked for new versions: %s", self.site, error)
            self._unwatched = True
            return False
        self._unwatched = False
        if revision == self._revision:
            return False
        self._versions = self._load()
        return True

    @classmethod
    def from_versions(cls, site: str, versions: Sequence[RuleVersion]) -> SiteTemplates:
        """Rules read from a file given by path rather than kept in a rules directory."""
        templates = cls(site)
        templates._versions = list(versions)
        return templates

    # -- state ---------------------------------------------------------------------------

    def current(self, kind: str = "article") -> RuleVersion | None:
        return current_version([v for v in self._versions if v.kind == kind])

    def has_rules(self, kind: str = "article") -> bool:
        return self.current(kind) is not None

    def rule_version(self, kind: str = "article") -> str:
        version = self.current(kind)
        return version.label if version else ""

    def versions(self, kind: str = "article") -> list[RuleVersion]:
        return [v for v in self._versions if v.kind == kind]

    def all_versions(self) -> list[RuleVersion]:
        """Every version of every page kind, as the store holds them."""
        return list(self._versions)

    # -- learning ------------------------------------------------------------------------

    def learn(self, pages: Sequence[Page], kind: str = "article") -> RuleVersion | None:
        """Induce from pages of one kind; save a new version when it differs from the current.

        A version a person edited stays in force. Pages whose URL was extracted before are
        re-induced from those earlier results when plain induction finds nothing."""
        current = self.current(kind)
        if current is not None and current.edited:
            return current
        lease = self.store.lease(self.site, kind) if self.store is not None else nullcontext()
        with lease:  # LeaseBusyError: another worker is learning them
            self.refresh()
            if self.current(kind) != current:
                return self.current(kind)  # saved by another worker while this one waited
            return self._learn(pages, kind, current)

    def _learn(
        self, pages: Sequence[Page], kind: str, current: RuleVersion | None
    ) -> RuleVersion | None:
        version = None
        if kind == LISTING_KIND:
            listing = induce_listing(pages) if len(pages) >= self.config.min_pages else None
            version = RuleVersion(self.site, kind, 0, listings=(listing,)) if listing else None
        elif len(pages) >= self.config.min_pages:
            version = induce(pages, self.site, kind, self.config).version
        if version is None:
            version = self._reinduce(pages, kind)
        self.save_history()
        if version is None:
            return current
        return self._save(keep_other_templates(version, current, pages))

    def _reinduce(self, pages: Sequence[Page], kind: str) -> RuleVersion | None:
        pairs = [(p, self._previous[p.url]) for p in pages if p.url and p.url in self._previous]
        return reinduce(pairs, self.site, kind, self.config) if pairs else None

    def _save(self, version: RuleVersion) -> RuleVersion:
        if self.store is not None:
            saved = self.store.add_version(self.site, version)
            self._revision = self.store.revision(self.site)
            self._versions = self.store.load(self.site)
            return saved
        in_force: list[RuleVersion] = []  # kept in memory as a store keeps them
        self._versions = with_version(self.site, self._versions, version, in_force)
        return in_force[0]

    def records(self, page: Page, kind: str = LISTING_KIND) -> list[Record]:
        """The records (title, link) of a listing page; empty without repeating rules. A page
        listed before whose rules find nothing now is re-induced from its earlier titles."""
        version = self.current(kind)
        found = self._records(version, page)
        previous = self._previous.get(page.url or "")
        if not found and previous is not None and version is not None and not version.edited:
            rule = reinduce_listing(page, previous.body.splitlines())
            if rule is not None:
                new = RuleVersion(self.site, kind, 0, source="reinduced", listings=(rule,))
                found = self._records(self._save(new), page)
        if found and page.url:
            titles = "\n".join(r.title for r in found)
            self.remember(Previous(page.url, "", titles))
        return found

    @staticmethod
    def _records(version: RuleVersion | None, page: Page) -> list[Record]:
        for rule in version.listings if version else ():
            found = records(page, rule)
            if found:
                return found
        return []

    # -- the fast path -------------------------------------------------------------------

    def extract(self, page: Page, kind: str = "article") -> Article | None:
        """Apply the current rules; None when there are none or validation fails (the caller
        re-learns or falls back to single-page extraction). A page extracted before whose
        rules fail is re-induced from its earlier result at once."""
        version = self.current(kind)
        if version is None or not version.bodies:
            return None
        article = self._apply(version, page)
        if article is None and page.url in self._previous and not version.edited:
            new = self._reinduce([page], kind)
            if new is not None:
                article = self._apply(self._save(new), page)
        if article is not None and page.url:
            self.remember(Previous(page.url, article.headline, article.body))
        return article

    def _apply(self, version: RuleVersion, page: Page) -> Article | None:
        applied = apply_version(version, page)
        if applied is None:
            self.last_verdict = Verdict(False, "body region not found")
            return None
        body = applied.body(page)
        if not self.validate(version.bodies[applied.rule_index], body, page.url):
            return None
        return _article(page, applied, body)

    def validate(self, rule: BodyRule, body: str, url: str | None) -> bool:
        """Validate one application (size, and uniqueness among recent bodies); the verdict
        is kept in ``last_verdict``."""
        digest = hashlib.blake2b(body.encode(), digest_size=16).hexdigest()
        owner = self._bodies.setdefault(digest, url or digest)
        self._bodies.move_to_end(digest)
        if len(self._bodies) > MAX_RECENT_BODIES_DEFAULT:
            self._bodies.popitem(last=False)
        seen = owner != (url or digest)
        self.last_verdict = validate_body(rule, len(body), seen, self.config.validate)
        return self.last_verdict.ok

    def extract_light(self, page: LightPage, kind: str = "article") -> Article | None:
        """The fast path without the full page model (:mod:`newsextract.templates.fastpath`).
        None when there are no rules, the light page gives no answer or validation fails:
        the caller then parses the full page model and calls :meth:`extract`, which
        re-induces the rules if need be."""
        version = self.current(kind)
        if version is None or not version.bodies:
            return None
        self.last_verdict = Verdict(False, "no body region the light page can read")
        article = light_article(version, page, self.validate)  # validation sets the verdict
        if article is not None and page.url:
            self.remember(Previous(page.url, article.headline, article.body))
        return article

    def extract_raw(
        self,
        body: bytes | str,
        url: str | None,
        content_type: str | None = None,
        kind: str = "article",
    ) -> Article | None:
        """:meth:`extract_light` from a page's bytes (None for a body that is not HTML)."""
        if not self.has_rules(kind):
            return None
        try:
            page = light_page(body, url, content_type)
        except NewsExtractError:
            return None  # the full path says why
        return self.extract_light(page, kind)

    def remember(self, previous: Previous, save: bool = True) -> None:
        """Keep an earlier result (bounded) for re-induction after a redesign; the sample is
        saved beside the rules now and then, so that a later crawl can re-induce too."""
        self._previous[previous.url] = previous
        self._previous.move_to_end(previous.url)
        while len(self._previous) > MAX_PREVIOUS_DEFAULT:
            self._previous.popitem(last=False)
        self._unsaved += save
        if self._unsaved >= SAVE_HISTORY_EVERY_DEFAULT:
            self.save_history()

    def save_history(self) -> None:
        """Write the sample of earlier results beside the rules (a few lines of each body)."""
        self._unsaved = 0
        if self.store is None:
            return
        recent = list(self._previous.values())[-MAX_SAVED_PREVIOUS_DEFAULT:]
        self.store.save_history(self.site, [_previous_record(p) for p in recent])


def keep_other_templates(
    version: RuleVersion, current: RuleVersion | None, pages: Sequence[Page]
) -> RuleVersion:
    """The new version, followed by the current version's body rules for templates these pages
    do not use (an archive crawl meets a site's 2005 pages again after its 2017 ones): one
    region per template, most recent first, at most ``MAX_BODY_RULES_DEFAULT``."""
    if current is None:
        return version
    known = {(b.pivot, b.path) for b in version.bodies}
    other = tuple(
        b
        for b in current.bodies
        if (b.pivot, b.path) not in known and all(find_region(p, b) is None for p in pages)
    )
    bodies = (version.bodies + other)[:MAX_BODY_RULES_DEFAULT]
    fields = version.fields + tuple(f for f in current.fields if f not in version.fields)
    return replace(version, bodies=bodies, fields=fields)


@lru_cache(maxsize=HISTORY_RECORDS_KEPT_DEFAULT)  # the same dict each save: never changed
def _previous_record(previous: Previous) -> dict[str, str]:
    lines = previous.body.splitlines()[:SAVED_BODY_LINES_DEFAULT]
    return {"url": previous.url, "headline": previous.headline, "body": "\n".join(lines)}


def _previous_from(record: dict[str, str]) -> Previous:
    return Previous(
        str(record.get("url", "")), str(record.get("headline", "")), str(record.get("body", ""))
    )


def _article(page: Page, applied: Applied, body: str) -> Article:
    version, number, fields = applied.version, applied.rule_index, applied.fields
    return rule_article(page.url, page.structured, version, number, fields, body, applied.kept)

"""The Python API for a whole site: :class:`Site` learns a site's rules from its pages and
reads pages with them, as a crawl and ``newsextract batch --mode site`` / ``--mode rules`` do.

The rules are those of the template stage (:class:`~newsextract.templates.site.SiteTemplates`):
XML a person can read and edit, one file a site in a rules folder, new versions added when the
site's layout changes. A :class:`Site` made with a folder reads the rules saved there and saves
there what it learns; without one it keeps them in memory until :meth:`Site.save`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from newsextract.article import (
    Article,
    Html,
    NoArticleError,
    Outcome,
    Page,
    answer_outcome,
    article_of,
    page_outcome,
    read_page,
)
from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.outcome import PageOutcome
from newsextract.templates.rulefiles import site_file
from newsextract.templates.site import SiteTemplates
from newsextract.templates.sitemode import site_outcomes
from newsextract.templates.store import RuleStore, parse_rules, render

#: A page handed to a site: its URL and its HTML (bytes as fetched, or text).
SitePage = tuple[str, Html]
Folder = str | os.PathLike[str]


class Site:
    """One news site's rules: learned from its pages, applied to them, saved to a folder.

    Not thread-safe: give each thread (or process) its own :class:`Site`. A site pickles as
    its name, folder and rules, so a process pool can take one.
    """

    def __init__(self, name: str, rules_dir: Folder | None = None) -> None:
        """``name``: the site (``example.org``), which names its rule file and fills the
        records' ``site``; ``rules_dir``: the folder its rules are read from and saved to."""
        self.name = name
        self.rules_dir = Path(rules_dir) if rules_dir is not None else None
        self._templates = SiteTemplates(name, self.rules_dir)

    @classmethod
    def load(cls, rules_dir: Folder, name: str) -> Site:
        """The site with the rules saved in ``rules_dir`` (none yet is no error)."""
        return cls(name, rules_dir)

    @property
    def has_rules(self) -> bool:
        return self._templates.has_rules()

    @property
    def rule_version(self) -> str:
        """The label of the rules in force (``""`` without rules)."""
        return self._templates.rule_version()

    def learn(self, pages: Iterable[SitePage]) -> bool:
        """Learn the rules from article pages of one layout (three or more), and save them
        in the folder if the site has one; True when the site has rules."""
        parsed = [page for _, page, _ in self._parsed(pages) if page is not None]
        self._templates.learn(parsed)
        return self.has_rules

    def extract(
        self, html: Html, url: str | None = None, *, language: str | None = None
    ) -> Article | None:
        """One page's article read as a later crawl reads it: by the site's rules where they
        give a validated answer, else by single-page extraction; None without main text."""
        return self.extract_outcome(html, url, language=language).article

    def extract_outcome(
        self, html: Html, url: str | None = None, *, language: str | None = None
    ) -> Outcome:
        """:meth:`extract` with the reason when there is no article."""
        answer = self._templates.extract_raw(html, url) if html.strip() else None
        if answer is not None:
            return answer_outcome(answer, url, self.name, language)
        try:
            page = read_page(html, url)
        except NoArticleError as error:
            return Outcome(None, str(error), error.stage)
        answer = self._templates.extract(page)
        if answer is not None:
            return answer_outcome(answer, url, self.name, language)
        return page_outcome(page, url, self.name, language)

    def extract_all(
        self, pages: Iterable[SitePage], *, learn: bool = True, language: str | None = None
    ) -> list[Outcome]:
        """Every page's outcome, in order, as ``newsextract batch --mode site`` gives it: the
        rules learned from these pages (when ``learn``, and kept), each page's answer checked
        against the site's other pages and narrowed by its single-page answer."""
        parsed = self._parsed(pages, language)
        good = [(entry, page) for entry, page, _ in parsed if page is not None]
        read = iter(site_outcomes(good, self._templates, learn=learn))
        return [
            failure if failure is not None else self._outcome(next(read), language)
            for _, _, failure in parsed
        ]

    def _parsed(
        self, pages: Iterable[SitePage], language: str | None = None
    ) -> list[tuple[ManifestEntry, Page | None, Outcome | None]]:
        """Each page's entry (as a batch's), and its page model or why it has none."""
        parsed: list[tuple[ManifestEntry, Page | None, Outcome | None]] = []
        for number, (url, html) in enumerate(pages):
            entry = ManifestEntry(str(number), url, Path(), None, language or "", {})
            try:
                parsed.append((entry, read_page(html, url), None))
            except NoArticleError as error:
                parsed.append((entry, None, Outcome(None, str(error), error.stage)))
        return parsed

    def _outcome(self, outcome: PageOutcome, language: str | None) -> Outcome:
        url = outcome.entry.url
        if outcome.error:
            return Outcome(None, outcome.error, "extraction")
        if not outcome.body.strip():
            return answer_outcome(None, url)
        return Outcome(article_of(outcome.answer(), url, self.name, language))

    def save(self, rules_dir: Folder | None = None) -> Path:
        """Write the rules to ``rules_dir`` (default: the site's own folder); the rule file's
        path. A later ``Site(name, rules_dir)``, crawl or ``batch --mode rules`` reads them."""
        folder = Path(rules_dir) if rules_dir is not None else self.rules_dir
        if folder is None:
            raise ValueError(f"site {self.name}: no folder to save its rules in")
        versions = self._templates.all_versions()
        RuleStore(folder).update(self.name, lambda _: list(versions))
        return site_file(folder, self.name)

    def __getstate__(self) -> dict[str, Any]:
        rules = None
        if self.rules_dir is None and self.has_rules:
            rules = render(self.name, self._templates.all_versions())
        return {"name": self.name, "rules_dir": self.rules_dir, "rules": rules}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.name = state["name"]
        self.rules_dir = state["rules_dir"]
        self._templates = SiteTemplates(self.name, self.rules_dir)
        if state["rules"] is not None:
            versions = parse_rules(state["rules"], "pickled rules", self.name)
            self._templates = SiteTemplates.from_versions(self.name, versions)

    def __repr__(self) -> str:
        return f"Site({self.name!r}, rules={self.rule_version or None!r})"

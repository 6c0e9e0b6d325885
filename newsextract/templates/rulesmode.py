"""Rules mode for the batch command: stored rules applied as a later crawl applies them.

Pages sharing a group value form a site; nothing is learned. Each page of a site with stored
rules is read by them on a light page (:mod:`newsextract.templates.fastpath`); a page they
give no validated answer on gets the full page model, the rules on it, then single mode, as
in a crawl. Pages of sites without rules get single mode. Unlike site mode, the single-page
answer is not computed for pages the rules answer, so it does not narrow them either: this is
the crawl's fast path, measured.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.outcome import PageOutcome
from newsextract.extraction import extract_article, parse_page
from newsextract.templates.site import SiteTemplates

Progress = Callable[[int], None]


def extract_rules_mode(
    entries: Sequence[ManifestEntry],
    *,
    group_by: str = "domain",
    rules_dir: Path | None = None,
    progress: Progress | None = None,
) -> list[PageOutcome]:
    """The outcome of every entry, in manifest order."""
    sites: dict[str, SiteTemplates | None] = {}
    outcomes = []
    for number, entry in enumerate(entries, 1):
        key = entry.group_key(group_by)
        if key not in sites:
            sites[key] = _stored(key, rules_dir)
        outcomes.append(rules_outcome(entry, sites[key]))
        if progress:
            progress(number)
    return outcomes


def _stored(site: str, rules_dir: Path | None) -> SiteTemplates | None:
    if rules_dir is None or site.startswith("_single:"):
        return None
    templates = SiteTemplates(site, rules_dir)
    return templates if templates.has_rules() else None


def rules_outcome(entry: ManifestEntry, templates: SiteTemplates | None) -> PageOutcome:
    """One page: the light page's answer, else the full page model's (rules, then single)."""
    try:
        body = entry.read_html()
    except (OSError, EOFError) as error:  # EOFError: a truncated .gz
        return PageOutcome(entry, "", "failed", 0.0, f"read: {error}")
    started = time.perf_counter()
    try:
        article = templates.extract_raw(body, entry.url) if templates is not None else None
        if article is None:
            page = parse_page(body, entry.url, entry.content_type or None)
            article = templates.extract(page) if templates is not None else None
            article = article if article is not None else extract_article(page)
    except Exception as error:  # one page's failure, whatever it is, must not end a long run
        seconds = time.perf_counter() - started
        return PageOutcome(entry, "", "failed", seconds, f"{type(error).__name__}: {error}")
    seconds = time.perf_counter() - started
    return PageOutcome(
        entry, article.body, article.method, seconds, headline=article.headline, article=article
    )

"""One page's annotated view written to a file, with the rules it is read with.

What ``newsextract show`` and the demo write (:mod:`newsextract.views.page_view` makes it).
Rules are only read: nothing is written to a rules directory.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from newsextract.exceptions import NewsExtractError
from newsextract.extraction.pagemodel.page import parse_page
from newsextract.records import article_record
from newsextract.templates.rulefiles import site_file
from newsextract.templates.site import SiteTemplates
from newsextract.templates.store import read_rule_file
from newsextract.views.page_view import analyse_page, body_kind, render_view


@dataclass(frozen=True)
class ViewSummary:
    blocks: int
    kept: int
    method: str
    seconds: float  # analysis and rendering, the page's reading aside


def load_templates(
    rules: Path | None,
    rules_dir: Path | None,
    site: str | None,
    url: str | None,
    kind: str | None = None,
) -> tuple[SiteTemplates | None, str]:
    """The rules to apply, read only, and the page kind to apply (``kind``, or
    :func:`~newsextract.views.page_view.body_kind`); NewsExtractError for a missing or bad
    file."""
    if rules is not None:
        versions = read_rule_file(rules)
        name = versions[0].site if versions else rules.name.split(".")[0]
    elif rules_dir is not None:
        name = site or (urlsplit(url).hostname if url else None) or ""
        if not name:
            raise NewsExtractError("--rules-dir needs --site or --url to know the site")
        path = site_file(rules_dir, name)
        if not path.exists():
            raise NewsExtractError(f"no rules of {name} in {rules_dir} ({path.name})")
        versions = read_rule_file(path, name)
    else:
        return None, kind or "article"
    return SiteTemplates.from_versions(name, versions), kind or body_kind(versions)


def write_view(
    body: bytes,
    url: str | None,
    out: Path,
    templates: SiteTemplates | None = None,
    content_type: str | None = None,
    kind: str = "article",
) -> ViewSummary:
    """Parse, extract and write the view of one page."""
    import newsextract.exporters  # noqa: F401  Scrapy's import (a second) is not the view's cost
    import newsextract.pipelines.extraction  # noqa: F401

    with _without_collection():
        html, summary = _view(body, url, templates, content_type, kind)
    out.write_text(html, encoding="utf-8")
    return summary


def _view(
    body: bytes,
    url: str | None,
    templates: SiteTemplates | None,
    content_type: str | None,
    kind: str,
) -> tuple[str, ViewSummary]:
    """The view's HTML and its summary. The page's objects are freed as this returns: the
    collector, back on afterwards, finds nothing new to walk."""
    page = parse_page(body, url, content_type)
    started = time.perf_counter()
    analysis = analyse_page(page, templates, kind)
    record = article_record(analysis.article, url)
    html = render_view(analysis, record)
    seconds = time.perf_counter() - started
    article = analysis.article
    return html, ViewSummary(len(page.blocks), len(analysis.kept), article.method, seconds)


@contextmanager
def _without_collection() -> Iterator[None]:
    """The cyclic garbage collector paused for one page's work. A page of 25,000 blocks is
    some 300,000 objects, hardly one in a cycle, that the collector walked again and again
    as they were made: a tenth of the view's time, to free nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

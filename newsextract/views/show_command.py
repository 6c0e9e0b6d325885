"""Write an annotated view of one saved page: what was kept, what was dropped, and why.

    newsextract show PAGE.html [--url URL] [--rules FILE | --rules-dir DIR] --out view.html

The view (:mod:`newsextract.views.page_view`) is one self-contained HTML file: the page as
its reader sees it, with the body blocks and the dropped ones in two colours, the headline,
date and authors boxed, and a side panel with the record and every block's score. Rules are
only read: nothing is written to a rules directory.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from newsextract.evaluation.extract_command import article_record, read_page_file
from newsextract.evaluation.runner import failure_reason
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.pagemodel.page import parse_page
from newsextract.templates.rulefiles import site_file
from newsextract.templates.site import SiteTemplates
from newsextract.templates.store import read_rule_file
from newsextract.views.page_view import analyse_page, body_kind, render_view

DESCRIPTION = """\
Write an annotated view of a saved page (.html or .html.gz): the page as its reader sees
it, body blocks in green, dropped blocks in red, the headline, date and authors boxed, and a
side panel with the article record, each block's score and a legend. With rules, the rule's
region is outlined and each block says which rule kept or dropped it.

The view is one file that runs none of the page's scripts and loads nothing from elsewhere.

Exit status: 0 the view was written, 2 a file could not be read or written."""

EPILOG = """\
examples:
  newsextract show page.html --out view.html
  newsextract show page.html --url https://example.org/1.html --rules-dir rules --out v.html
  newsextract show page.html.gz --rules example.org.rules.xml --out view.html
"""


@dataclass(frozen=True)
class ViewSummary:
    blocks: int
    kept: int
    method: str
    seconds: float  # analysis and rendering, the page's reading aside


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", type=Path, help="a saved HTML page (.html or .html.gz)")
    parser.add_argument("--url", help="the page's URL, if known (with --rules-dir: names the site)")
    parser.add_argument("--content-type", help="the HTTP Content-Type header, if known")
    rules = parser.add_mutually_exclusive_group()
    rules.add_argument("--rules", type=Path, help="an XML rule file to apply")
    rules.add_argument("--rules-dir", type=Path, help="a rules folder: the site's file is used")
    parser.add_argument(
        "--site", help="the site whose rules --rules-dir holds (default: the URL's host)"
    )
    parser.add_argument(
        "--kind",
        help='the page kind of the rules (default "article", else the first kind with a body rule)',
    )
    parser.add_argument("--out", type=Path, required=True, help="the view to write (.html)")


def run(args: argparse.Namespace) -> int:
    try:
        body = read_page_file(args.page)
        templates, kind = load_templates(args.rules, args.rules_dir, args.site, args.url, args.kind)
    except (OSError, EOFError, zlib.error, NewsExtractError) as error:
        print(f"newsextract show: {error}", file=sys.stderr)
        return 2
    try:
        summary = write_view(body, args.url, args.out, templates, args.content_type, kind)
    except OSError as error:
        print(f"newsextract show: cannot write {args.out}: {error}", file=sys.stderr)
        return 2
    except NewsExtractError as error:
        print(f"newsextract show: {args.page}: {failure_reason(error)}", file=sys.stderr)
        return 2
    print(
        f"newsextract show: {args.out} ({summary.kept} of {summary.blocks} blocks kept, "
        f"method {summary.method or '-'}, {summary.seconds:.2f} s)"
    )
    return 0


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

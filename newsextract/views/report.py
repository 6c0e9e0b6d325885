"""A crawl's report: per site, its rule versions, failures by stage and harvested URLs.

Read from a data directory (``NEWSEXTRACT_DATA_DIR``), never written to:

* ``rules/*.rules.xml``: each version's kind, number, when it was valid, its source and from
  how many pages each body rule was learned (what the rule files store), read with the
  store's bounded, safe reader;
* ``failures/*.jsonl``: failure records counted by stage;
* ``state.sqlite3``, opened read-only: harvested URLs per site.

A crawl's stats are not persisted by the crawl itself, so pages by extraction method come
from an article feed (``extraction.method`` of each record) and the template stage's counts
(validation failures, re-learns) from a crawl log's stats dump, when given.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

from newsextract.exceptions import RuleFileError
from newsextract.templates.rulefiles import RULES_SUFFIX
from newsextract.templates.rules import RuleVersion
from newsextract.templates.store import read_rule_file
from newsextract.views.sanitize import csp_meta

STATE_FILE = "state.sqlite3"
#: Lines of a feed or failures file read at most (a report, not a database).
MAX_RECORDS_DEFAULT = 1_000_000
#: Bytes of a crawl log read from its end, where Scrapy dumps its stats.
MAX_LOG_TAIL_BYTES_DEFAULT = 2_000_000
_STAT = re.compile(r"'(newsextract/[\w/.:-]+)': (\d+)")

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #111; }
table { border-collapse: collapse; margin: 0.3rem 0 1rem; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #eee; }
.note { color: #555; }
"""


@dataclass
class SiteReport:
    site: str
    versions: list[RuleVersion] = field(default_factory=list)
    rule_errors: list[str] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    methods: Counter[str] = field(default_factory=Counter)
    harvested: int | None = None


@dataclass
class CrawlReport:
    data_dir: Path
    sites: dict[str, SiteReport] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)  # from a crawl log's stats dump
    notes: list[str] = field(default_factory=list)

    def site(self, name: str) -> SiteReport:
        return self.sites.setdefault(name, SiteReport(name))


def read_report(
    data_dir: Path,
    articles: Sequence[Path] = (),
    log: Path | None = None,
    rules_dir: Path | None = None,
    failures: Sequence[Path] | None = None,
) -> CrawlReport:
    """What the data directory holds (``rules_dir``, ``failures``: other places than its
    ``rules`` folder and ``failures/*.jsonl``)."""
    report = CrawlReport(data_dir)
    _read_rules(report, rules_dir if rules_dir is not None else data_dir / "rules")
    failure_files = failures if failures is not None else sorted(data_dir.glob("failures/*.jsonl"))
    for path in failure_files:
        for record in _records(path, report):
            stage = str(record.get("stage") or "?")
            report.site(_site_of(record)).failures[stage] += 1
    _read_state(report, data_dir / STATE_FILE)
    for path in articles:
        for record in _records(path, report):
            extraction = record.get("extraction")
            method = extraction.get("method") if isinstance(extraction, dict) else None
            report.site(_site_of(record)).methods[method_family(str(method or "?"))] += 1
    if log is not None:
        report.stats = read_log_stats(log)
    return report


def method_family(method: str) -> str:
    """The method a record names, without its evidence.

    >>> method_family("single:classifier+json-ld"), method_family("rules")
    ('single', 'rules')
    """
    return method.split(":", 1)[0] or "?"


def _read_rules(report: CrawlReport, rules_dir: Path) -> None:
    for path in sorted(rules_dir.glob(f"*{RULES_SUFFIX}")):
        name = path.name.removesuffix(RULES_SUFFIX)
        try:
            versions = read_rule_file(path)
        except RuleFileError as error:
            report.site(name).rule_errors.append(str(error))
            continue
        site = report.site(versions[0].site if versions and versions[0].site else name)
        site.versions.extend(versions)


def _records(path: Path, report: CrawlReport) -> Iterable[dict[str, Any]]:
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            for number, line in enumerate(lines):
                if number >= MAX_RECORDS_DEFAULT:
                    report.notes.append(f"{path.name}: only the first {number:,} lines read")
                    return
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    yield record
    except OSError as error:
        report.notes.append(f"{path.name}: cannot be read: {error.strerror or error}")


def _site_of(record: dict[str, Any]) -> str:
    site = record.get("site")
    if isinstance(site, str) and site:
        return site
    url = record.get("url")
    return (urlsplit(url).hostname or "?") if isinstance(url, str) else "?"


def _read_state(report: CrawlReport, path: Path) -> None:
    if not path.is_file():
        return
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as connection:
            rows = connection.execute("SELECT site, COUNT(*) FROM harvested GROUP BY site")
            for site, count in rows.fetchall():
                report.site(str(site or "?")).harvested = int(count)
    except sqlite3.Error as error:
        report.notes.append(f"{STATE_FILE}: not read: {error}")


def read_log_stats(path: Path) -> dict[str, int]:
    """The ``newsextract/...`` counters of the last stats dump in a crawl log."""
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - MAX_LOG_TAIL_BYTES_DEFAULT))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return {}
    return {name: int(count) for name, count in _STAT.findall(text)}


# -- rendering ------------------------------------------------------------------------------


def render_report(report: CrawlReport) -> str:
    """The report as one HTML document: escaped text, no scripts, nothing loaded."""
    root = etree.Element("html")
    head = etree.SubElement(root, "head")
    head.append(csp_meta())
    etree.SubElement(head, "meta", charset="utf-8")
    etree.SubElement(head, "title").text = "newsextract crawl report"
    etree.SubElement(head, "style").text = _CSS
    body = etree.SubElement(root, "body")
    etree.SubElement(body, "h1").text = "newsextract crawl report"
    etree.SubElement(body, "p", {"class": "note"}).text = f"data: {report.data_dir.name or '.'}"
    if not report.sites:
        etree.SubElement(body, "p").text = "No rules, failures or harvested URLs found."
    for name in sorted(report.sites):
        _render_site(body, report.sites[name])
    if report.stats:
        etree.SubElement(body, "h2").text = "Crawl stats (from the crawl log)"
        _table(body, ("counter", "value"), sorted(report.stats.items()))
    else:
        etree.SubElement(body, "p", {"class": "note"}).text = (
            "Validation failures and re-learns: not recorded (a crawl's stats are not "
            "persisted; give its log with --log)."
        )
    for note in report.notes:
        etree.SubElement(body, "p", {"class": "note"}).text = note
    html: str = lxml.html.tostring(root, encoding="unicode", method="html")
    return "<!DOCTYPE html>\n" + html


def _render_site(body: etree._Element, site: SiteReport) -> None:
    section = etree.SubElement(body, "section", {"class": "site"})
    etree.SubElement(section, "h2").text = site.site
    if site.harvested is not None:
        etree.SubElement(section, "p").text = f"harvested URLs: {site.harvested:,}"
    etree.SubElement(section, "h3").text = "Rule versions"
    if site.versions:
        rows = [
            (
                version.kind,
                f"v{version.number}",
                version.valid_from or "-",
                version.valid_until or "current",
                version.source + (" (edited)" if version.edited else ""),
                ", ".join(str(body.pages) for body in version.bodies) or "-",
            )
            for version in site.versions
        ]
        header = ("kind", "version", "valid from", "valid until", "source", "pages (per body rule)")
        _table(section, header, rows)
    else:
        etree.SubElement(section, "p", {"class": "note"}).text = "no rules"
    for error in site.rule_errors:
        etree.SubElement(section, "p", {"class": "note"}).text = f"rule file not read: {error}"
    etree.SubElement(section, "h3").text = "Failures by stage"
    if site.failures:
        _table(section, ("stage", "records"), sorted(site.failures.items()))
    else:
        etree.SubElement(section, "p", {"class": "note"}).text = "none"
    if site.methods:
        etree.SubElement(section, "h3").text = "Articles by extraction method"
        _table(section, ("method", "articles"), sorted(site.methods.items()))


def _table(parent: etree._Element, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    table = etree.SubElement(parent, "table")
    line = etree.SubElement(table, "tr")
    for name in header:
        etree.SubElement(line, "th").text = name
    for row in rows:
        line = etree.SubElement(table, "tr")
        for value in row:
            etree.SubElement(line, "td").text = str(value)

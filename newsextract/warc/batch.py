"""``newsextract batch --warc FILE --out OUT.jsonl``: the article records of a web archive.

Every HTML response record becomes a page (its HTTP Content-Type gives the charset) and goes
through the modes of ``batch``: single reads each page alone, as it is read; site and rules
hold the archive's pages in memory, grouped by host (``domain``), and learn or apply each
site's template as a crawl does. Records are built by the crawl's record builder, with the
record's ``warcRecordId`` added. A record that gives no article (not HTML, no main text) is a
line of ``<OUT stem>.failures.jsonl``: url, warcRecordId, stage, reason. An archive cut short
or corrupt keeps the records before the damage, which is reported in one line.

Exit status: 0 articles were written (whatever failed is in the failures file), 1 none,
2 the archive or the output cannot be opened.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from newsextract.evaluation import runner
from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.outcome import PageOutcome
from newsextract.warc.reader import ArchivedResponse, WarcReader

FAILURES_SUFFIX = ".failures.jsonl"


@dataclass(frozen=True)
class ArchivedEntry(ManifestEntry):
    """A page of a web archive: its bytes are held, not read from a file."""

    body: bytes = field(default=b"", repr=False, compare=False)
    record_id: str = ""
    fetched_at: str = ""

    def read_html(self) -> bytes:
        return self.body


def archived_entry(response: ArchivedResponse, number: int) -> ArchivedEntry:
    host = urlsplit(response.url).hostname or ""
    return ArchivedEntry(
        id=str(number),
        url=response.url or None,
        html_path=Path(response.url or response.record_id),
        text_path=None,
        lang="",
        fields={"domain": host} if host else {},
        origin=f"offset {response.offset}",
        content_type=response.content_type,
        body=response.body,
        record_id=response.record_id,
        fetched_at=response.date,
    )


def failures_path(out: Path) -> Path:
    """``out/articles.jsonl`` -> ``out/articles.failures.jsonl``."""
    return out.with_name(out.name.split(".")[0] + FAILURES_SUFFIX)


@dataclass
class _Output:
    records: Any  # newsextract.exporters.RecordFile
    failures: TextIO
    articles: int = 0
    failed: int = 0

    def fail(self, url: str, record_id: str, stage: str, reason: str) -> None:
        self.failed += 1
        line = {"url": url, "warcRecordId": record_id, "stage": stage, "reason": reason}
        self.failures.write(json.dumps(line, ensure_ascii=False) + "\n")
        self.failures.flush()

    def write(self, outcome: PageOutcome) -> None:
        entry = outcome.entry
        assert isinstance(entry, ArchivedEntry)
        if outcome.error or not outcome.body.strip():
            reason = outcome.error or "no main text found"
            self.fail(entry.url or "", entry.record_id, "extraction", reason)
            return
        self.records.write(article_record(outcome, entry))
        self.articles += 1


def article_record(outcome: PageOutcome, entry: ArchivedEntry) -> dict[str, Any]:
    """The crawl's record of the page, with the archive record's id."""
    from newsextract.evaluation.extract_command import saved_page_item
    from newsextract.exporters import record_dict

    site = str(entry.fields.get("domain") or "")
    item = saved_page_item(outcome.answer(), entry.url, site, fetched_at=entry.fetched_at)
    return {**record_dict(item), "warcRecordId": entry.record_id}


def _pages(reader: WarcReader, output: _Output) -> Iterator[ArchivedEntry]:
    """The HTML pages of the archive; every other response is a failure record."""
    for number, response in enumerate(reader, 1):
        if not response.is_html:
            what = response.content_type or "no Content-Type"
            output.fail(response.url, response.record_id, "content-type", f"not HTML: {what}")
            continue
        yield archived_entry(response, number)


def _outcomes(entries: Iterator[ArchivedEntry], args: argparse.Namespace) -> Iterable[PageOutcome]:
    if args.mode == "single":
        method = runner.load_method("combined")
        return (runner.extract_one(entry, method, "combined") for entry in entries)
    from newsextract.evaluation.batch_command import page_outcomes

    return page_outcomes(list(entries), args.mode, args.group_by, args.rules_dir)


def run(args: argparse.Namespace) -> int:
    from newsextract.evaluation.batch_command import BatchError, SiteModeUnavailableError
    from newsextract.exporters import RecordFile

    archive, out = Path(args.warc), Path(args.out)
    if not archive.is_file():
        return _say(f"--warc {archive}: no such file", 2)
    if out.is_dir():
        return _say(f"--out {out}: with --warc, the records file (e.g. out.jsonl)", 2)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        failures = failures_path(out).open("w", encoding="utf-8")
        records = RecordFile(out, args.format)
    except OSError as error:
        return _say(f"--out {out}: {error.strerror or error}", 2)
    output, reader = _Output(records, failures), WarcReader(archive)
    try:
        for outcome in _outcomes(_pages(reader, output), args):
            output.write(outcome)
        if reader.damage:
            output.fail("", "", "archive", reader.damage)
            _say(f"{archive}: damaged, {reader.damage}; the records before it were read", 0)
    except (BatchError, SiteModeUnavailableError) as error:
        return _say(str(error), 2)
    finally:
        records.close()
        failures.close()
    print(f"{output.articles} articles, {output.failed} failures -> {out}", file=sys.stderr)
    return 0 if output.articles else 1


def _say(message: str, status: int) -> int:
    print(f"newsextract batch: {message}", file=sys.stderr)
    return status

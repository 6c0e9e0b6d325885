"""``newsextract batch --warc FILE --out OUT.jsonl``: the article records of a web archive.

Every response record that the crawl read as an article page becomes a page (its HTTP
Content-Type gives the charset): in an archive a newsextract crawl wrote, the records its spider
asked for as articles, with a 2xx status and an HTML body; in another crawler's archive, every
HTML response (:func:`newsextract.warc.replay.not_a_page`). The pages go through the modes of
``batch``: single reads each page alone, as it is read; site replays the crawl's item pipeline
on them in archive order, which is the crawl's (:mod:`newsextract.warc.replay`: the template
stage learns each site's rules as the pages come, with the crawl's settings, and passes the
others to single-page extraction), so a crawl's archive gives the crawl's bodies again; rules
holds the pages in memory, grouped by site (``domain``), and applies the rules saved in
``--rules-dir``. Records are built by the crawl's record builder, with the record's
``warcRecordId`` added. A record that gives no article (not HTML, an HTTP error, no main text)
is a line of ``<OUT stem>.failures.jsonl``: url, warcRecordId, stage, reason; the crawl's
listing pages, sitemaps and feeds are only counted. An archive cut short or corrupt keeps the
records before the damage, which is reported in one line.

Exit status: 0 articles were written (whatever failed is in the failures file), 1 none,
2 the archive or the output cannot be opened.
"""

from __future__ import annotations

import argparse
import itertools
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
from newsextract.exporters import RecordFile, record_dict
from newsextract.warc.reader import ArchivedResponse, WarcReader
from newsextract.warc.replay import CrawlReplay, Replayed, not_a_page, recorded_settings

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
    site = response.site or urlsplit(response.url).hostname or ""  # the crawl's, or the host
    return ArchivedEntry(
        id=str(number),
        url=response.url or None,
        html_path=Path(response.url or response.record_id),
        text_path=None,
        lang=response.language,
        fields={"domain": site} if site else {},
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
    records: RecordFile
    failures: TextIO
    articles: int = 0
    failed: int = 0
    skipped: int = 0  # the crawl's other pages: listings, sitemaps, feeds

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

    def write_replayed(self, replayed: Replayed) -> None:
        response = replayed.response
        if replayed.item is None:
            self.fail(response.url, response.record_id, replayed.stage, replayed.reason)
            return
        self.records.write({**record_dict(replayed.item), "warcRecordId": response.record_id})
        self.articles += 1


def article_record(outcome: PageOutcome, entry: ArchivedEntry) -> dict[str, Any]:
    """The crawl's record of the page, with the archive record's id."""
    from newsextract.evaluation.extract_command import saved_page_item

    site = str(entry.fields.get("domain") or "")
    item = saved_page_item(outcome.answer(), entry.url, site, fetched_at=entry.fetched_at)
    return {**record_dict(item), "warcRecordId": entry.record_id}


@dataclass
class ArchiveFiles:
    """The response records of archive files read as one, in the order given (the files a
    crawl rotated, in their serial order); :attr:`damages` names each damaged file."""

    paths: list[Path]
    info: dict[str, str] = field(default_factory=dict)  # the first file's value of a name wins
    damages: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[ArchivedResponse]:
        for path in self.paths:
            reader = WarcReader(path, info=self.info)
            yield from reader
            if reader.damage:
                self.damages.append(f"{path}: damaged, {reader.damage}")


def _pages(reader: ArchiveFiles, output: _Output) -> Iterator[tuple[int, ArchivedResponse]]:
    """The article pages of the archive, numbered; every other response that is not one of
    the crawl's listing pages, sitemaps or feeds is a failure record."""
    for number, response in enumerate(reader, 1):
        why = not_a_page(response)
        if why is None:
            yield number, response
        elif why[0]:
            output.fail(response.url, response.record_id, *why)
        else:
            output.skipped += 1


def _outcomes(
    pages: Iterator[tuple[int, ArchivedResponse]], args: argparse.Namespace
) -> Iterable[PageOutcome]:
    entries = (archived_entry(response, number) for number, response in pages)
    if args.mode == "single":
        method = runner.load_method("combined")
        return (runner.extract_one(entry, method, "combined") for entry in entries)
    from newsextract.evaluation.batch_command import page_outcomes

    return page_outcomes(list(entries), args.mode, args.group_by, args.rules_dir)


def _replayed(
    pages: Iterator[tuple[int, ArchivedResponse]], reader: ArchiveFiles, rules_dir: Path | None
) -> Iterator[Replayed]:
    """Site mode: the crawl's item pipeline over the pages, with the settings the archive
    recorded (its warcinfo record, read before the first page)."""
    responses = (response for _, response in pages)
    first = next(responses, None)
    if first is None:
        return
    replay = CrawlReplay(recorded_settings(reader.info), rules_dir)
    yield from replay.run(itertools.chain([first], responses))


def run(args: argparse.Namespace) -> int:
    from newsextract.evaluation.batch_command import BatchError

    archives, out = [Path(path) for path in args.warc], Path(args.out)
    for archive in archives:
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
    output, reader = _Output(records, failures), ArchiveFiles(archives)
    try:
        if args.mode == "site":
            for replayed in _replayed(_pages(reader, output), reader, args.rules_dir):
                output.write_replayed(replayed)
        else:
            for outcome in _outcomes(_pages(reader, output), args):
                output.write(outcome)
        for damage in reader.damages:
            output.fail("", "", "archive", damage)
            _say(f"{damage}; the records before it were read", 0)
    except BatchError as error:
        return _say(str(error), 2)
    finally:
        records.close()
        failures.close()
    other = f", {output.skipped} listings, sitemaps or feeds left out" if output.skipped else ""
    print(f"{output.articles} articles, {output.failed} failures{other} -> {out}", file=sys.stderr)
    return 0 if output.articles else 1


def _say(message: str, status: int) -> int:
    print(f"newsextract batch: {message}", file=sys.stderr)
    return status

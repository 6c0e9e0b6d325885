"""The article records of a web archive, as ``newsextract batch --warc`` writes them.

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
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from newsextract.batch.pages import single_units, units
from newsextract.batch.workers import WorkerPool
from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.outcome import PageOutcome
from newsextract.exporters import record_dict
from newsextract.recordfile import RecordFile
from newsextract.records import saved_page_item
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
class ArchiveOutput:
    records: RecordFile
    failures: TextIO
    articles: int = 0
    failed: int = 0
    skipped: int = 0  # the crawl's other pages: listings, sitemaps, feeds
    #: The context each record is written in: Ctrl-C waits there, so no line is cut short.
    uninterrupted: Callable[[], AbstractContextManager[object]] = nullcontext

    def fail(self, url: str, record_id: str, stage: str, reason: str) -> None:
        line = {"url": url, "warcRecordId": record_id, "stage": stage, "reason": reason}
        with self.uninterrupted():
            self.failures.write(json.dumps(line, ensure_ascii=False) + "\n")
            self.failures.flush()
            self.failed += 1

    def write(self, outcome: PageOutcome) -> None:
        entry = outcome.entry
        assert isinstance(entry, ArchivedEntry)
        if outcome.error or not outcome.body.strip():
            reason = outcome.error or "no main text found"
            self.fail(entry.url or "", entry.record_id, "extraction", reason)
            return
        self._write(article_record(outcome, entry))

    def write_replayed(self, replayed: Replayed) -> None:
        response = replayed.response
        if replayed.item is None:
            self.fail(response.url, response.record_id, replayed.stage, replayed.reason)
            return
        self._write({**record_dict(replayed.item), "warcRecordId": response.record_id})

    def _write(self, record: dict[str, Any]) -> None:
        with self.uninterrupted():
            self.records.write(record)
            self.articles += 1


def article_record(outcome: PageOutcome, entry: ArchivedEntry) -> dict[str, Any]:
    """The crawl's record of the page, with the archive record's id."""
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


def article_pages(
    reader: ArchiveFiles, output: ArchiveOutput
) -> Iterator[tuple[int, ArchivedResponse]]:
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


def archive_outcomes(
    pages: Iterator[tuple[int, ArchivedResponse]],
    mode: str,
    group_by: str,
    rules_dir: Path | None,
    pool: WorkerPool,
) -> Iterable[PageOutcome]:
    """Single or rules mode: the outcomes of the pages, in archive order. Single mode reads
    the archive as it goes; rules mode holds its pages, to read each site's together."""
    entries = (archived_entry(response, number) for number, response in pages)
    if mode == "single":
        return pool.outcomes(single_units(entries))
    return pool.outcomes(units(list(entries), mode, group_by, rules_dir))


def replayed(
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

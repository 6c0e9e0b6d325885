"""The files of a batch run of saved pages, written page by page.

In the ``--out`` folder: ``<id>.txt``, each page's main text (empty if it gave none);
``_articles.jsonl`` (or ``.xml``), the article records (:mod:`newsextract.records`: site and
rules modes give the body and headline only); ``_errors.jsonl``, a line for each page that
gave no article, with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from newsextract.batch import BatchError
from newsextract.evaluation.conventions import with_headline
from newsextract.evaluation.outcome import PageOutcome
from newsextract.records import saved_page_item

if TYPE_CHECKING:
    from newsextract.recordfile import RecordFile

ERRORS_FILE = "_errors.jsonl"
RECORDS_FILE = "_articles"  # + ".jsonl" or ".xml"
NO_MAIN_TEXT = "no main text found"


@dataclass
class BatchOutput:
    """The files of a run, written page by page and flushed: a run stopped at any point
    leaves every finished page's text, record and error line on disk."""

    folder: Path
    records_path: Path
    record_format: str
    errors: TextIO
    headline_first: bool = False
    pages: int = 0
    failed: int = 0
    _records: RecordFile | None = None

    @classmethod
    def open(cls, folder: Path, record_format: str, headline_first: bool) -> BatchOutput:
        """Create the folder and its files; raise :class:`BatchError` if that fails."""
        if folder.exists() and not folder.is_dir():
            raise BatchError(f"--out {folder}: not a folder")
        records_path = folder / f"{RECORDS_FILE}.{record_format}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            errors = (folder / ERRORS_FILE).open("w", encoding="utf-8")
        except OSError as error:
            raise BatchError(f"--out {folder}: {error.strerror or error}") from None
        try:
            records_path.open("wb").close()  # writable: the exporter opens it when first used
        except OSError as error:
            errors.close()
            raise BatchError(f"--out {folder}: {error.strerror or error}") from None
        return cls(folder, records_path, record_format, errors, headline_first)

    @property
    def records(self) -> RecordFile:
        """The records' file, made at its first use (XML imports Scrapy, half a second,
        which the workers need not wait for)."""
        if self._records is None:
            from newsextract.recordfile import RecordFile

            self._records = RecordFile(self.records_path, self.record_format)
        return self._records

    def write(self, outcome: PageOutcome) -> None:
        """The page's text file, and its record or its error line."""
        body = "" if outcome.error else outcome.body.strip("\n")
        text = with_headline(body, outcome.headline) if self.headline_first else body
        path = self.folder / f"{_safe_name(outcome.entry.id)}.txt"
        path.write_text(text + "\n" if text else "", encoding="utf-8")
        self.pages += 1
        error = outcome.error or ("" if body.strip() else NO_MAIN_TEXT)
        if error:
            self.failed += 1
            self.errors.write(json.dumps(_error_record(outcome, error), ensure_ascii=False) + "\n")
            self.errors.flush()
            return
        self.records.write(_record(outcome))

    def close(self) -> None:
        self.records.close()  # a file of no record is still a whole document
        self.errors.close()


def _record(outcome: PageOutcome) -> Any:
    """The page's article record. Site and rules modes give the body and headline only:
    their other fields stay empty."""
    entry = outcome.entry
    site = entry.fields.get("site")
    return saved_page_item(outcome.answer(), entry.url, str(site) if site else None, entry.lang)


def _error_record(outcome: PageOutcome, error: str) -> dict[str, Any]:
    return {
        "id": outcome.entry.id,
        "url": outcome.entry.url,
        "html": str(outcome.entry.html_path),
        "method": outcome.method,
        "error": error,
    }


def _safe_name(page_id: str) -> str:
    """A page id as a file name: no separators, no leading dot."""
    name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in page_id)
    return name.lstrip(".") or "_"

"""Records written outside a crawl (``newsextract batch``), byte for byte as a crawl's feed
writes them (``-O out.jsonl``, ``-O out.xml``), each on disk as soon as it is written.

JSON lines are written here, without Scrapy (a second to import, longer than a small batch);
XML through the crawl's own exporter (:class:`newsextract.exporters.SafeXmlItemExporter`),
Scrapy imported only then.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from newsextract.items import ArticleItem, record_fields

#: The formats of ``newsextract batch --format``.
RECORD_FORMATS = ("jsonl", "xml")
RECORD_ENCODING = "utf-8"  # FEED_EXPORT_ENCODING


class RecordFile:
    """A file of records in one of :data:`RECORD_FORMATS`; :meth:`close` ends the document
    (the XML root element)."""

    def __init__(self, path: Path, record_format: str) -> None:
        if record_format not in RECORD_FORMATS:
            raise ValueError(f"record format {record_format!r}, not one of {RECORD_FORMATS}")
        self.path = path
        self._file = path.open("wb", buffering=0)
        self._xml: Any = None
        if record_format == "xml":
            from newsextract.exporters import SafeXmlItemExporter

            self._xml = SafeXmlItemExporter(self._file, encoding=RECORD_ENCODING)  # type: ignore[arg-type]
            self._xml.start_exporting()

    def write(self, item: Any) -> None:
        if self._xml is not None:
            self._xml.export_item(item)
            return
        # What Scrapy's JsonLinesItemExporter writes: each field serialized, json's own
        # separators, characters as they are (ensure_ascii off: the feeds' encoding is set).
        record = record_fields(item) if isinstance(item, ArticleItem) else dict(item)
        self._file.write((json.dumps(record, ensure_ascii=False) + "\n").encode(RECORD_ENCODING))

    def close(self) -> None:
        if not self._file.closed:
            if self._xml is not None:
                self._xml.finish_exporting()
            self._file.close()

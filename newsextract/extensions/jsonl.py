"""An append-only JSON-lines file that survives a killed crawl: one flushed line a record."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from scrapy import Spider


def utc_now() -> str:
    """The current time as the records write it: ISO 8601, UTC, whole seconds."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def resolve_path(template: str, spider_name: str) -> Path:
    """Fill ``%(name)s`` and ``%(time)s`` as Scrapy's FEEDS URIs do.

    >>> resolve_path("out/%(name)s-failures.jsonl", "asahi").as_posix()
    'out/asahi-failures.jsonl'
    """
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S")
    return Path(template % {"name": spider_name, "time": stamp}).expanduser()


class JsonLinesFile:
    """Appends records to a file; a pause-and-resume crawl keeps adding to the same file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")

    def write(self, record: Any) -> None:
        if self._file is None:
            self.open()
        assert self._file is not None
        is_record = dataclasses.is_dataclass(record) and not isinstance(record, type)
        data = dataclasses.asdict(record) if is_record else record
        self._file.write(json.dumps(data, ensure_ascii=False) + "\n")
        self._file.flush()  # a SIGKILLed crawl must not lose the records it reported

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class SpiderRecordLog:
    """Base of the record logs: a JSON-lines file per spider, opened from a path template
    (``None``: count only, write nothing)."""

    def __init__(self, path_template: str | None = None) -> None:
        self.path_template = path_template
        self.file: JsonLinesFile | None = None

    def spider_opened(self, spider: Spider) -> None:
        if self.path_template:
            self.file = JsonLinesFile(resolve_path(self.path_template, spider.name))
            self.file.open()

    def spider_closed(self, spider: Spider) -> None:
        if self.file is not None:
            self.file.close()

    def write(self, record: Any) -> None:
        if self.file is not None:
            self.file.write(record)

"""An append-only JSON-lines file that survives a killed crawl: one flushed line a record.

Its path is a template filled as Scrapy fills its feed URIs: ``%(name)s`` (the spider's
name), ``%(time)s`` (the crawl's start, UTC) and any other attribute of the spider
(``%(site_name)s``); ``%%`` is a literal ``%``. Any other ``%`` is refused before the crawl
starts, with the setting's name: a file that cannot be opened must not leave a crawl
without its records.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, NoReturn

from scrapy import Spider
from scrapy.exceptions import CloseSpider

from newsextract.exceptions import NewsExtractError
from newsextract.extensions.outcome import FATAL_REASON

logger = logging.getLogger(__name__)

#: ``%%`` or a named placeholder with an optional printf conversion; any other ``%`` is a
#: mistake (a literal ``%`` that should be ``%%``, or a positional ``%s``).
_PLACEHOLDER = re.compile(r"%(?:%|\((?P<name>[^)]*)\)[#0 +-]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa])")


class RecordPathError(NewsExtractError):
    """A record file's path template cannot be filled."""


def utc_now() -> str:
    """The current time as the records write it: ISO 8601, UTC, whole seconds."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class _SpiderParams(Mapping[str, Any]):
    """The values a path template may name: the spider's attributes, ``name`` and ``time``."""

    def __init__(self, spider: object, name: str) -> None:
        self.spider = spider
        self.own = {"name": name, "time": datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S")}

    def __getitem__(self, key: str) -> Any:
        if key in self.own:
            return self.own[key]
        if key.startswith("_") or not hasattr(self.spider, key):
            raise KeyError(key)
        return getattr(self.spider, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.own)

    def __len__(self) -> int:
        return len(self.own)


def resolve_path(template: str, spider_name: str, spider: object = None, setting: str = "") -> Path:
    """Fill ``%(name)s``, ``%(time)s`` and the spider's attributes, as Scrapy's FEEDS URIs do.

    >>> resolve_path("out/%(name)s-failures.jsonl", "asahi").as_posix()
    'out/asahi-failures.jsonl'
    >>> resolve_path("100%%.jsonl", "asahi").as_posix()
    '100%.jsonl'
    >>> resolve_path("100%.jsonl", "asahi", setting="NEWSEXTRACT_FAILURES")
    Traceback (most recent call last):
    ...
    newsextract.extensions.jsonl.RecordPathError: NEWSEXTRACT_FAILURES='100%.jsonl': ...
    """
    where = check_percent_signs(template, setting)
    try:
        filled = template % _SpiderParams(spider, spider_name)
    except KeyError as error:
        raise RecordPathError(
            f"{where}: no value for %({error.args[0]})s: use %(name)s (the spider), "
            "%(time)s (the crawl's start) or another attribute of the spider"
        ) from error
    except (TypeError, ValueError) as error:
        raise RecordPathError(f"{where}: {error}") from error
    return Path(filled).expanduser()


def check_percent_signs(template: str, setting: str = "") -> str:
    """Raise :class:`RecordPathError` for a ``%`` that is neither ``%%`` nor a named
    placeholder; return how messages name the template."""
    where = f"{setting}={template!r}" if setting else repr(template)
    stray = _stray_percent(template)
    if stray >= 0:
        raise RecordPathError(
            f"{where}: '%' at character {stray + 1} is not a placeholder: write %% for a "
            "literal %, or use %(name)s (the spider) or %(time)s (the crawl's start)"
        )
    return where


def _stray_percent(template: str) -> int:
    """Where the first ``%`` that is not a placeholder is, or -1.

    >>> _stray_percent("a-%(name)s-%%.jsonl"), _stray_percent("a-%s.jsonl")
    (-1, 2)
    """
    position = 0
    while (found := template.find("%", position)) >= 0:
        match = _PLACEHOLDER.match(template, found)
        if match is None:
            return found
        position = match.end()
    return -1


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
    (``None``: count only, write nothing). ``setting`` names the template in messages.

    A file that cannot be opened when the spider opens stops the crawl before its first
    request (reason ``newsextract_fatal``): a crawl must not run without its records."""

    setting = ""

    def __init__(self, path_template: str | None = None) -> None:
        self.path_template = path_template
        self.file: JsonLinesFile | None = None

    def check_template(self, spider: object, spider_name: str) -> None:
        """Raise :class:`RecordPathError` now for a template that cannot be filled: with the
        spider itself, every placeholder is tried; with only its class (whose instances may
        add attributes), only the ``%`` signs are."""
        if not self.path_template:
            return
        if isinstance(spider, type):
            check_percent_signs(self.path_template, self.setting)
        else:
            resolve_path(self.path_template, spider_name, spider, self.setting)

    def spider_opened(self, spider: Spider) -> None:
        if not self.path_template:
            return
        try:
            path = resolve_path(self.path_template, spider.name, spider, self.setting)
        except RecordPathError as error:
            self._refuse(str(error))
        self.file = JsonLinesFile(path)
        try:
            self.file.open()
        except OSError as error:
            self._refuse(
                f"{self.setting or 'record file'}: cannot open {path} ({type(error).__name__}: "
                f"{error}): make its directory writable, or point the setting at another file"
            )

    def _refuse(self, message: str) -> NoReturn:
        logger.error(message)
        self.file = None
        raise CloseSpider(FATAL_REASON)

    def spider_closed(self, spider: Spider) -> None:
        if self.file is not None:
            self.file.close()

    def write(self, record: Any) -> None:
        if self.file is not None:
            self.file.write(record)

"""Gzipped WARC files of HTTP responses, rotated by size (no Scrapy import).

Each record is its own gzip member, as the WARC standard's annex recommends, so a reader can
start at any record and a file cut short keeps every record before the cut. A file is named
``<prefix>-<UTC time>-<serial>.warc.gz`` and opens with a ``warcinfo`` record. The format is
a few header lines a record: it is written here with the standard library, and read back by
:mod:`newsextract.warc.reader`.
"""

from __future__ import annotations

import gzip
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from typing import BinaryIO

#: A file is closed, and the next opened, once it holds this many bytes (1 GB, the size
#: Common Crawl and Heritrix use).
MAX_SIZE_DEFAULT = 1_000_000_000
#: zlib level 6: most of level 9's ratio at a fraction of its time.
COMPRESS_LEVEL_DEFAULT = 6
#: Named fields a newsextract crawl adds to each response record: the kind of page its
#: spider asked for ("article" for a page the item pipeline reads, "listing", "sitemap",
#: "feed", "robots", "other"), and the site and language it gives its pages.
KIND_FIELD = "Newsextract-Kind"
SITE_FIELD = "Newsextract-Site"
LANGUAGE_FIELD = "Newsextract-Language"
#: The kind of page the spider's article callbacks read (``Newsextract-Kind``).
ARTICLE_KIND = "article"
#: The settings that shape the template and single-page stages' answers: the crawl's values
#: are written into each archive file's ``warcinfo`` record, for the replay
#: (:mod:`newsextract.warc.replay`) to read back.
TEMPLATE_SETTINGS = (
    "NEWSEXTRACT_TEMPLATES_ENABLED",
    "NEWSEXTRACT_TEMPLATE_SAMPLES",
    "NEWSEXTRACT_TEMPLATE_MIN_PAGES",
    "NEWSEXTRACT_TEMPLATE_HOLD",
    "NEWSEXTRACT_TEMPLATE_HOLD_BYTES",
    "NEWSEXTRACT_TEMPLATE_GROUPS",
    "NEWSEXTRACT_MAX_ELEMENTS",
    "NEWSEXTRACT_MAX_BLOCKS",
    "SCRAPER_SLOT_MAX_ACTIVE_SIZE",
)
#: Headers that describe the bytes on the wire, not the body written (already decoded):
#: kept under this prefix, as Common Crawl does.
_RENAMED = {b"content-encoding", b"transfer-encoding", b"content-length"}
_KEPT_AS = b"X-Crawler-"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _record(kind: str, block: bytes, headers: Iterable[tuple[str, str]]) -> bytes:
    lines = [
        "WARC/1.1",
        f"WARC-Type: {kind}",
        f"WARC-Record-ID: <urn:uuid:{uuid.uuid4()}>",
        *(f"{name}: {_one_line(value)}" for name, value in headers),
        f"Content-Length: {len(block)}",
    ]
    return "\r\n".join(lines).encode("utf-8") + b"\r\n\r\n" + block + b"\r\n\r\n"


def _one_line(value: str) -> str:
    """A field value that cannot end its line early (a spider argument may hold CR LF)."""
    return value.replace("\r", " ").replace("\n", " ")


def http_block(
    status: int, headers: Iterable[tuple[bytes, bytes]], body: bytes, protocol: str = ""
) -> bytes:
    """The HTTP response as the archive holds it: a decoded body, with headers that match
    it (Content-Length set, the wire's encodings kept as ``X-Crawler-*``)."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    lines = [f"{protocol or 'HTTP/1.1'} {status} {reason}".rstrip().encode("latin-1")]
    for name, value in headers:
        if name.strip().lower() in _RENAMED:
            name = _KEPT_AS + name
        lines.append(name + b": " + value)
    lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class WarcWriter:
    """Response records into ``folder``, a new file past ``max_size`` bytes."""

    def __init__(
        self,
        folder: Path,
        prefix: str,
        max_size: int = MAX_SIZE_DEFAULT,
        software: str = "",
        info: Iterable[tuple[str, str]] = (),
    ) -> None:
        """``info``: more fields of each file's ``warcinfo`` record (name, value)."""
        self.folder = folder
        self.prefix = prefix
        self.max_size = max_size
        self.software = software
        self.info = list(info)
        self.serial = 0
        self.files: list[Path] = []
        self._file: BinaryIO | None = None

    def write_response(
        self,
        url: str,
        block: bytes,
        date: str | None = None,
        fields: Iterable[tuple[str, str]] = (),
    ) -> None:
        """``fields``: more named fields of the record's header (name, value)."""
        headers = [
            ("WARC-Date", date or _now()),
            ("WARC-Target-URI", url),
            *fields,
            ("Content-Type", "application/http; msgtype=response"),
        ]
        self._write(_record("response", block, headers))

    def _write(self, record: bytes) -> None:
        stream = self._open()
        stream.write(gzip.compress(record, COMPRESS_LEVEL_DEFAULT))
        stream.flush()
        if stream.tell() >= self.max_size:
            self.close()

    def _open(self) -> BinaryIO:
        if self._file is not None:
            return self._file
        self.folder.mkdir(parents=True, exist_ok=True)
        self.serial += 1
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        path = self.folder / f"{self.prefix}-{stamp}-{self.serial:05d}.warc.gz"
        self._file = path.open("xb")
        self.files.append(path)
        lines = [("software", self.software), ("format", "WARC File Format 1.1"), *self.info]
        info = "".join(f"{name}: {_one_line(value)}\r\n" for name, value in lines).encode()
        headers = [("WARC-Date", _now()), ("WARC-Filename", path.name)]
        headers.append(("Content-Type", "application/warc-fields"))
        self._file.write(gzip.compress(_record("warcinfo", info, headers)))
        return self._file

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

"""The HTTP responses of a web archive (WARC, gzip or plain), and where it is damaged.

The reader is FastWARC, chosen by measurement against warcio (both maintained): reading the
response records of one archive of 300 dragnet pages, bodies included, took 64-70 ms with
FastWARC and 116-141 ms with warcio gzipped (5.8 MB), 15-27 ms against 47-52 ms plain
(26 MB), three runs each (2026-12-01). Both stop silently at a truncated record, and on a
corrupt gzip member warcio prints an error per chunk and goes on while FastWARC raises: so
the damage is found here, by checking that the archive ends where its last good record
does (:func:`_tail_damage`).
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from fastwarc.warc import ArchiveIterator, WarcRecordType

from newsextract.warc.writer import KIND_FIELD, LANGUAGE_FIELD, SITE_FIELD

#: Content types read as pages; any other response is skipped with a failure record.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_CHUNK = 1 << 20
_CUT_LAST = "the last record is cut short"


@dataclass(frozen=True)
class ArchivedResponse:
    """One HTTP response record: its body as the archive holds it, decoded of any
    Content-Encoding the archive kept."""

    record_id: str
    url: str
    date: str  # WARC-Date, ISO 8601
    status: int
    content_type: str  # the HTTP header, charset included
    body: bytes
    offset: int  # where the record starts in the file
    #: What a newsextract crawl wrote of the request (empty in other archives): the kind of
    #: page its spider asked for ("article", "listing", ...), the site and language it
    #: gave its pages (:mod:`newsextract.downloadermiddlewares.warc`).
    kind: str = ""
    site: str = ""
    language: str = ""

    @property
    def is_html(self) -> bool:
        return self.content_type.split(";")[0].strip().lower() in HTML_TYPES


@dataclass
class WarcReader:
    """Iterate over the response records of ``path``; after the iteration, :attr:`damage`
    says in one line where and how the archive is damaged (None: it is whole). :attr:`info`
    holds the fields of the ``warcinfo`` records read so far (the first value of a name)."""

    path: Path
    damage: str | None = None
    records: int = 0
    info: dict[str, str] = field(default_factory=dict)

    def __iter__(self) -> Iterator[ArchivedResponse]:
        # A record cut short is still given by FastWARC, its body short: each response is
        # held back until the next record starts, the last one until the tail is checked.
        last_start, pending = 0, None
        with self.path.open("rb") as stream:
            iterator = ArchiveIterator(stream, record_types=WarcRecordType.any_type)
            try:
                for record in iterator:
                    if pending is not None:
                        yield pending
                        pending = None
                    last_start = record.stream_pos
                    self.records += 1
                    if record.record_type == WarcRecordType.response and record.is_http:
                        pending = _response(record)
                    elif record.record_type == WarcRecordType.warcinfo:
                        for name, value in _fields(record.reader.read()):
                            self.info.setdefault(name, value)
                    else:
                        record.reader.consume()
            except (OSError, ValueError, EOFError, zlib.error) as error:
                self.damage = f"unreadable after offset {last_start}: {error}"
                return
        self.damage = _tail_damage(self.path, last_start, self.records > 0)
        if pending is not None and not (self.damage or "").startswith(_CUT_LAST):
            yield pending


def _response(record: Any) -> ArchivedResponse:
    headers = record.http_headers
    body = record.reader.read()
    encoding = (headers.get("Content-Encoding") or "").strip().lower()
    if encoding in {"gzip", "x-gzip", "deflate"}:
        # 47 = 32 + 15: a gzip or a zlib header, either; if the header lied, the body stays.
        with contextlib.suppress(zlib.error):
            body = zlib.decompress(body, 47)
    return ArchivedResponse(
        record_id=str(record.record_id),
        url=str(record.headers.get("WARC-Target-URI") or ""),
        date=str(record.headers.get("WARC-Date") or ""),
        status=int(headers.status_code or 0),
        content_type=str(headers.get("Content-Type") or ""),
        body=body,
        offset=int(record.stream_pos),
        kind=str(record.headers.get(KIND_FIELD) or ""),
        site=str(record.headers.get(SITE_FIELD) or ""),
        language=str(record.headers.get(LANGUAGE_FIELD) or ""),
    )


def _fields(block: bytes) -> list[tuple[str, str]]:
    """The ``name: value`` lines of an ``application/warc-fields`` block."""
    lines = block.decode("utf-8", "replace").splitlines()
    pairs = (line.partition(":") for line in lines)
    return [(name.strip(), value.strip()) for name, colon, value in pairs if colon and name.strip()]


def _tail_damage(path: Path, last_start: int, any_record: bool) -> str | None:
    """What follows the last record read, if not the file's end: a record cut short."""
    with path.open("rb") as stream:
        stream.seek(last_start)
        head = stream.read(2)
        stream.seek(last_start)
        if head == b"\x1f\x8b":
            end = _gzip_member_end(stream, last_start) if any_record else last_start
        else:
            end = _plain_record_end(stream, last_start) if any_record else last_start
        if end is None or end > path.stat().st_size:
            return f"{_CUT_LAST} at offset {last_start}"
        stream.seek(end)
        rest = stream.read(_CHUNK)
    if rest.strip(b"\r\n"):
        what = "a record cut short" if any_record else "no WARC record"
        return f"{what} at offset {end} ({path.stat().st_size - end} bytes left unread)"
    return None


def _gzip_member_end(stream: BinaryIO, start: int) -> int | None:
    decompressor = zlib.decompressobj(31)
    consumed = 0
    while not decompressor.eof:
        chunk = stream.read(_CHUNK)
        if not chunk:
            return None
        try:
            decompressor.decompress(chunk)
        except zlib.error:
            return None
        consumed += len(chunk)
    return start + consumed - len(decompressor.unused_data)


def _plain_record_end(stream: BinaryIO, start: int) -> int | None:
    head = stream.read(64 * 1024)
    header_end = head.find(b"\r\n\r\n")
    if header_end < 0:
        return None
    for line in head[:header_end].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            return start + header_end + 4 + int(value) + 4  # the block, then CRLF CRLF
    return None

"""The pages a command reads: a manifest (one JSON object a line, as the development sets
are written), a folder of saved pages, or a list of page files."""

from __future__ import annotations

import codecs
import gzip
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from newsextract.exceptions import NewsExtractError


@dataclass(frozen=True)
class ManifestEntry:
    """One page of a data set; gold text is read only by evaluation."""

    id: str
    url: str | None
    html_path: Path
    text_path: Path | None
    lang: str
    fields: dict[str, Any]
    origin: str = field(default="", compare=False)  # "manifest.jsonl:12", for messages
    #: The HTTP Content-Type the page was served with, where known (a web archive keeps it):
    #: its charset decides the decoding before the page's own declaration.
    content_type: str = field(default="", compare=False)

    def read_html(self) -> bytes:
        data = self.html_path.read_bytes()
        return gzip.decompress(data) if self.html_path.suffix == ".gz" else data

    def read_gold(self) -> str:
        if self.text_path is None:
            raise FileNotFoundError(f"page {self.id} has no gold text")
        return decode_text_file(self.text_path.read_bytes())

    @property
    def has_snippet_gold(self) -> bool:
        """Whether the gold is snippets (``gt_with`` / ``gt_without``), not the whole text."""
        return self.fields.get("gt_kind") == "snippets_with"

    @property
    def wanted_snippets(self) -> tuple[str, ...]:
        return tuple(str(s) for s in self.fields.get("gt_with") or ())

    @property
    def unwanted_snippets(self) -> tuple[str, ...]:
        return tuple(str(s) for s in self.fields.get("gt_without") or ())

    def group_key(self, field_name: str) -> str:
        """The value pages are grouped by (a site); pages without one stand alone."""
        value = self.fields.get(field_name)
        return str(value) if value else f"_single:{self.id}"


def group_entries(
    entries: Iterable[ManifestEntry], group_by: str
) -> dict[str, list[ManifestEntry]]:
    """Pages by their :meth:`ManifestEntry.group_key`, in the order the groups first appear."""
    groups: dict[str, list[ManifestEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.group_key(group_by), []).append(entry)
    return groups


# dragnet has UTF-16 gold files that were read as Latin-1 and written out as UTF-8.
_UTF16_BOM_READ_AS_LATIN1 = (
    codecs.BOM_UTF16_LE.decode("latin-1").encode("utf-8"),
    codecs.BOM_UTF16_BE.decode("latin-1").encode("utf-8"),
)


def decode_text_file(data: bytes) -> str:
    """Gold text is UTF-8, but some files of the public sets are UTF-16 with a BOM.

    >>> decode_text_file("ab".encode("utf-16"))
    'ab'
    """
    if data.startswith(_UTF16_BOM_READ_AS_LATIN1):
        data = data.decode("utf-8").encode("latin-1")  # a converter's double encoding
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


class ManifestError(NewsExtractError, ValueError):
    """A manifest that cannot be read: missing, not JSON lines, or a line without a page.
    The message names the file and, for a bad line, its number."""


#: How saved pages are named; a page's id is its file name (or its path in a folder of
#: pages) without the suffix.
PAGE_SUFFIXES = (".html.gz", ".htm.gz", ".html", ".htm")
MANIFEST_NAME = "manifest.jsonl"


def manifest_path(path: str | Path) -> Path:
    """The manifest a path names: the file itself, or ``manifest.jsonl`` in a folder."""
    manifest = Path(path)
    return manifest / MANIFEST_NAME if manifest.is_dir() else manifest


def read_manifest(path: str | Path) -> Iterator[ManifestEntry]:
    """Entries of ``manifest.jsonl``, paths resolved against the manifest's folder; raise
    :class:`ManifestError` naming the file (and line) when it cannot be read."""
    manifest = manifest_path(path)
    try:
        lines = manifest.open(encoding="utf-8")
    except FileNotFoundError:
        if Path(path).is_dir():
            raise ManifestError(f"{path}: no {MANIFEST_NAME} in this folder") from None
        raise ManifestError(f"{manifest}: no such manifest") from None
    except OSError as error:
        raise ManifestError(f"{manifest}: cannot read: {error.strerror or error}") from None
    with lines:
        try:
            for number, line in enumerate(lines, 1):
                if line.strip():
                    yield manifest_entry(line, manifest.parent, f"{manifest}:{number}")
        except UnicodeDecodeError as error:
            raise ManifestError(f"{manifest}: not UTF-8 text: {error}") from None


def manifest_entry(line: str, folder: Path, origin: str) -> ManifestEntry:
    """One manifest line as an entry; ``origin`` (``file:line``) opens every error."""
    try:
        record = json.loads(line)
    except ValueError as error:
        raise ManifestError(f"{origin}: not valid JSON: {error}") from None
    if not isinstance(record, dict):
        raise ManifestError(f"{origin}: not a JSON object")
    html = record.get("html")
    if not isinstance(html, str) or not html:
        raise ManifestError(f'{origin}: no "html" field (the saved page, relative to the manifest)')
    url, text = record.get("url"), record.get("text")
    if url is not None and not isinstance(url, str):
        raise ManifestError(f'{origin}: "url" is not a string')
    if text is not None and not isinstance(text, str):
        raise ManifestError(f'{origin}: "text" is not a string')
    page_id = record.get("id")
    return ManifestEntry(
        id=page_name(Path(html)) if page_id is None or page_id == "" else str(page_id),
        url=url or None,
        html_path=folder / html,
        text_path=folder / text if text else None,
        lang=str(record.get("lang") or ""),
        fields=record,
        origin=origin,
    )


def read_page_file(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def page_name(path: Path) -> str:
    """A saved page's file name without its suffix.

    >>> page_name(Path("pages/2026/story.html.gz"))
    'story'
    """
    name = path.name
    for suffix in PAGE_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)] or name
    return name


def is_saved_page(path: Path) -> bool:
    return path.name.lower().endswith(PAGE_SUFFIXES) and path.is_file()


def read_page_folder(folder: Path) -> list[ManifestEntry]:
    """Every saved page (``*.html``, ``*.html.gz``, ...) under a folder, in name order; a
    page's id is its path in the folder without the suffix."""
    pages = sorted(path for path in folder.rglob("*") if is_saved_page(path))
    return _unique(
        [_page_entry(path, _folder_id(path.relative_to(folder)), None) for path in pages]
    )


def _folder_id(relative: Path) -> str:
    """``2026/11/story.html`` -> ``2026/11/story``."""
    return (relative.parent / page_name(relative)).as_posix()


def read_page_list(lines: Iterable[str], origin: str = "<stdin>") -> list[ManifestEntry]:
    """Pages listed one a line, ``PATH`` or ``PATH<TAB>URL`` (blank lines skipped)."""
    entries = []
    for number, line in enumerate(lines, 1):
        path, _, url = line.rstrip("\r\n").partition("\t")
        if not path.strip():
            continue
        entry = _page_entry(Path(path), page_name(Path(path)), url.strip() or None)
        entries.append(replace(entry, origin=f"{origin}:{number}"))
    return _unique(entries)


def _page_entry(path: Path, page_id: str, url: str | None) -> ManifestEntry:
    fields: dict[str, Any] = {"id": page_id, "html": str(path), "url": url}
    host = urlsplit(url).hostname if url else None
    if host:
        fields["domain"] = host
    return ManifestEntry(page_id, url, path, None, "", fields)


def _unique(entries: list[ManifestEntry]) -> list[ManifestEntry]:
    """Entries with distinct ids: a repeated id gets ``-2``, ``-3``... (two pages named alike
    in different folders must not write one output file)."""
    seen: set[str] = set()
    unique = []
    for entry in entries:
        page_id, copy = entry.id, 1
        while page_id in seen:
            copy += 1
            page_id = f"{entry.id}-{copy}"
        seen.add(page_id)
        unique.append(entry if page_id == entry.id else replace(entry, id=page_id))
    return unique


def development_data_dir() -> Path:
    """Where the development sets are: ``$NEWSEXTRACT_SHARED_DATA``, else ``shared/data``
    beside the repository (``../shared/data`` from its root)."""
    env = os.environ.get("NEWSEXTRACT_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"

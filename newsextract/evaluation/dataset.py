"""Read a manifest in the format of ``shared/data``: one JSON object a line."""

from __future__ import annotations

import codecs
import gzip
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ManifestEntry:
    """One page of a data set; gold text is read only by evaluation."""

    id: str
    url: str | None
    html_path: Path
    text_path: Path | None
    lang: str
    fields: dict[str, Any]

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


def read_manifest(path: str | Path) -> Iterator[ManifestEntry]:
    """Entries of ``manifest.jsonl``, paths resolved against the manifest's folder."""
    manifest = Path(path)
    if manifest.is_dir():
        manifest = manifest / "manifest.jsonl"
    folder = manifest.parent
    with manifest.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                yield ManifestEntry(
                    id=str(record["id"]),
                    url=record.get("url"),
                    html_path=folder / record["html"],
                    text_path=folder / record["text"] if record.get("text") else None,
                    lang=record.get("lang") or "",
                    fields=record,
                )
            except (ValueError, KeyError) as error:
                raise ValueError(f"{manifest}:{number}: bad manifest line: {error}") from error


def development_data_dir() -> Path:
    """Where the development sets are: ``$NEWSEXTRACT_SHARED_DATA``, else ``shared/data``
    beside the repository (``../shared/data`` from its root)."""
    env = os.environ.get("NEWSEXTRACT_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"

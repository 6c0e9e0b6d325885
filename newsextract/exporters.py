"""Feed output that holds up: XML that is always well-formed, and files a killed crawl keeps.

- :class:`SafeXmlItemExporter` (``FEED_EXPORTERS["xml"]``): pages carry control characters
  that XML 1.0 forbids (``\\x0b``, ``\\x1f``, lone surrogates...). Scrapy's exporter writes
  them as they are and the file no longer parses; this one removes them from every text and
  field name. Lists come out as ``<value>`` children and dicts as nested elements, as
  Scrapy does; None is an empty element and booleans are ``true``/``false``.
- :class:`ArticleJsonLinesItemExporter` (``FEED_EXPORTERS`` for JSON lines): Scrapy's
  exporter, the same bytes, with an article's fields read straight from the dataclass
  (:func:`~newsextract.items.record_fields`) rather than through ``ItemAdapter``, which cost
  more than the JSON encoding of the record itself.
- :class:`FlushedFileFeedStorage` (``FEED_STORAGES`` for local files): writes every item
  straight to the operating system, so a crawl killed with SIGKILL loses no exported item
  (the state store has already marked it harvested, and a resumed crawl will not fetch it
  again).
- :func:`record_dict` gives one record as Scrapy's feeds write it (the web archives' batch;
  :class:`newsextract.recordfile.RecordFile` writes batch records without Scrapy).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import IO, Any

from scrapy import Spider
from scrapy.exporters import (
    JsonLinesItemExporter,
    PythonItemExporter,
    XmlItemExporter,
)
from scrapy.extensions.feedexport import FileFeedStorage

from newsextract.items import ArticleItem, record_fields

#: Characters XML 1.0 does not allow in a document, even escaped.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NAME_START = re.compile(r"^[^A-Za-z_]")
_NAME_ILLEGAL = re.compile(r"[^\w.-]")


def xml_text(text: str) -> str:
    """Text with every character XML 1.0 forbids removed.

    >>> xml_text("a\\x0bb\\x00c\\td")
    'abc\\td'
    """
    return _XML_ILLEGAL.sub("", text)


def xml_name(name: str) -> str:
    """A usable element name for a field or dict key.

    >>> xml_name("ruleVersion"), xml_name("1st place"), xml_name("")
    ('ruleVersion', '_1st_place', '_')
    """
    name = _NAME_ILLEGAL.sub("_", xml_text(name)) or "_"
    return "_" + name if _NAME_START.match(name) else name


def xml_value(value: Any) -> Any:
    """Scalars as text; dicts and lists are left for the exporter to nest."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes):
        return xml_text(value.decode("utf-8", "replace"))
    if isinstance(value, str):
        return xml_text(value)
    return value


class SafeXmlItemExporter(XmlItemExporter):
    def _export_xml_field(self, name: str, serialized_value: Any, depth: int) -> None:
        super()._export_xml_field(xml_name(name), xml_value(serialized_value), depth)


class ArticleJsonLinesItemExporter(JsonLinesItemExporter):
    def export_item(self, item: Any) -> None:
        if type(item) is not ArticleItem or self.fields_to_export is not None:
            super().export_item(item)
            return
        data = self.encoder.encode(record_fields(item)) + "\n"
        self.file.write(data.encode(self.encoding or "utf-8"))


class FlushedFileFeedStorage(FileFeedStorage):
    def open(self, spider: Spider) -> IO[bytes]:
        path = Path(self.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open(self.write_mode, buffering=0)


def record_dict(item: Any) -> dict[str, Any]:
    """One item as a feed writes it (field serializers applied: a missing field is None)."""
    return {str(key): value for key, value in PythonItemExporter().export_item(item).items()}

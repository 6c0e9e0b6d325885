"""Feed output: XML that always parses, nested fields that make sense, files a kill keeps."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from scrapy import Spider
from scrapy.exporters import JsonLinesItemExporter, XmlItemExporter

from newsextract.exporters import FlushedFileFeedStorage, SafeXmlItemExporter, xml_name, xml_text
from newsextract.items import ArticleItem

HOSTILE = "Vertical\x0btab, form\x0cfeed, nul\x00, escape\x1b, BOM-ish\ufffe, <tag> & 'quotes'"


def article(body: str = HOSTILE) -> ArticleItem:
    return ArticleItem(
        url="http://127.0.0.1/article/1.html",
        canonicalUrl="",
        headline="Head\x08line",
        articleBody=body,
        datePublished="2026-11-29",
        datePublishedRaw="29 Nov 2026",
        authors=["A. Writer", "B\x01. Writer"],
        inLanguage="en",
        site="127.0.0.1",
        fetchedAt="2026-11-29T00:00:00+00:00",
        extraction={"method": "rules", "ruleVersion": "v2", "confidence": 0.9, "note": None},
    )


def export(exporter_class: type[XmlItemExporter], *items: ArticleItem) -> bytes:
    buffer = io.BytesIO()
    exporter = exporter_class(buffer)
    exporter.start_exporting()
    for item in items:
        exporter.export_item(item)
    exporter.finish_exporting()
    return buffer.getvalue()


def test_scrapy_alone_writes_xml_that_does_not_parse() -> None:
    with pytest.raises(etree.XMLSyntaxError):
        etree.fromstring(export(XmlItemExporter, article()))


def test_the_safe_exporter_writes_xml_that_parses() -> None:
    root = etree.fromstring(export(SafeXmlItemExporter, article(), article("second")))
    first, second = root.findall("item")
    assert first.findtext("articleBody") == (
        "Verticaltab, formfeed, nul, escape, BOM-ish, <tag> & 'quotes'"
    )
    assert first.findtext("headline") == "Headline"
    assert second.findtext("articleBody") == "second"


def test_nested_fields_come_out_as_elements() -> None:
    item = etree.fromstring(export(SafeXmlItemExporter, article())).find("item")
    assert item is not None
    assert [value.text for value in item.findall("authors/value")] == ["A. Writer", "B. Writer"]
    extraction = item.find("extraction")
    assert extraction is not None
    assert extraction.findtext("method") == "rules"
    assert extraction.findtext("ruleVersion") == "v2"
    assert extraction.findtext("confidence") == "0.9"
    assert extraction.findtext("note") == ""  # None: an empty element, not "None"


def test_the_safe_exporter_keeps_every_legal_character() -> None:
    text = "改行\nタブ\t日本語 — emoji 🗞 and Ω"
    item = etree.fromstring(export(SafeXmlItemExporter, article(text))).find("item")
    assert item is not None and item.findtext("articleBody") == text


def test_xml_helpers() -> None:
    assert xml_text("a\x00b\ud800c\tz") == "abc\tz"
    assert xml_name("2nd field") == "_2nd_field"
    assert xml_name("canonicalUrl") == "canonicalUrl"


def test_jsonl_keeps_control_characters_escaped() -> None:
    buffer = io.BytesIO()
    exporter = JsonLinesItemExporter(buffer, ensure_ascii=False)
    exporter.export_item(article())
    assert b"\\u000b" in buffer.getvalue()


def test_the_flushed_storage_puts_each_item_on_disk_at_once(tmp_path: Path) -> None:
    path = tmp_path / "out" / "items.jsonl"
    storage = FlushedFileFeedStorage(str(path), feed_options={"overwrite": True})
    file = storage.open(Spider("news"))
    try:
        exporter = JsonLinesItemExporter(file)  # type: ignore[arg-type]
        exporter.export_item(article("one"))
        assert path.read_bytes().count(b"\n") == 1  # no buffer between the item and the disk
    finally:
        storage.store(file)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.lists(st.text(max_size=20), max_size=3))
def test_any_text_exports_to_xml_that_parses(body: str, authors: list[str]) -> None:
    item = article(body)
    item.authors = authors
    parsed = etree.fromstring(export(SafeXmlItemExporter, item)).find("item")
    assert parsed is not None
    expected = xml_text(body).replace("\r\n", "\n").replace("\r", "\n")
    assert (parsed.findtext("articleBody") or "") == expected

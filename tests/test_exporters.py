"""Feed output: XML that always parses, nested fields that make sense, files a kill keeps."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.exporters import JsonLinesItemExporter, XmlItemExporter
from scrapy.http import Response
from scrapy.logformatter import LogFormatter

from newsextract.exporters import (
    ArticleJsonLinesItemExporter,
    FlushedFileFeedStorage,
    SafeXmlItemExporter,
    record_dict,
    xml_name,
    xml_text,
)
from newsextract.items import ArticleItem, PageItem
from newsextract.recordfile import RecordFile

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


def test_a_missing_field_is_null_in_every_record_format(tmp_path: Path) -> None:
    item = article("Body")  # canonicalUrl "": the page named none
    item.datePublished = item.datePublishedRaw = item.inLanguage = ""
    item.extraction = {"method": "single", "ruleVersion": "", "confidence": 0.8}
    buffer = io.BytesIO()
    JsonLinesItemExporter(buffer).export_item(item)  # as the feeds write -O out.jsonl
    record = json.loads(buffer.getvalue())
    assert record["canonicalUrl"] is None and record["datePublished"] is None
    assert record["datePublishedRaw"] is None and record["inLanguage"] is None
    assert record["extraction"] == {"method": "single", "ruleVersion": None, "confidence": 0.8}
    assert record["headline"] == "Head\x08line" and record["authors"] == [
        "A. Writer",
        "B\x01. Writer",
    ]
    assert record_dict(item) == record
    path = tmp_path / "records.xml"
    records = RecordFile(path, "xml")
    records.write(item)
    records.close()
    parsed = etree.parse(str(path)).getroot().find("item")
    assert parsed is not None and parsed.findtext("canonicalUrl") == ""


def test_batch_writes_json_lines_byte_for_byte_as_the_feeds_without_scrapy(tmp_path: Path) -> None:
    items: list[Any] = [article('Body \u00e9\u6771\u4eac \U0001f600 "quoted" \\'), article(HOSTILE)]
    items[1].extraction = {"method": "single", "ruleVersion": "", "confidence": 0.25}
    items.append({**record_dict(items[0]), "warcRecordId": "<urn:uuid:1>"})  # an archive's
    buffer = io.BytesIO()
    feed = JsonLinesItemExporter(buffer, encoding="utf-8")  # FEED_EXPORT_ENCODING
    path = tmp_path / "records.jsonl"
    records = RecordFile(path, "jsonl")
    for item in items:
        feed.export_item(item)
        records.write(item)
    records.close()
    assert path.read_bytes() == buffer.getvalue()


@pytest.mark.parametrize(
    "options",
    [{}, {"encoding": "utf-8"}, {"encoding": "utf-16"}, {"ensure_ascii": False}, {"indent": 2}],
)
def test_the_article_exporter_writes_scrapys_bytes(options: dict[str, Any]) -> None:
    items: list[Any] = [article('Body \u00e9\u6771\u4eac "quoted" \\'), article(HOSTILE)]
    items[1].canonicalUrl = items[1].inLanguage = ""
    items[1].extraction = {"method": "single", "ruleVersion": "", "confidence": 0.25}
    items.append({**record_dict(items[0]), "warcRecordId": "<urn:uuid:1>"})  # not an article
    written = []
    for exporter_class in (JsonLinesItemExporter, ArticleJsonLinesItemExporter):
        buffer = io.BytesIO()
        exporter = exporter_class(buffer, **options)
        for item in items:
            exporter.export_item(item)
        written.append(buffer.getvalue())
    assert written[0] == written[1]


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=100), st.lists(st.text(max_size=10), max_size=3), st.text(max_size=10))
def test_the_article_exporter_writes_scrapys_bytes_for_any_text(
    body: str, authors: list[str], headline: str
) -> None:
    item = article(body)
    item.authors, item.headline = authors, headline
    written = []
    for exporter_class in (JsonLinesItemExporter, ArticleJsonLinesItemExporter):
        buffer = io.BytesIO()
        exporter_class(buffer, encoding="utf-8").export_item(item)
        written.append(buffer.getvalue())
    assert written[0] == written[1]


def test_an_items_repr_leaves_the_page_out() -> None:
    body = b"<html><body>" + b"<p>page text</p>" * 500_000 + b"</body></html>"  # 8 MB
    page = PageItem("http://127.0.0.1/a.html", body, "text/html", 200, "127.0.0.1", "t")
    shown = repr(page)
    assert len(shown) < 300 and b"page text".decode() not in shown
    assert f"body=<{len(body)} bytes>" in shown and "http://127.0.0.1/a.html" in shown
    # what Scrapy logs for a dropped page
    drop = DropItem("no main text", log_level="WARNING")
    message = LogFormatter().dropped(page, drop, Response(page.url), None)  # type: ignore[arg-type]
    assert len(message["msg"] % message["args"]) < 400
    item = article("A long article body. " * 10_000)
    assert "long article body" not in repr(item) and "articleBody=<210000 characters>" in repr(item)

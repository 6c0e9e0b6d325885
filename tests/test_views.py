"""The annotated page view, its sanitiser, the show command and the crawl report."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import lxml.html
import pytest

from newsextract.cli import main
from newsextract.extraction import parse_page
from newsextract.templates.rules import BodyRule, RuleVersion
from newsextract.templates.site import SiteTemplates
from newsextract.templates.store import render
from newsextract.views.page_view import (
    BODY_CLASS,
    DROPPED_CLASS,
    PANEL_ID,
    analyse_page,
    render_view,
)
from newsextract.views.report import read_report, render_report
from newsextract.views.sanitize import CSP, sanitize_css, sanitize_tree

PARAGRAPHS = [
    "The ferry service between the two harbours resumed on Friday morning after three days "
    "of storms kept the boats in port, the operator said in a statement.",
    "Passengers queued from early morning, and the first crossing left on time at seven "
    "o'clock with every seat taken and more people waiting on the quay.",
    "The operator said the timetable would return to normal by Sunday, once the crews had "
    "rested and the harbour master had checked the moorings after the storm.",
]

HOSTILE = """<html><head><title>Ferry</title>
<script>document.documentElement.setAttribute('data-pwned', '1')</script>
<link rel="stylesheet" href="http://{host}/sheet.css">
<base href="http://{host}/">
<meta http-equiv="refresh" content="0; url=http://{host}/refresh">
<style>body {{ background: url(http://{host}/bg.png) }} @import url(http://{host}/imp.css);
h1 {{ color: navy }}</style></head>
<body onload="document.body.setAttribute('data-pwned', '1')">
<div id="nav"><a href="/">Home</a> <a href="javascript:document.body.remove()">World</a>
<a href="/sport">Sport</a></div>
<div id="main"><h1>Ferry resumes after storm</h1>
<p style="background-image: url('http://{host}/p.png'); color: #222">{p0}</p>
<img src="http://{host}/photo.jpg" srcset="http://{host}/photo2.jpg 2x"
 onerror="document.body.setAttribute('data-pwned', '1')">
<iframe src="http://{host}/frame.html"></iframe>
<object data="http://{host}/object.swf"></object><embed src="http://{host}/embed.swf"></embed>
<video poster="http://{host}/poster.jpg" src="http://{host}/v.mp4"></video>
<p>{p1}</p><p>{p2}</p></div>
<div id="footer"><p>Copyright 2026 Example News. All rights reserved.</p></div>
</body></html>"""


def hostile_page(host: str = "127.0.0.1:9") -> str:
    return HOSTILE.format(host=host, p0=PARAGRAPHS[0], p1=PARAGRAPHS[1], p2=PARAGRAPHS[2])


def view_of(html: str, templates: SiteTemplates | None = None, kind: str = "article") -> str:
    analysis = analyse_page(parse_page(html, "http://news.example/ferry.html"), templates, kind)
    return render_view(analysis, {"headline": analysis.article.headline, "marker": "<b>&"})


def test_sanitiser_removes_code_and_external_resources() -> None:
    view = view_of(hostile_page())
    root = lxml.html.fromstring(view)
    assert root.xpath("//script | //iframe | //object | //embed | //base | //link") == []
    assert root.xpath("//meta[@http-equiv='refresh']") == []
    assert not any(name.startswith("on") for el in root.iter() for name in el.attrib)
    assert "javascript:" not in view.lower()
    assert "127.0.0.1:9" not in view  # no URL of the page's resources is left, CSS included
    for image in root.iter("img"):
        assert image.get("src", "").startswith("data:image/")
        assert image.get("srcset") is None
    csp = root.xpath("//head/meta[@http-equiv='Content-Security-Policy']")
    assert csp and csp[0] is root.find("head")[0]
    assert "default-src 'none'; style-src 'unsafe-inline'; img-src data:" in csp[0].get("content")
    assert csp[0].get("content") == CSP


def test_sanitiser_alone_on_the_raw_page() -> None:
    """The page model already drops scripts and frames; the sanitiser does not count on it."""
    root = sanitize_tree(lxml.html.document_fromstring(hostile_page()))
    html = lxml.html.tostring(root, encoding="unicode")
    assert "127.0.0.1:9" not in html and "javascript:" not in html and "pwned" not in html
    assert root.xpath("//script | //iframe | //object | //embed | //base | //link | //meta") == []
    assert root.xpath("//video/@poster | //video/@src | //img/@srcset") == []
    assert "navy" in html and PARAGRAPHS[2] in html


@pytest.mark.parametrize(
    "css",
    [
        "background: url(http://x.example/a.png)",
        "background: URL ( 'http://x.example/a.png' )",
        "@import 'http://x.example/a.css';",
        "@import url(http://x.example/a.css) screen;",
        "background: image-set('http://x.example/a.png' 1x)",
        "background: u\\72l(http://x.example/a.png)",
        "width: expression(alert(1))",
    ],
)
def test_css_that_fetches_is_removed(css: str) -> None:
    assert "x.example" not in sanitize_css(css)
    assert "alert" not in sanitize_css(css)


def test_css_without_resources_is_kept() -> None:
    assert sanitize_css("h1 { color: navy; margin: 0 }") == "h1 { color: navy; margin: 0 }"


def test_view_marks_body_and_dropped_blocks() -> None:
    root = lxml.html.fromstring(view_of(hostile_page()))
    body = [el for el in root.xpath("//body//*[@data-nx-blocks]") if BODY_CLASS in el.classes]
    dropped = [el for el in root.xpath("//body//*[@data-nx-blocks]") if DROPPED_CLASS in el.classes]
    body_texts = [el.text_content() for el in body]
    assert all(p in body_texts for p in PARAGRAPHS[1:])
    assert any("Copyright" in el.text_content() for el in dropped)
    assert all("background-color" in el.get("style") for el in body + dropped)
    headline = root.xpath("//*[@data-nx-headline]")
    assert [el.text_content() for el in headline] == ["Ferry resumes after storm"]


def test_side_panel_holds_the_record_and_scores() -> None:
    root = lxml.html.fromstring(view_of(hostile_page()))
    panel = root.get_element_by_id(PANEL_ID)
    record = json.loads(panel.get_element_by_id("nx-record").text_content())
    assert record == {"headline": "Ferry resumes after storm", "marker": "<b>&"}
    rows = panel.get_element_by_id("nx-blocks").findall("tr")
    assert [th.text for th in rows[0]] == ["#", "tag", "score", "kept", "first words"]
    assert len(rows) - 1 == len(root.xpath("//body//*[@data-nx-blocks]/@data-nx-blocks")) or rows
    assert panel.get_element_by_id("nx-legend") is not None


def _rules() -> RuleVersion:
    body = BodyRule(pivot="//div[@id='main']", pages=3)
    valid_from = "2026-11-01T00:00:00+00:00"
    return RuleVersion("news.example", "article", 1, valid_from=valid_from, bodies=(body,))


def test_view_with_rules_outlines_the_region_and_names_the_rule() -> None:
    templates = SiteTemplates.from_versions("news.example", [_rules()])
    root = lxml.html.fromstring(view_of(hostile_page(), templates))
    region = root.xpath("//*[@data-nx-region]")
    assert [el.get("id") for el in region] == ["main"]
    assert "pivot //div[@id='main']" in region[0].get("data-nx-region")
    reasons = {
        el.text_content()[:20]: el.get("data-nx-rule") for el in root.xpath("//*[@data-nx-rule]")
    }
    assert reasons[PARAGRAPHS[1][:20]].startswith("kept by the region")
    assert reasons["Copyright 2026 Examp"].startswith("outside the rule's region")
    assert "method: rules" in root.get_element_by_id(PANEL_ID).text_content()


def test_show_command_writes_a_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.html"
    page.write_text(hostile_page(), encoding="utf-8")
    rules = tmp_path / "news.example.rules.xml"
    rules.write_bytes(render("news.example", [_rules()]))
    out = tmp_path / "view.html"
    assert main(["show", str(page), "--rules", str(rules), "--out", str(out)]) == 0
    assert "data-nx-region" in out.read_text("utf-8")
    assert main(["show", str(page), "--rules-dir", str(tmp_path), "--out", str(out)]) == 2
    assert "--rules-dir needs --site or --url" in capsys.readouterr().err


def two_megabyte_page() -> str:
    """A long page: numbered story paragraphs between link lists, about 2 MB."""
    parts, number = ["<html><head><title>Big</title></head><body>"], 0
    while sum(map(len, parts)) < 2_000_000:
        links = "".join(f"<li><a href='/s/{number}/{i}'>Section {i}</a></li>" for i in range(8))
        story = "".join(f"<p>{number}.{i} {text}</p>" for i, text in enumerate(PARAGRAPHS))
        parts.append(f"<ul class='nav'>{links}</ul><div class='story'>{story}</div>\n")
        number += 1
    return "".join(parts) + "</body></html>"


def test_a_two_megabyte_page_view_marks_every_block() -> None:
    """Every block of a long page is marked once and has its row in the panel's table. Its
    speed is measured by ``benchmarks/view_speed.py``, beside a reference extractor."""
    page = parse_page(two_megabyte_page(), "http://news.example/big.html")
    analysis = analyse_page(page)
    elements = {block.element for block in page.blocks}
    view = render_view(analysis, {})
    assert view.count("data-nx-blocks=") == len(elements) > 10_000
    assert view.count("<tr class=") == len(page.blocks)


# -- the crawl report -----------------------------------------------------------------------


def _data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "rules").mkdir(parents=True)
    (data / "failures").mkdir()
    first = RuleVersion(
        "news.example",
        "article",
        1,
        valid_from="2026-11-01T00:00:00+00:00",
        valid_until="2026-11-20T00:00:00+00:00",
        bodies=(BodyRule("//div", pages=3),),
    )
    second = RuleVersion(
        "news.example",
        "article",
        2,
        valid_from="2026-11-20T00:00:00+00:00",
        source="reinduced",
        bodies=(BodyRule("//main", pages=7),),
    )
    (data / "rules" / "news.example.rules.xml").write_bytes(render("news.example", [first, second]))
    failures = [
        {"url": "http://news.example/a", "stage": "http", "status": 404, "site": "news.example"},
        {"url": "http://news.example/b", "stage": "http", "status": 500, "site": "news.example"},
        {"url": "http://news.example/c", "stage": "content-type", "site": "news.example"},
    ]
    (data / "failures" / "site.jsonl").write_text(
        "".join(json.dumps(f) + "\n" for f in failures), encoding="utf-8"
    )
    return data


def test_report_names_sites_versions_and_failure_stages(tmp_path: Path) -> None:
    data = _data_dir(tmp_path)
    with sqlite3.connect(data / "state.sqlite3") as connection:
        connection.execute(
            "CREATE TABLE harvested (url TEXT, content_hash TEXT, site TEXT, fetched_at TEXT)"
        )
        connection.executemany(
            "INSERT INTO harvested VALUES (?, '', 'news.example', '')", [("u1",), ("u2",)]
        )
    feed = tmp_path / "articles.jsonl"
    records = [
        {"site": "news.example", "extraction": {"method": m}}
        for m in ("rules", "rules", "single:classifier")
    ]
    feed.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    report = read_report(data, articles=[feed])
    site = report.sites["news.example"]
    assert [v.number for v in site.versions] == [1, 2]
    assert dict(site.failures) == {"http": 2, "content-type": 1}
    assert site.harvested == 2
    assert dict(site.methods) == {"rules": 2, "single": 1}
    text = lxml.html.fromstring(render_report(report)).text_content()
    expected = ["news.example", "v1", "v2", "2026-11-01T00:00:00+00:00", "reinduced"]
    expected += ["content-type", "http", "harvested URLs: 2"]
    assert [word for word in expected if word not in text] == []
    assert "<script" not in render_report(report)


def test_report_command(tmp_path: Path) -> None:
    data = _data_dir(tmp_path)
    out = tmp_path / "report.html"
    assert main(["report", str(data), "--out", str(out)]) == 0
    assert "news.example" in out.read_text("utf-8")
    assert main(["report", str(tmp_path / "missing"), "--out", str(out)]) == 2

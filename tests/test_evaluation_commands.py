"""The extract, batch and eval commands on a tiny manifest built in tmp_path."""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from newsextract.cli import main
from newsextract.evaluation import runner
from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.metric import score_page, summarise
from newsextract.evaluation.outcome import PageOutcome
from newsextract.exceptions import PageTooComplexError
from newsextract.extraction import Article
from newsextract.items import ArticleItem

ARTICLE = (
    "<html><head><title>Budget passes</title></head><body>"
    "<ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li></ul>"
    "<div><p>The council approved the budget on Monday, after a long debate.</p>"
    "<p>Schools, roads and parks get more money; taxes stay the same.</p></div>"
    "</body></html>"
)
GOLD = (
    "The council approved the budget on Monday, after a long debate.\n"
    "Schools, roads and parks get more money; taxes stay the same.\n"
)


def build_manifest(folder: Path) -> Path:
    (folder / "html").mkdir(parents=True)
    (folder / "text").mkdir()
    (folder / "html" / "a.html").write_text(ARTICLE, encoding="utf-8")
    (folder / "html" / "b.html.gz").write_bytes(gzip.compress(ARTICLE.encode("utf-8")))
    (folder / "html" / "c.html").write_bytes(bytes(range(256)) * 40)  # binary: fails
    records: list[dict[str, str | None]] = [
        {"id": "a", "url": "http://example.org/a", "domain": "example.org", "lang": "en"},
        {"id": "b", "url": None, "domain": "example.org", "lang": "en"},
        {"id": "c", "url": "http://example.org/c", "domain": "example.org", "lang": "en"},
        {"id": "../d", "url": None, "domain": "example.net", "lang": "en"},  # file missing
    ]
    html = {"a": "html/a.html", "b": "html/b.html.gz", "c": "html/c.html", "../d": "html/d.html"}
    lines = []
    for record in records:
        name = str(record["id"]).replace("../", "")
        (folder / "text" / f"{name}.txt").write_text(GOLD, encoding="utf-8")
        lines.append(
            json.dumps({**record, "html": html[str(record["id"])], "text": f"text/{name}.txt"})
        )
    manifest = folder / "manifest.jsonl"
    manifest.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    return manifest


def punctuation_instead_of_combined(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batch mechanics are tested with method D, so they do not depend on the combiner."""
    original = runner.load_method
    monkeypatch.setattr(
        runner,
        "load_method",
        lambda name: original("punctuation" if name == "combined" else name),
    )


def test_batch_single_writes_one_file_per_page_and_records_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    punctuation_instead_of_combined(monkeypatch)
    manifest = build_manifest(tmp_path / "data")
    for gold in (tmp_path / "data" / "text").iterdir():
        gold.unlink()  # batch never reads gold text
    out = tmp_path / "out"
    assert main(["batch", str(manifest), "--out", str(out), "--mode", "single"]) == 1  # 2 failed
    assert sorted(p.name for p in out.iterdir()) == [
        "_articles.jsonl",
        "_d.txt",
        "_errors.jsonl",
        "a.txt",
        "b.txt",
        "c.txt",
    ]
    assert (out / "a.txt").read_text(encoding="utf-8") == GOLD
    assert (out / "b.txt").read_text(encoding="utf-8") == GOLD
    assert (out / "c.txt").read_text(encoding="utf-8") == ""
    errors = [json.loads(line) for line in (out / "_errors.jsonl").read_text().splitlines()]
    assert [(e["id"], e["error"].split(":")[0]) for e in errors] == [
        ("c", "NotHTMLError"),
        ("../d", "read"),
    ]
    assert "4 pages, 2 failed" in capsys.readouterr().err


def test_batch_shows_progress_on_long_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    punctuation_instead_of_combined(monkeypatch)
    (tmp_path / "p.html").write_text(ARTICLE, encoding="utf-8")
    lines = [json.dumps({"id": str(i), "html": "p.html"}) for i in range(51)]
    (tmp_path / "manifest.jsonl").write_text("\n".join(lines), encoding="utf-8")
    assert main(["batch", str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "46/51 pages" in err and "51/51 pages, " in err  # every tenth, and the end
    assert main(["batch", str(tmp_path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "/51 pages" not in capsys.readouterr().err


def fake_site_mode(calls: list[dict[str, Any]]) -> Any:
    from newsextract.templates.sitemode import SiteModeStats

    def extract_site_mode(
        entries: Sequence[ManifestEntry], **options: Any
    ) -> tuple[list[PageOutcome], SiteModeStats]:
        calls.append(options)
        outcomes = [PageOutcome(entry, GOLD, "rules", 0.002) for entry in entries]
        stats = SiteModeStats(
            groups=2,
            induction_seconds=[0.010, 0.030],
            application_seconds=[0.001, 0.003],
            reduction_ratios=[0.4, 0.6],
        )
        return outcomes, stats

    return extract_site_mode


def test_batch_site_mode_hands_each_site_to_the_template_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One site at a time (rules mode: test_evaluation_batch, test_templates_rulesmode)."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("newsextract.templates.sitemode.extract_site_mode", fake_site_mode(calls))
    manifest = build_manifest(tmp_path / "data")
    out, rules = tmp_path / "out", tmp_path / "rules"
    argv = ["batch", str(manifest), "--out", str(out), "--mode", "site", "--group-by", "domain"]
    assert main([*argv, "--rules-dir", str(rules), "--workers", "1"]) == 0  # calls seen here
    assert calls == [{"group_by": "domain", "rules_dir": rules, "learn": True}] * 2  # 2 domains
    assert (out / "c.txt").read_text(encoding="utf-8") == GOLD


def test_eval_reports_the_metric_for_each_method_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = build_manifest(tmp_path / "data")
    assert main(["eval", str(manifest), "--methods", "punctuation", "fft", "nosuch", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {row["method"]: row for row in report["methods"]}
    assert set(rows) == {"punctuation", "fft"}
    entries = list(read_manifest(manifest))
    outcomes = runner.run_method(entries, "punctuation")
    expected = summarise(score_page(o.body, GOLD, "en") for o in outcomes)
    row = rows["punctuation"]
    assert (row["pages"], row["errors"]) == (4, 2)
    assert row["f1"] == round(expected.f1, 4)
    assert row["precision"] == 1.0 and row["recall"] == 0.5  # 2 of 4 pages failed
    assert row["f1>=0.9"] == 0.5 and row["exact"] == 0.5
    assert row["pages_per_second"] > 0
    assert any("nosuch" in note for note in report["notes"])


def test_eval_table_in_site_mode_shows_the_template_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("newsextract.templates.sitemode.extract_site_mode", fake_site_mode([]))
    manifest = build_manifest(tmp_path / "data")
    assert main(["eval", str(manifest), "--mode", "site", "--methods", "punctuation"]) == 0
    out = capsys.readouterr().out
    header, site_row, punctuation_row = out.splitlines()[:3]
    assert header.split()[:4] == ["method", "pages", "precision", "recall"]
    assert site_row.split()[:5] == ["site", "4", "1.000", "1.000", "1.000"]
    assert punctuation_row.startswith("punctuation")
    assert "2 groups, induction 20.0 ms/group, application 2.0 ms/page" in out
    assert "reduction ratio 0.5" in out


def test_extract_prints_the_body_or_the_json_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str | None] = []

    def fake_extract(page: Any) -> Article:
        seen.append(page.url)
        return Article(url=page.url, body="Body line", headline="Budget passes", language="en")

    monkeypatch.setattr("newsextract.cli.extract.extract_article", fake_extract)
    page = tmp_path / "page.html.gz"
    page.write_bytes(gzip.compress(ARTICLE.encode("utf-8")))
    assert main(["extract", str(page), "--url", "http://example.org/a"]) == 0
    assert capsys.readouterr().out == "Body line\n"
    assert main(["extract", str(page), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["articleBody"] == "Body line"
    assert record["headline"] == "Budget passes"
    assert record["inLanguage"] == "en"
    assert set(record["extraction"]) == {"method", "ruleVersion", "confidence"}
    assert seen == ["http://example.org/a", None]


def test_extract_json_is_the_record_a_crawl_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        "newsextract.cli.extract.extract_article",
        lambda page: Article(url=page.url, body="Body line", headline="Budget passes"),
    )
    page = tmp_path / "page.html"
    page.write_text(ARTICLE, encoding="utf-8")
    assert main(["extract", str(page), "--url", "https://example.org/a", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert list(record) == [f.name for f in dataclasses.fields(ArticleItem)]
    assert (record["url"], record["site"]) == ("https://example.org/a", "example.org")
    # what the page did not give is null, not ""
    assert record["canonicalUrl"] is None and record["datePublished"] is None
    assert record["inLanguage"] is None and record["fetchedAt"] is None
    assert record["extraction"]["ruleVersion"] is None
    assert main(["extract", str(page), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["url"] is None


def test_extract_reports_a_page_too_complex_to_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def bomb(*args: Any) -> Any:
        raise PageTooComplexError("tags", 3_000_000, 1_000_000)

    monkeypatch.setattr("newsextract.cli.extract.parse_page", bomb)
    page = tmp_path / "bomb.html"
    page.write_text(ARTICLE, encoding="utf-8")
    assert main(["extract", str(page)]) == 1
    err = capsys.readouterr().err
    assert err == f"newsextract extract: {page}: page too complex: 3,000,000 tags, " + (
        "more than the limit of 1,000,000\n"
    )


def test_extract_errors_are_reported_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extract", str(tmp_path / "missing.html")]) == 2
    binary = tmp_path / "binary.html"
    binary.write_bytes(bytes(range(256)) * 40)
    assert main(["extract", str(binary)]) == 1
    assert "binary" in capsys.readouterr().err


def test_extract_end_to_end_with_the_combiner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    page.write_text(ARTICLE, encoding="utf-8")
    assert main(["extract", str(page)]) == 0
    out = capsys.readouterr().out
    assert "The council approved the budget" in out
    assert "Home" not in out.split("\n")


HEADLINED = (
    "<html><head><title>Budget passes | Gazette</title></head><body>"
    "<ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li></ul>"
    "<div><h1>Budget passes</h1>"
    "<p>The council approved the budget on Monday, after a long debate that ran late.</p>"
    "<p>Schools, roads and parks get more money next year; taxes stay the same.</p></div>"
    "</body></html>"
)
HEADLINED_GOLD = (
    "Budget passes\n"
    "The council approved the budget on Monday, after a long debate that ran late.\n"
    "Schools, roads and parks get more money next year; taxes stay the same.\n"
)


def _headlined_set(folder: Path, snippets: bool = False) -> Path:
    (folder / "html").mkdir(parents=True)
    (folder / "text").mkdir()
    (folder / "html" / "a.html").write_text(HEADLINED, encoding="utf-8")
    (folder / "text" / "a.txt").write_text(HEADLINED_GOLD, encoding="utf-8")
    record: dict[str, Any] = {
        "id": "a",
        "url": "http://example.org/a",
        "lang": "en",
        "html": "html/a.html",
        "text": "text/a.txt",
    }
    if snippets:
        record |= {
            "gt_kind": "snippets_with",
            "gt_with": ["approved the budget on Monday", "taxes stay the same"],
            "gt_without": ["Home", "Gazette"],
        }
    (folder / "manifest.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    return folder / "manifest.jsonl"


def test_batch_leaves_the_headline_out_unless_asked(tmp_path: Path) -> None:
    manifest = _headlined_set(tmp_path / "data")
    assert main(["batch", str(manifest), "--out", str(tmp_path / "plain"), "--quiet"]) == 0
    assert main(["batch", str(manifest), "--out", str(tmp_path / "h"), "--with-headline"]) == 0
    plain = (tmp_path / "plain" / "a.txt").read_text(encoding="utf-8")
    headed = (tmp_path / "h" / "a.txt").read_text(encoding="utf-8")
    assert plain == HEADLINED_GOLD.split("\n", 1)[1]
    assert headed == HEADLINED_GOLD


def _f1(capsys: pytest.CaptureFixture[str], *argv: str) -> float:
    assert main(["eval", *argv, "--methods", "combined", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    return float(report["methods"][0]["f1"])


def test_eval_scores_the_headline_as_the_set_writes_its_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a set named like one whose gold opens with the headline gets it before the body
    manifest = _headlined_set(tmp_path / "dragnet")
    assert _f1(capsys, str(manifest)) == 1.0
    assert _f1(capsys, str(manifest), "--headline", "none") < 1.0
    other = _headlined_set(tmp_path / "other")
    assert _f1(capsys, str(other)) < 1.0
    assert _f1(capsys, str(other), "--headline", "first") == 1.0


def test_eval_scores_snippet_gold_by_the_snippets_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _headlined_set(tmp_path / "snippets", snippets=True)
    assert main(["eval", str(manifest), "--methods", "combined", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["methods"][0]
    assert (row["f1"], row["precision"], row["recall"]) == (1.0, 1.0, 1.0)

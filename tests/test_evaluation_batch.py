"""``newsextract batch`` as a cron job uses it: what it reads, what it writes page by page, how it
fails (one line naming the file and line, exit 2, before any page is read) and how it stops."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from newsextract.cli import main
from newsextract.evaluation import runner
from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.outcome import PageOutcome
from newsextract.exceptions import PageTooComplexError
from newsextract.extraction.pagemodel.page import Page
from newsextract.items import ArticleItem

ARTICLE = (
    "<html><head><title>Budget passes</title></head><body>"
    "<ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li></ul>"
    "<div><h1>Budget passes</h1>"
    "<p>The council approved the budget on Monday, after a long debate that ran late.</p>"
    "<p>Schools, roads and parks get more money next year; taxes stay the same.</p></div>"
    "</body></html>"
)
BODY = (
    "The council approved the budget on Monday, after a long debate that ran late.\n"
    "Schools, roads and parks get more money next year; taxes stay the same.\n"
)
RECORD_FIELDS = [f.name for f in dataclasses.fields(ArticleItem)]


def run_batch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["batch", *argv])
    return code, capsys.readouterr().err


def one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err.rstrip("\n")


def write_manifest(folder: Path, *lines: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.html").write_text(ARTICLE, encoding="utf-8")
    (folder / "a.txt").write_text(BODY, encoding="utf-8")
    manifest = folder / "manifest.jsonl"
    manifest.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return manifest


GOOD_LINE = json.dumps({"id": "a", "html": "a.html", "text": "a.txt", "url": "http://e.org/a"})


def records(out: Path) -> list[dict[str, Any]]:
    lines = (out / "_articles.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


# -- input errors: one line naming the file (and line), exit 2 ----------------------------------


@pytest.mark.parametrize("command", ["batch", "eval"])
def test_a_missing_manifest_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    missing = tmp_path / "nowhere" / "manifest.jsonl"
    argv = [command, str(missing)] + (
        ["--out", str(tmp_path / "out")] if command == "batch" else []
    )
    assert main(argv) == 2
    assert (
        one_line(capsys.readouterr().err) == f"newsextract {command}: {missing}: no such manifest"
    )
    assert not (tmp_path / "out").exists()


def test_eval_of_a_folder_without_a_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(tmp_path)]) == 2
    err = one_line(capsys.readouterr().err)
    assert err == f"newsextract eval: {tmp_path}: no manifest.jsonl in this folder"


def test_batch_of_a_folder_with_neither_manifest_nor_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("not a page", encoding="utf-8")
    code, err = run_batch(capsys, str(tmp_path), "--out", str(tmp_path / "out"))
    assert code == 2
    assert one_line(err).startswith(
        f"newsextract batch: {tmp_path}: no manifest.jsonl and no saved"
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("{not json", ":2: not valid JSON"),
        ('["a.html"]', ":2: not a JSON object"),
        ('{"id": "b", "url": "http://e.org/b"}', ':2: no "html" field'),
        ('{"id": "b", "html": 7}', ':2: no "html" field'),
        ('{"id": "a", "html": "a.html"}', ":2: id 'a' again (first: "),
    ],
)
@pytest.mark.parametrize("command", ["batch", "eval"])
def test_a_bad_manifest_line_is_named_by_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, line: str, expected: str
) -> None:
    manifest = write_manifest(tmp_path / "set", GOOD_LINE, line)
    if command == "eval" and "again" in expected:
        return  # eval writes no file a page: an id may repeat
    extra = ["--out", str(tmp_path / "out")] if command == "batch" else ["--methods", "fft"]
    assert main([command, str(manifest), *extra]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith(f"newsextract {command}: {manifest}{expected}"), err
    assert not (tmp_path / "out").exists()  # nothing was extracted


def test_eval_needs_gold_text_for_every_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = write_manifest(
        tmp_path / "set", GOOD_LINE, json.dumps({"id": "b", "html": "a.html"})
    )
    assert main(["eval", str(manifest), "--methods", "fft"]) == 2
    assert one_line(capsys.readouterr().err).startswith(
        f'newsextract eval: {manifest}:2: no "text" field'
    )
    gone = json.dumps({"id": "b", "html": "a.html", "text": "gone.txt"})
    manifest = write_manifest(tmp_path / "set", GOOD_LINE, gone)
    assert main(["eval", str(manifest), "--methods", "fft"]) == 2
    assert f"{manifest}:2: no gold text file" in one_line(capsys.readouterr().err)


def test_out_is_checked_before_the_first_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    read: list[str] = []
    monkeypatch.setattr(runner, "extract_one", lambda entry, *a: read.append(entry.id))
    manifest = write_manifest(tmp_path / "set", GOOD_LINE)
    taken = tmp_path / "taken"
    taken.write_text("a file, not a folder", encoding="utf-8")
    code, err = run_batch(capsys, str(manifest), "--out", str(taken))
    assert (code, one_line(err)) == (2, f"newsextract batch: --out {taken}: not a folder")
    assert read == []


# -- modes: no quiet fallback -------------------------------------------------------------------


def test_rules_mode_without_rules_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = json.dumps({"id": "a", "html": "a.html", "domain": "e.org"})
    manifest = write_manifest(tmp_path / "set", line)
    argv = [str(manifest), "--out", str(tmp_path / "out"), "--mode", "rules"]
    code, err = run_batch(capsys, *argv)
    assert (code, one_line(err)) == (
        2,
        "newsextract batch: --mode rules needs --rules-dir, the folder of saved rules",
    )
    missing = tmp_path / "missing"
    code, err = run_batch(capsys, *argv, "--rules-dir", str(missing))
    assert (code, one_line(err)) == (2, f"newsextract batch: --rules-dir {missing}: no such folder")
    rules = tmp_path / "rules"
    rules.mkdir()
    code, err = run_batch(capsys, *argv, "--rules-dir", str(rules))
    assert (code, one_line(err)) == (
        2,
        f"newsextract batch: --rules-dir {rules}: no rules in this folder (*.rules.xml)",
    )
    other = b'<site name="other.org"><rules kind="article" version="1"/></site>'
    (rules / "other.org.rules.xml").write_bytes(other)
    code, err = run_batch(capsys, *argv, "--rules-dir", str(rules))
    assert code == 2
    assert one_line(err).startswith(f"newsextract batch: --rules-dir {rules} has no rules for")
    assert not (tmp_path / "out").exists()


def test_rules_mode_reads_each_page_with_its_sites_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from newsextract.templates import site

    monkeypatch.setattr(site.SiteTemplates, "has_rules", lambda self, kind="article": True)
    seen: list[tuple[str, bool]] = []

    def rules_outcome(entry: ManifestEntry, templates: Any) -> PageOutcome:
        seen.append((entry.id, templates is not None))
        return PageOutcome(entry, BODY, "rules", 0.001, headline="Budget passes")

    monkeypatch.setattr("newsextract.templates.rulesmode.rules_outcome", rules_outcome)
    lines = [json.dumps({"id": i, "html": "a.html", "domain": "e.org"}) for i in "abc"]
    manifest = write_manifest(tmp_path / "set", *lines)
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "e.org.rules.xml").write_bytes(b"<site/>")
    argv = [str(manifest), "--out", str(tmp_path / "out"), "--mode", "rules"]
    code, _ = run_batch(capsys, *argv, "--rules-dir", str(tmp_path / "rules"))
    assert code == 0
    assert seen == [("a", True), ("b", True), ("c", True)]
    assert [r["extraction"]["method"] for r in records(tmp_path / "out")] == ["rules"] * 3


def test_site_mode_warns_when_no_page_has_the_group_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        "newsextract.templates.sitemode.extract_site_mode",
        lambda entries, **options: ([PageOutcome(e, BODY, "single", 0.0) for e in entries], None),
    )
    manifest = write_manifest(tmp_path / "set", GOOD_LINE)
    argv = [str(manifest), "--out", str(tmp_path / "out"), "--mode", "site", "--group-by", "site"]
    code, err = run_batch(capsys, *argv, "--quiet")  # quiet: no progress, warnings still
    assert code == 0
    warning = err.splitlines()[0]
    assert warning.startswith("newsextract batch: warning: no page has the field 'site'")
    assert "--group-by" in warning


# -- what it reads and writes -------------------------------------------------------------------


def test_a_folder_of_saved_pages_becomes_records_and_text_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = tmp_path / "saved"
    (pages / "2026").mkdir(parents=True)
    (pages / "front.html").write_text(ARTICLE, encoding="utf-8")
    (pages / "2026" / "story.html.gz").write_bytes(gzip.compress(ARTICLE.encode("utf-8")))
    (pages / "notes.txt").write_text("not a page", encoding="utf-8")
    out = tmp_path / "out"
    assert run_batch(capsys, str(pages), "--out", str(out))[0] == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "2026_story.txt",
        "_articles.jsonl",
        "_errors.jsonl",
        "front.txt",
    ]
    assert (out / "front.txt").read_text(encoding="utf-8") == BODY
    written = records(out)
    assert [list(record) for record in written] == [RECORD_FIELDS] * 2  # a crawl's fields
    first = written[0]
    assert first["articleBody"] == BODY.rstrip("\n") and first["headline"] == "Budget passes"
    # what a saved page does not tell is null, not ""
    assert first["url"] is None and first["fetchedAt"] is None and first["site"] is None
    assert first["canonicalUrl"] is None and first["datePublished"] is None
    assert first["extraction"]["method"] and first["extraction"]["ruleVersion"] is None


def test_one_saved_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "front.html.gz"
    page.write_bytes(gzip.compress(ARTICLE.encode("utf-8")))
    out = tmp_path / "out"
    assert run_batch(capsys, str(page), "--out", str(out))[0] == 0
    assert (out / "front.txt").read_text(encoding="utf-8") == BODY
    assert len(records(out)) == 1


def test_a_list_on_standard_input_with_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    page.write_text(ARTICLE, encoding="utf-8")
    listing = f"{page}\thttps://example.org/news/1.html\n\n{tmp_path / 'gone.html'}\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(listing))
    out = tmp_path / "out"
    code, err = run_batch(capsys, "-", "--out", str(out), "--format", "xml")
    assert code == 1  # a page could not be read
    assert err.splitlines()[-1] == f"2 pages, 1 failed -> {out}"
    root = etree.parse(str(out / "_articles.xml")).getroot()
    (item,) = root.findall("item")
    assert [child.tag for child in item] == RECORD_FIELDS
    assert item.findtext("url") == "https://example.org/news/1.html"
    assert item.findtext("site") == "example.org"
    errors = [json.loads(line) for line in (out / "_errors.jsonl").read_text().splitlines()]
    assert [(e["id"], e["error"].split(":")[0]) for e in errors] == [("gone", "read")]


def test_each_page_is_on_disk_before_the_next_one_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    on_disk: list[tuple[int, int]] = []
    original = runner.load_method

    def method(name: str) -> runner.PageMethod:
        combined = original(name)

        def watched(page: Page) -> runner.Extracted:
            texts = len(list(out.glob("*.txt")))
            on_disk.append((texts, len(records(out))))
            return combined(page)

        return watched

    monkeypatch.setattr(runner, "load_method", method)
    lines = [json.dumps({"id": str(i), "html": "a.html"}) for i in range(3)]
    manifest = write_manifest(tmp_path / "set", *lines)
    # One worker reads a page after the last is written (more read ahead: test_batch_workers).
    assert run_batch(capsys, str(manifest), "--out", str(out), "--workers", "1")[0] == 0
    assert on_disk == [(0, 0), (1, 1), (2, 2)]


def test_a_page_too_complex_to_parse_is_a_failure_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from newsextract.extraction.pagemodel.page import parse_page

    def parse(body: bytes, url: str | None = None, *args: Any) -> Page:
        if b"BOMB" in body:
            raise PageTooComplexError("tags", 2_000_000, 1_000_000)
        return parse_page(body, url, *args)

    monkeypatch.setattr(runner, "parse_page", parse)
    folder = tmp_path / "set"
    lines = [
        json.dumps({"id": "good", "html": "a.html"}),
        json.dumps({"id": "bomb", "html": "b.html"}),
    ]
    manifest = write_manifest(folder, *lines)
    (folder / "b.html").write_text("<html><body>BOMB</body></html>", encoding="utf-8")
    out = tmp_path / "out"
    code, err = run_batch(capsys, str(manifest), "--out", str(out))
    assert code == 1
    assert err.splitlines()[-1] == f"2 pages, 1 failed -> {out}"
    (error,) = [json.loads(line) for line in (out / "_errors.jsonl").read_text().splitlines()]
    assert error["id"] == "bomb"
    assert error["error"] == ("page too complex: 2,000,000 tags, more than the limit of 1,000,000")
    assert len(records(out)) == 1


def test_a_page_without_main_text_is_a_failure_as_in_a_crawl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "empty.html").write_text("<html><body><p></p></body></html>", encoding="utf-8")
    out = tmp_path / "out"
    assert run_batch(capsys, str(folder), "--out", str(out))[0] == 1
    (error,) = [json.loads(line) for line in (out / "_errors.jsonl").read_text().splitlines()]
    assert (error["id"], error["error"]) == ("empty", "no main text found")
    assert records(out) == []


# -- Ctrl-C -------------------------------------------------------------------------------------


def test_sigint_stops_cleanly_and_keeps_the_pages_done(tmp_path: Path) -> None:
    pages = 3000
    lines = [json.dumps({"id": f"p{i:04d}", "html": "a.html"}) for i in range(pages)]
    manifest = write_manifest(tmp_path / "set", *lines)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "newsextract.cli", "batch", str(manifest), "--out", str(out)]
    process = subprocess.Popen(
        [*command, "--format", "xml", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(out.glob("*.txt"))) < 5 and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    line = one_line(err)
    assert line.startswith("newsextract batch: interrupted after ")
    done = int(line.split("interrupted after ")[1].split()[0])
    assert 5 <= done < pages
    assert len(list(out.glob("*.txt"))) == done
    root = etree.parse(str(out / "_articles.xml")).getroot()  # a closed, well-formed document
    assert len(root.findall("item")) == done

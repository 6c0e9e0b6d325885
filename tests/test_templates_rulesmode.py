"""Rules mode of the batch command: stored rules on the light page, as a later crawl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from newsextract.cli import main
from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.extraction import extract_article, parse_page
from newsextract.templates import rulesmode
from newsextract.templates.rulesmode import extract_rules_mode
from newsextract.templates.site import SiteTemplates


@pytest.fixture(scope="module")
def entries(shared_data: Path) -> list[ManifestEntry]:
    """cnn.com's 2009 and 2017 pages and two foxnews.com pages, in manifest order."""
    chosen = []
    for entry in read_manifest(shared_data / "msv_big9_dev"):
        site, year = entry.fields["site"], entry.fields["year"]
        if (site == "cnn.com" and year in ("2009", "2017")) or (
            site == "foxnews.com" and year == "2009" and entry.id.endswith("_1")
        ):
            chosen.append(entry)
    return chosen


@pytest.fixture(scope="module")
def rules_dir(entries: list[ManifestEntry], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Rules of cnn.com learned from four of its 2009 pages and saved."""
    folder = tmp_path_factory.mktemp("rules")
    learning = [e for e in entries if e.fields["site"] == "cnn.com" and e.fields["year"] == "2009"]
    pages = [parse_page(e.read_html(), e.url) for e in learning[:4]]
    assert SiteTemplates("cnn.com", folder).learn(pages) is not None
    return folder


def test_pages_get_the_answer_of_the_full_path_in_manifest_order(
    entries: list[ManifestEntry], rules_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    light_answers = []
    extract_raw = SiteTemplates.extract_raw

    def counting(self: SiteTemplates, *args: object, **kw: object) -> object:
        found = extract_raw(self, *args, **kw)  # type: ignore[arg-type]
        light_answers.append(found is not None)
        return found

    monkeypatch.setattr(SiteTemplates, "extract_raw", counting)
    outcomes = extract_rules_mode(entries, group_by="site", rules_dir=rules_dir)
    assert [o.entry.id for o in outcomes] == [e.id for e in entries]
    assert all(o.error is None for o in outcomes)
    stored = SiteTemplates("cnn.com", rules_dir)
    for outcome in outcomes:
        page = parse_page(outcome.entry.read_html(), outcome.entry.url)
        full = stored.extract(page) if outcome.entry.fields["site"] == "cnn.com" else None
        assert outcome.body == (full or extract_article(page)).body
    methods = {o.entry.fields["year"]: set() for o in outcomes}
    for o in outcomes:
        methods[o.entry.fields["year"]].add((o.entry.fields["site"], o.method))
    assert ("cnn.com", "rules") in methods["2009"]
    assert all(method != "rules" for site, method in methods["2009"] if site == "foxnews.com")
    assert sum(light_answers) >= 9  # the 2009 pages, from the light page
    assert len(light_answers) == sum(o.entry.fields["site"] == "cnn.com" for o in outcomes)


def test_without_rules_every_page_gets_single_mode(entries: list[ManifestEntry]) -> None:
    outcomes = extract_rules_mode(entries[:3], group_by="site", rules_dir=None)
    assert all(o.method != "rules" and o.body for o in outcomes)


def test_a_failing_page_is_an_error_outcome_not_the_end_of_the_run(
    entries: list[ManifestEntry], rules_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(page: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(rulesmode, "extract_article", broken)
    foxnews = [e for e in entries if e.fields["site"] == "foxnews.com"]
    outcomes = extract_rules_mode(foxnews, group_by="site", rules_dir=rules_dir)
    assert [o.error for o in outcomes] == ["RuntimeError: boom"] * len(foxnews)


def test_the_batch_command_writes_what_rules_mode_gives(
    entries: list[ManifestEntry], rules_dir: Path, tmp_path: Path
) -> None:
    chosen = entries[:5]
    manifest = tmp_path / "manifest.jsonl"
    lines = [json.dumps({**e.fields, "html": str(e.html_path)}) for e in chosen]
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    argv = ["batch", str(manifest), "--out", str(out), "--mode", "rules", "--group-by", "site"]
    assert main([*argv, "--rules-dir", str(rules_dir), "--quiet"]) == 0
    expected = extract_rules_mode(chosen, group_by="site", rules_dir=rules_dir)
    for outcome in expected:
        written = (out / f"{outcome.entry.id}.txt").read_text(encoding="utf-8")
        assert written.strip("\n") == outcome.body.strip("\n")

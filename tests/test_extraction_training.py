"""Training's held-out measures: site-grouped folds and ``newsextract train --folds K``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from newsextract.cli import main
from newsextract.extraction import training
from newsextract.extraction.boosting import BoostingConfig
from newsextract.extraction.features import BlockTable
from newsextract.extraction.training import PageSample, site_folds

PARAGRAPH = (
    "The council voted on Tuesday to extend the night bus service through the winter, "
    "after a year in which late-evening ridership rose by almost a third."
)


def _sample(dataset: str, domain: str, page_id: str) -> PageSample:
    empty = np.zeros(0)
    table = BlockTable.__new__(BlockTable)  # site_folds reads only dataset and domain
    return PageSample(dataset, page_id, "en", domain, table, empty, empty, empty, (), "")


def test_site_folds_keep_a_site_whole_and_split_every_set_evenly() -> None:
    samples = [_sample("news", f"site{i % 9}.example", str(i)) for i in range(45)]
    samples += [_sample("mixed", f"page{i}.example", f"m{i}") for i in range(31)]
    samples += [_sample("mixed", "site0.example", "shared")]  # one site in two sets
    folds = site_folds(samples, 3)
    assert folds == site_folds(samples, 3)  # reproducible
    by_site: dict[str, set[int]] = {}
    for sample, fold in zip(samples, folds, strict=True):
        by_site.setdefault(sample.domain, set()).add(fold)
    assert all(len(seen) == 1 for seen in by_site.values())
    news = Counter(f for s, f in zip(samples, folds, strict=True) if s.dataset == "news")
    mixed = Counter(f for s, f in zip(samples, folds, strict=True) if s.dataset == "mixed")
    assert sorted(news.values()) == [15, 15, 15]  # nine sites of five pages: three a fold
    assert max(mixed.values()) - min(mixed.values()) <= 1
    assert set(site_folds(samples, 2)) == {0, 1}


def _article(paragraphs: int) -> str:
    body = "".join(f"<p>{PARAGRAPH} Paragraph {i}.</p>" for i in range(paragraphs))
    return (
        "<html><head><title>Night buses extended</title></head><body>"
        '<ul class="menu"><li><a href="/">Home</a></li><li><a href="/n">News</a></li></ul>'
        f'<div class="article-body"><h1>Night buses extended</h1>{body}</div>'
        '<div class="footer">Copyright The Daily. All rights reserved.</div></body></html>'
    )


def _tiny_set(folder: Path, sites: int, pages_a_site: int = 2) -> None:
    (folder / "html").mkdir(parents=True)
    (folder / "text").mkdir()
    lines = []
    for i in range(sites * pages_a_site):
        (folder / "html" / f"{i}.html").write_text(_article(2 + i % 3), encoding="utf-8")
        gold = "\n".join(f"{PARAGRAPH} Paragraph {k}." for k in range(2 + i % 3))
        (folder / "text" / f"{i}.txt").write_text(gold, encoding="utf-8")
        domain = f"site{i // pages_a_site}.example"
        record = {"id": str(i), "url": None, "domain": domain, "lang": "en"}
        lines.append(json.dumps(record | {"html": f"html/{i}.html", "text": f"text/{i}.txt"}))
    (folder / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_train_folds_prints_every_set_and_writes_no_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(training, "LAYOUT_TREES", BoostingConfig(trees=8, depth=3, seed=1))
    monkeypatch.setattr(training, "CONTEXT_TREES", BoostingConfig(trees=5, depth=2, seed=2))
    _tiny_set(tmp_path / "data" / "first", 3)
    _tiny_set(tmp_path / "data" / "second", 2)
    out = tmp_path / "model.json"
    argv = ["train", "--data", str(tmp_path / "data"), "--sets", "first,second", "--out", str(out)]
    assert main([*argv, "--folds", "2", "--cross-fit", "1"]) == 0
    printed = capsys.readouterr().out
    assert "fold 2/2 scored" in printed
    assert "first: pages 6 k-fold F1 " in printed and "second: pages 4 k-fold F1 " in printed
    assert " in-sample F1 " in printed
    assert not out.exists()
    assert main([*argv, "--folds", "1"]) == 2


def test_train_folds_site_mode_reads_each_site_with_the_model_that_never_saw_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(training, "LAYOUT_TREES", BoostingConfig(trees=8, depth=3, seed=1))
    monkeypatch.setattr(training, "CONTEXT_TREES", BoostingConfig(trees=5, depth=2, seed=2))
    _tiny_set(tmp_path / "data" / "dragnet", 2, pages_a_site=5)  # two sites of 5+ pages
    _tiny_set(tmp_path / "data" / "first", 3)  # no site-mode row in the table
    argv = ["train", "--data", str(tmp_path / "data"), "--sets", "dragnet,first"]
    assert main([*argv, "--folds", "2", "--cross-fit", "1", "--site-mode"]) == 0
    printed = capsys.readouterr().out
    assert "dragnet: site mode on unseen sites, pages 10 F1 " in printed
    assert "single mode on them " in printed
    assert "first: site mode" not in printed

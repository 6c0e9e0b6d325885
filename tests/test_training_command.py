"""``newsextract train``: the model it writes, and its held-out measures (the generalisation
table of ``--holdout``, site-grouped folds of ``--folds K``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from newsextract.cli import main
from newsextract.cli import train as command
from newsextract.evaluation.gold import Gold
from newsextract.extraction.evidence.classifier import (
    ClassifierModel,
    first_stage_feature_names,
    model_arrays,
)
from newsextract.extraction.pagemodel.blocktable import BlockTable
from newsextract.training import fit
from newsextract.training.boosting import BoostingConfig
from newsextract.training.folds import site_folds
from newsextract.training.samples import PageSample

PARAGRAPH = (
    "The council voted on Tuesday to extend the night bus service through the winter, "
    "after a year in which late-evening ridership rose by almost a third."
)


def _sample(dataset: str, domain: str, page_id: str) -> PageSample:
    empty = np.zeros(0)
    table = BlockTable.__new__(BlockTable)  # site_folds reads only dataset and domain
    return PageSample(
        dataset, page_id, "en", domain, table, empty, empty, empty, (), Gold("", "en")
    )


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


def small_trees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small trees: the fixed cost of deep ones is not what these tests are about."""
    monkeypatch.setattr(fit, "LAYOUT_TREES", BoostingConfig(trees=8, depth=3, seed=1))
    monkeypatch.setattr(fit, "CONTEXT_TREES", BoostingConfig(trees=5, depth=2, seed=2))


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
    small_trees(monkeypatch)
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
    small_trees(monkeypatch)
    _tiny_set(tmp_path / "data" / "dragnet", 2, pages_a_site=5)  # two sites of 5+ pages
    _tiny_set(tmp_path / "data" / "first", 3)  # no site-mode row in the table
    argv = ["train", "--data", str(tmp_path / "data"), "--sets", "dragnet,first"]
    assert main([*argv, "--folds", "2", "--cross-fit", "1", "--site-mode"]) == 0
    printed = capsys.readouterr().out
    assert "dragnet: site mode on unseen sites, pages 10 F1 " in printed
    assert "single mode on them " in printed
    assert "first: site mode" not in printed


def test_train_command_is_reproducible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small_trees(monkeypatch)
    _tiny_set(tmp_path / "data" / "tiny", 4)
    outputs = [tmp_path / "a.json", tmp_path / "b.json"]
    for out in outputs:
        argv = ["train", "--data", str(tmp_path / "data"), "--sets", "tiny", "--out", str(out)]
        assert main(argv) == 0
    assert outputs[0].read_bytes() == outputs[1].read_bytes()
    arrays = [out.with_suffix(".arrays").read_bytes() for out in outputs]
    assert arrays[0] == arrays[1] == model_arrays(outputs[0].read_text(encoding="utf-8"))
    model = ClassifierModel.from_json(json.loads(outputs[0].read_text()))
    assert model.feature_names == first_stage_feature_names()
    assert "English" in model.stop_words.languages and "German" in model.stop_words.languages


def test_train_command_refuses_missing_sets(tmp_path: Path) -> None:
    assert main(["train", "--data", str(tmp_path), "--sets", "nothing"]) == 2


def test_train_command_refuses_to_write_the_json_where_its_arrays_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tiny_set(tmp_path / "data" / "tiny", 2)
    argv = ["train", "--data", str(tmp_path / "data"), "--sets", "tiny"]
    assert main([*argv, "--out", str(tmp_path / "model.arrays")]) == 2
    assert "--out names the JSON" in capsys.readouterr().err


def test_holdout_prints_the_generalisation_table_and_writes_no_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    small_trees(monkeypatch)
    for name in ("dragnet", "second"):
        _tiny_set(tmp_path / "data" / name, 3)
    out = tmp_path / "model.json"
    argv = [
        "train",
        "--data",
        str(tmp_path / "data"),
        "--sets",
        "dragnet,second",
        "--out",
        str(out),
    ]
    assert main([*argv, "--holdout", "--cross-fit", "1"]) == 0
    printed = capsys.readouterr().out
    table = printed[printed.rindex("set ") :].splitlines()
    assert table[0].split()[:5] == ["set", "pages", "left", "out", "by"]
    dragnet = next(line for line in table if line.startswith("dragnet "))
    assert dragnet.split()[1] == "6"  # pages
    assert "readability 0.909" in dragnet and dragnet.endswith("0.919")  # reference, target
    assert any(line.startswith("second ") for line in table)
    assert not out.exists()
    assert main([*argv, "--holdout", "second", "--cross-fit", "1"]) == 0
    printed = capsys.readouterr().out
    assert "dragnet " not in printed[printed.index("set ") :]
    assert main([*argv, "--holdout", "nothing"]) == 2


def test_train_writes_to_out_and_leaves_the_shipped_model_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    small_trees(monkeypatch)
    shipped = tmp_path / "package" / "classifier.json"  # stands for the package's model file
    shipped.parent.mkdir()
    shipped.write_text("{}", encoding="utf-8")
    monkeypatch.setattr(command, "INSTALLED_MODEL_PATH", shipped, raising=False)
    monkeypatch.setattr(command, "MODEL_PATH_DEFAULT", shipped, raising=False)
    _tiny_set(tmp_path / "data" / "tiny", 3)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    argv = ["train", "--data", str(tmp_path / "data"), "--sets", "tiny"]
    assert main(argv) == 0
    assert shipped.read_text(encoding="utf-8") == "{}"  # a trial run changes nothing shipped
    written = work / "classifier.json"
    assert ClassifierModel.from_json(json.loads(written.read_text())).feature_names
    assert f"wrote {Path('classifier.json')}" in capsys.readouterr().out
    assert main([*argv, "--install"]) == 0
    assert shipped.read_bytes() == written.read_bytes()
    assert shipped.with_suffix(".arrays").read_bytes() == (work / "classifier.arrays").read_bytes()
    assert "installed" in capsys.readouterr().out
    assert not list(shipped.parent.glob(".classifier.*"))  # no temporary file left


def test_install_is_refused_where_no_model_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tiny_set(tmp_path / "data" / "tiny", 2)
    argv = ["train", "--data", str(tmp_path / "data"), "--sets", "tiny", "--install"]
    assert main([*argv, "--folds", "2"]) == 2
    err = capsys.readouterr().err
    assert err == "newsextract train: --holdout and --folds write no model to --install\n"
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out", str(tmp_path / "m.json")])
    assert stop.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err

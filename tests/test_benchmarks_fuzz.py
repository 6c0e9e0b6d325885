"""The fuzz command (benchmarks/fuzz.py) runs, and a walk that differs from the oracle fails it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from lxml import etree

from newsextract.extraction.pagemodel.blocks import Block, split_blocks

FUZZ = Path(__file__).resolve().parent.parent / "benchmarks" / "fuzz.py"


def load_fuzz(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz", FUZZ)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fuzz", module)  # its dataclass looks its module up
    monkeypatch.setattr(sys, "path", list(sys.path))  # it puts the checkout on the path
    spec.loader.exec_module(module)
    return module


def without_last_block(
    root: etree._Element, hidden: set[etree._Element] | None
) -> tuple[Block, ...]:
    return split_blocks(root, hidden)[:-1]


def test_the_fuzz_reports_a_walk_that_differs_from_the_oracle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fuzz = load_fuzz(monkeypatch)
    monkeypatch.setattr(fuzz, "split_blocks", without_last_block)
    assert fuzz.main(["--pages", "20", "--data", str(tmp_path)]) == 1  # generated pages only
    output = capsys.readouterr().out
    assert "pages 20 " in output and "pages/s" in output
    assert "mismatches 0 " not in output
    assert "blocks, expected" in output

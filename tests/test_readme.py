"""The README's "Use from Python" examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks(section: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {section}\n")
    end = text.index("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], re.DOTALL)


def test_the_use_from_python_section_has_its_three_examples() -> None:
    assert len(python_blocks("Use from Python")) == 3


@pytest.mark.parametrize("number", [0, 1])
def test_an_api_example_runs(
    number: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # the site example saves its rules in rules/
    block = python_blocks("Use from Python")[number]
    exec(compile(block, f"README.md example {number + 1}", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    expected = [m.group(1).strip() for m in re.finditer(r"print\(.*\)\s+# (.*)", block)]
    assert expected and [line for line in printed if line in expected] == expected


def test_the_site_example_saves_its_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(python_blocks("Use from Python")[1], {})
    assert [p.name for p in (tmp_path / "rules").glob("*.rules.xml")] == ["demo.example.rules.xml"]


def test_the_add_on_example_names_the_add_on() -> None:
    block = python_blocks("Use from Python")[2]
    compile(block, "README.md example 3", "exec")  # a sketch of a project: it must parse
    assert 'ADDONS = {"newsextract.NewsExtract": 300}' in block
    assert "yield response" in block

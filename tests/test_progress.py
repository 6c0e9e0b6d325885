"""Progress of the long commands: a bar on a terminal, a plain line elsewhere, nothing quiet."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from newsextract.cli import main
from newsextract.extraction.evidence.classifier import default_model
from newsextract.progress import progress, track

PARAGRAPH = (
    "The council met on Tuesday evening to decide the future of the night bus service, which "
    "carried more passengers last winter than in any year since it began."
)


def _article(number: int) -> str:
    body = "".join(f"<p>{PARAGRAPH} Paragraph {k} of story {number}.</p>" for k in range(4))
    return (
        f"<html><head><title>Story {number} | The Daily</title></head><body>"
        '<ul class="menu"><li><a href="/">Home</a></li><li><a href="/n">News</a></li></ul>'
        f'<div class="article-body"><h1>Story {number}</h1>{body}</div>'
        '<div class="footer">Copyright The Daily. All rights reserved.</div></body></html>'
    )


def _pages(folder: Path, count: int = 3) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(count):
        path = folder / f"{number}.html"
        path.write_text(_article(number), encoding="utf-8")
        paths.append(path)
    return paths


def _scored_set(folder: Path, count: int = 3) -> Path:
    """A set with gold text, as eval and train read it."""
    lines = []
    for number, path in enumerate(_pages(folder / "html", count)):
        gold = "\n".join(f"{PARAGRAPH} Paragraph {k} of story {number}." for k in range(4))
        (folder / f"{number}.txt").write_text(gold, encoding="utf-8")
        record = {"id": str(number), "domain": "example.org", "lang": "en"}
        lines.append(json.dumps(record | {"html": f"html/{path.name}", "text": f"{number}.txt"}))
    (folder / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "manifest.jsonl"


# -- the module ---------------------------------------------------------------------------------


def test_without_a_terminal_a_line_is_printed_each_tenth_and_at_the_end() -> None:
    stream = io.StringIO()
    with progress(20, "pages", stream=stream, every_seconds=float("inf")) as bar:
        for _ in range(20):
            bar.update()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("2/20 pages, ") and " pages/s, about " in lines[0]
    assert lines[0].endswith(" left")
    assert lines[-1].startswith("20/20 pages, ") and ", done in " in lines[-1]


def test_without_a_terminal_a_line_is_printed_every_so_many_seconds() -> None:
    stream = io.StringIO()
    with progress(1000, "pages", label="combined", stream=stream, every_seconds=0.0) as bar:
        for _ in range(1000):
            bar.update()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1000
    assert lines[0].startswith("combined: 1/1000 pages, ")


def test_quiet_prints_nothing() -> None:
    stream = io.StringIO()
    assert list(track([1, 2, 3], quiet=True, stream=stream)) == [1, 2, 3]
    assert stream.getvalue() == ""


def test_an_unknown_total_counts_without_time_left() -> None:
    stream = io.StringIO()
    with progress(None, "pages", stream=stream, every_seconds=0.0) as bar:
        bar.update(5)
    assert stream.getvalue().startswith("5 pages, ") and "left" not in stream.getvalue()


# -- the commands -------------------------------------------------------------------------------


def test_batch_draws_a_bar_on_a_terminal(tmp_path: Path) -> None:
    _pages(tmp_path / "pages")
    command = [sys.executable, "-m", "newsextract.cli", "batch", str(tmp_path / "pages")]
    terminal, child_end = pty.openpty()
    rows_columns = struct.pack("HHHH", 24, 100, 0, 0)  # a new pty is 0 x 0: no room for a bar
    fcntl.ioctl(child_end, termios.TIOCSWINSZ, rows_columns)
    try:
        process = subprocess.Popen(
            [*command, "--out", str(tmp_path / "out")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=child_end,
        )
        os.close(child_end)
        drawn = _read_all(terminal)
        assert process.wait(timeout=120) == 0, drawn
    finally:
        os.close(terminal)
    assert "\r" in drawn and "3/3" in drawn and "pages/s" in drawn, drawn
    assert "100%|" in drawn, drawn


def _read_all(terminal: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the child closed its end (EIO on Linux)
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def test_batch_prints_plain_lines_without_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _pages(tmp_path / "pages")
    assert main(["batch", str(tmp_path / "pages"), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "3/3 pages, " in err and " pages/s" in err and "\r" not in err
    assert main(["batch", str(tmp_path / "pages"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert capsys.readouterr().err.splitlines() == [f"3 pages, 0 failed -> {tmp_path / 'out'}"]


def test_eval_prints_plain_lines_unless_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", str(_scored_set(tmp_path / "set")), "--methods", "punctuation", "--json"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "punctuation: 3/3 pages, " in err and " pages/s" in err
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_induce_prints_plain_lines_unless_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = [str(path) for path in _pages(tmp_path / "pages")]
    argv = ["induce", *pages, "--out", str(tmp_path / "example.org.rules.xml")]
    main(argv)  # whether a template is found is not what this test is about
    assert "3/3 pages, " in capsys.readouterr().err
    main([*argv, "--quiet"])
    assert "pages/s" not in capsys.readouterr().err


def test_train_prints_plain_lines_unless_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The shipped model stands in for a trained one: train writes its JSON and its arrays.
    monkeypatch.setattr("newsextract.cli.train.fit_model", lambda samples, fit: default_model())
    _scored_set(tmp_path / "data" / "first")
    argv = ["train", "--data", str(tmp_path / "data"), "--sets", "first"]
    assert main([*argv, "--out", str(tmp_path / "model.json")]) == 0
    err = capsys.readouterr().err
    assert "reading: 3/3 pages, " in err and " pages/s" in err
    assert main([*argv, "--out", str(tmp_path / "model.json"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""

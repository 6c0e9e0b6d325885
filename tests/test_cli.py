"""The ``newsextract`` command itself: help a user can read, ``--version``, a bare call, and a
reader that goes away (``| head``)."""

from __future__ import annotations

import argparse
import gc
import re
import subprocess
import sys
from pathlib import Path

import pytest

from newsextract.cli import COMMANDS, build_parser, main

SPHINX_MARKUP = re.compile(r"``|:(func|class|mod|meth|attr|data|exc|obj):`")


def command_parser(name: str) -> argparse.ArgumentParser:
    parser = build_parser(name)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            sub: argparse.ArgumentParser = action.choices[name]
            return sub
    raise AssertionError("no subcommands")


@pytest.mark.parametrize("name", [None, *COMMANDS])
def test_help_is_plain_text_for_users(name: str | None) -> None:
    parser = build_parser() if name is None else command_parser(name)
    text = parser.format_help()
    assert not SPHINX_MARKUP.search(text), text
    assert "shared/data" not in text and "../" not in text  # nothing outside the project


@pytest.mark.parametrize("name", [n for n in COMMANDS if n != "demo"])  # demo: not ours to edit
def test_every_option_has_help_and_shows_its_default(name: str) -> None:
    parser = command_parser(name)
    formatter = parser._get_formatter()
    for action in parser._actions:
        assert action.help, f"{name} {action.option_strings or action.dest}: no help"
        shown = str(formatter._get_help_string(action)) % vars(action)
        has_default = action.default not in (None, False, argparse.SUPPRESS)
        if action.option_strings and has_default:
            assert "default" in shown, f"{name} {action.option_strings}: default not shown"


@pytest.mark.parametrize("name", [n for n in COMMANDS if n != "demo"])
def test_examples_stand_on_their_own_lines(name: str) -> None:
    text = command_parser(name).format_help()
    examples = text[text.index("examples:") :].splitlines()[1:]
    assert examples
    assert all(line.startswith("  ") and f"newsextract {name} " in line for line in examples)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_command_parsed_alone_is_parsed_as_among_the_others(name: str) -> None:
    alone = build_parser(name, alone=True)
    subparsers = next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction))
    assert list(subparsers.choices) == [name]
    assert subparsers.choices[name].format_help() == command_parser(name).format_help()


def test_help_before_a_command_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["-h", "extract"])
    printed = capsys.readouterr().out
    assert all(f"    {name} " in printed for name in COMMANDS)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert re.fullmatch(r"newsextract \S+\n", capsys.readouterr().out)


def test_a_bare_call_prints_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: newsextract") and all(name in out for name in COMMANDS)


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    paragraphs = "".join(
        f"<p>Paragraph {i} of a long report on the council budget, read by a pager.</p>"
        for i in range(6000)
    )
    page = tmp_path / "long.html"
    page.write_text(f"<html><body><article>{paragraphs}</article></body></html>")
    process = subprocess.Popen(
        [sys.executable, "-m", "newsextract.cli", "extract", str(page)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stdout.read(20)  # as `| head -c 20` does, then goes away
    process.stdout.close()
    _, err = process.communicate(timeout=120)
    assert "Traceback" not in err.decode() and "BrokenPipeError" not in err.decode()
    assert err == b""


def test_the_errors_doctests_pass() -> None:
    import doctest

    import newsextract.exceptions

    failures, tried = doctest.testmod(newsextract.exceptions)
    assert tried > 0 and failures == 0


def test_the_command_s_own_process_freezes_what_importing_the_command_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = str(tmp_path / "missing.html")
    frozen = gc.get_freeze_count()
    assert main(["extract", missing]) == 2  # a caller's process: left as it is
    assert gc.get_freeze_count() == frozen
    monkeypatch.setattr(sys, "argv", ["newsextract", "extract", missing])
    try:
        assert main() == 2
        assert gc.isenabled() and gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()

"""The ``newsextract`` command: extraction, evaluation, templates and the offline demo.

One module of this package a command, imported only when that command runs; the library
never imports them. Each command module has ``add_arguments(parser)`` and ``run(args)``, and
``DESCRIPTION`` and ``EPILOG`` (examples) for its ``--help``, written for users: plain text,
no Sphinx markup, nothing outside the project. A module without them gets its docstring,
markup removed.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

DESCRIPTION = """\
Extract news articles from saved pages, score extraction against gold text, learn and apply
a site's extraction rules, train the block classifier, or watch a whole crawl offline. Sites
are crawled with Scrapy: scrapy crawl SPIDER (see the README)."""

EPILOG = """\
examples:
  newsextract extract page.html
  newsextract batch saved-pages/ --out out/
  newsextract demo

newsextract COMMAND --help shows a command's options."""

# command name -> (module, help). Only the chosen command's module is imported, so one
# command's dependencies never slow another.
COMMANDS: dict[str, tuple[str, str]] = {
    "extract": ("newsextract.cli.extract", "extract one saved page's article"),
    "batch": ("newsextract.cli.batch", "extract many saved pages into records"),
    "eval": ("newsextract.cli.eval", "score extraction against gold text"),
    "train": ("newsextract.cli.train", "train the block classifier (method E)"),
    "induce": ("newsextract.cli.induce", "learn extraction rules from pages"),
    "apply": ("newsextract.cli.apply", "apply saved rules to a page"),
    "show": ("newsextract.cli.show", "write an annotated view of a saved page"),
    "report": ("newsextract.cli.report", "write an HTML report of a crawl's data"),
    "demo": ("newsextract.cli.demo", "crawl a bundled site served on 127.0.0.1, offline"),
    "rules": ("newsextract.cli.rules", "move a shared crawl's rules to files and back"),
}
#: The exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Descriptions and examples laid out as written, and every option's default, unless
    its help already names it or there is none to show (a flag, an option left unset)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or not action.option_strings
            or default is None
            or default is False
            or default == argparse.SUPPRESS
        ):
            return text
        return f"{text} (default: %(default)s)"


_ROLE = re.compile(r":[a-z]+:`~?([^`<]+?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")


def plain(text: str) -> str:
    """Docstring text as a user reads it: Sphinx roles and literals become plain words.

    >>> plain("Runs ``scrapy crawl`` (:mod:`newsextract.cli.demo`).")
    'Runs scrapy crawl (newsextract.cli.demo).'
    """
    return _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text)).strip()


def version() -> str:
    import importlib.metadata  # only --version reads it: 10 ms of every command's start

    try:
        return importlib.metadata.version("newsextract")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


class VersionAction(argparse.Action):
    """``--version``, the installed version looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)
        self.help = "show the version and exit"

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit()


def build_parser(command: str | None = None, *, alone: bool = False) -> argparse.ArgumentParser:
    """The command line's parser, with ``command``'s own options; ``alone``: without the other
    commands (a command named first has no use for them, and they cost 1.4 ms of its start)."""
    parser = argparse.ArgumentParser(
        prog="newsextract", description=DESCRIPTION, epilog=EPILOG, formatter_class=HelpFormatter
    )
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if alone and name != command:
            continue
        sub = commands.add_parser(name, help=help_text, formatter_class=HelpFormatter)
        if name == command:
            module = importlib.import_module(module_name)
            sub.description = getattr(module, "DESCRIPTION", None) or plain(module.__doc__ or "")
            sub.epilog = getattr(module, "EPILOG", None)
            module.add_arguments(sub)
            sub.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in arguments if not arg.startswith("-")), None)
    try:
        with _start_up(own_process=argv is None):
            parser = build_parser(command, alone=command in COMMANDS and arguments[0] == command)
        if not arguments:
            parser.print_help()
            return 0
        args = parser.parse_args(arguments)
        code: int = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        return _reader_went_away()
    except KeyboardInterrupt:
        print(f"newsextract {command or ''}: interrupted".replace(" :", ":"), file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


@contextmanager
def _start_up(own_process: bool) -> Iterator[None]:
    """Importing a command makes objects that live as long as the process (modules, classes,
    numpy's and lxml's too). In a process of the command's own, the cyclic collector is kept
    off while they are made and then never walks them again, at exit neither (``gc.freeze``):
    8 ms of a one-page ``extract``'s 0.16 s. A caller's process (``argv`` given) is left as
    it is."""
    if not own_process or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _reader_went_away() -> int:
    """The reader of standard output went away (``newsextract extract page.html | head``):
    end quietly. Standard output is pointed at devnull so that Python's own flush at exit
    does not fail again (the recipe of the Python documentation, ``signal`` module notes)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1

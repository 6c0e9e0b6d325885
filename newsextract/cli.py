"""The ``newsextract`` command: extraction, evaluation, templates and the offline demo."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# command name -> (module, help); each module has ``add_arguments(parser)`` and ``run(args)``.
# Only the chosen command's module is imported, so one command's dependencies never slow another.
COMMANDS: dict[str, tuple[str, str]] = {
    "extract": ("newsextract.evaluation.extract_command", "extract one page's article"),
    "batch": ("newsextract.evaluation.batch_command", "extract every page of a manifest"),
    "eval": ("newsextract.evaluation.eval_command", "score extraction against gold text"),
    "train": ("newsextract.training.command", "train the block classifier (method E)"),
    "induce": ("newsextract.templates.induce_command", "learn extraction rules from pages"),
    "apply": ("newsextract.templates.apply_command", "apply saved rules to a page"),
    "demo": ("newsextract.demo", "crawl a bundled site served on 127.0.0.1, offline"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="newsextract", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        sub = commands.add_parser(name, help=help_text)
        if name == command:
            module = importlib.import_module(module_name)
            sub.description = module.__doc__
            module.add_arguments(sub)
            sub.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in arguments if not arg.startswith("-")), None)
    args = build_parser(command).parse_args(arguments)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())

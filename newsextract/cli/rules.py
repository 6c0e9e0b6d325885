"""Move the learned rules between Redis (shared mode) and a rules folder.

newsextract rules export DIR [--redis URL]; newsextract rules import DIR [--redis URL]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import redis

from newsextract.exceptions import RuleFileError
from newsextract.sharedmode.connection import (
    KEY_PREFIX_DEFAULT,
    REDIS_URL_SETTING,
    SharedModeError,
    connect,
)
from newsextract.sharedmode.rules import RedisRuleStore
from newsextract.templates.rulefiles import (
    HISTORY_SUFFIX,
    RULES_SUFFIX,
    atomic_write,
    file_key,
    history_file,
    site_file,
)
from newsextract.templates.store import parse_rules, read_bounded

T = TypeVar("T")

DESCRIPTION = f"""\
Copy the extraction rules of a shared crawl (and each site's history) from Redis into a
rules folder, to read them, edit them by hand or keep a backup; or copy the files of a rules
folder into Redis, where every crawl worker uses them from its next page on.

The files are those of a crawl without Redis: SITE{RULES_SUFFIX} and SITE{HISTORY_SUFFIX}
(see RULES.md). A version edited by hand stays in force after import: learning never
replaces it. Import replaces the rules of each site it finds in the folder, checked as a
crawl checks them; a bad file is named, left out, and the others are imported.

Exit status: 0 done, 1 Redis cannot be reached, 2 a file or a site's rules were refused
(the others were copied)."""

EPILOG = f"""\
examples:
  newsextract rules export rules-backup/
  newsextract rules import rules-backup/ --redis redis://localhost:6379/1
  {REDIS_URL_SETTING}=redis://localhost:6379/0 newsextract rules export rules/
"""

#: The status of a run where some file or site was refused, as argparse's usage errors.
EXIT_REFUSED = 2
EXIT_UNREACHABLE = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=("export", "import"),
        help="export: Redis to files; import: files to Redis",
    )
    parser.add_argument("folder", type=Path, help="the rules folder")
    parser.add_argument(
        "--redis",
        default=os.environ.get(REDIS_URL_SETTING, ""),
        help=f"the Redis of the crawl (default: the environment variable {REDIS_URL_SETTING})",
    )
    parser.add_argument(
        "--prefix",
        default=os.environ.get("NEWSEXTRACT_REDIS_PREFIX") or KEY_PREFIX_DEFAULT,
        help="the crawl's key prefix in Redis (NEWSEXTRACT_REDIS_PREFIX)",
    )


def run(args: argparse.Namespace) -> int:
    name = f"newsextract rules {args.action}"
    if not args.redis:
        print(f"{name}: no Redis: give --redis URL or set {REDIS_URL_SETTING}", file=sys.stderr)
        return EXIT_REFUSED
    try:
        store = RedisRuleStore(connect(args.redis), args.prefix)
        moved, refused = (export if args.action == "export" else import_)(store, args.folder)
    except SharedModeError as error:
        print(f"{name}: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except OSError as error:
        print(f"{name}: {args.folder}: {error}", file=sys.stderr)
        return EXIT_REFUSED
    for problem in refused:
        print(f"{name}: {problem}", file=sys.stderr)
    print(f"{name}: {moved} site(s), {len(refused)} refused")
    return EXIT_REFUSED if refused else 0


def export(store: RedisRuleStore, folder: Path) -> tuple[int, list[str]]:
    """Write every site's rules and history as stored, byte for byte (a backup keeps even
    rules a crawl refuses, for a person to fix); such rules are named as refused."""
    folder.mkdir(parents=True, exist_ok=True)
    moved, refused = 0, []
    for site in _reaching(store.sites):
        try:
            data = _reaching(partial(store.rule_bytes, site))
        except RuleFileError as error:
            refused.append(f"{error} (not exported)")
            continue
        if data is not None:
            atomic_write(site_file(folder, site), data)
            try:
                parse_rules(data, store.origin(site), site)
            except RuleFileError as error:
                refused.append(f"{error} (exported as it is)")
        moved += 1
        try:
            history = _reaching(partial(store.history_bytes, site))
        except RuleFileError as error:
            refused.append(f"{error} (not exported)")
            continue
        if history is not None:
            atomic_write(history_file(folder, site), history)
    return moved, refused


def import_(store: RedisRuleStore, folder: Path) -> tuple[int, list[str]]:
    """Store every rule file of the folder that a crawl would read (and each history beside
    it); a file refused is named and left out."""
    if not folder.is_dir():
        raise OSError("no such folder")
    moved, refused = 0, []
    for path in sorted(folder.glob(f"*{RULES_SUFFIX}")):
        try:
            site, data = _rule_file(path)
        except RuleFileError as error:
            refused.append(f"{error} (not imported)")
            continue
        _reaching(partial(store.put_rule_bytes, site, data))
        moved += 1
        history = history_file(folder, site)
        if history.exists():
            try:
                _reaching(partial(store.put_history_bytes, site, _history_file(history, site)))
            except RuleFileError as error:
                refused.append(f"{error} (not imported)")
    return moved, refused


def _rule_file(path: Path) -> tuple[str, bytes]:
    """The site a rule file holds and its bytes, checked as a crawl checks them: size,
    safe parsing, XPaths, and a file name that is the site's."""
    data = read_bounded(path)  # once: the bytes stored are the bytes checked
    versions = parse_rules(data, str(path))
    sites = {v.site for v in versions}
    if len(sites) != 1 or not next(iter(sites)):
        raise RuleFileError(f"{path}: no <site name> with a version of rules")
    site = sites.pop()
    if path.name != f"{file_key(site)}{RULES_SUFFIX}":
        raise RuleFileError(
            f"{path}: holds the rules of {site!r}, whose file is {file_key(site)}{RULES_SUFFIX}"
        )
    return site, data


def _history_file(path: Path, site: str) -> bytes:
    data = read_bounded(path)
    try:
        document = json.loads(data.decode("utf-8"))
    except ValueError as error:
        raise RuleFileError(f"{path}: not a history: {error}") from error
    named = document.get("site") if isinstance(document, dict) else None
    if named is not None and file_key(str(named)) != file_key(site):
        raise RuleFileError(f"{path}: holds the history of {named!r}, not of {site!r}")
    return data


def _reaching(call: Callable[[], T]) -> T:
    """The call's answer; a Redis that fails meanwhile is one SharedModeError."""
    try:
        return call()
    except redis.RedisError as error:
        raise SharedModeError(
            f"Redis failed ({type(error).__name__}: {error}); nothing after it was copied"
        ) from error

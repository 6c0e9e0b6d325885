"""The pages of a batch run and their outcomes, in the order the run writes them.

The pages come from a manifest, a folder of saved pages or a list on standard input
(:mod:`newsextract.evaluation.dataset`). Modes ``site`` and ``rules`` hand the pages to the
template stage: ``site`` learns each group's template from its pages
(:mod:`newsextract.templates.sitemode`, one group at a time), ``rules`` only applies the rules
saved in a rules folder, as a later crawl does (:mod:`newsextract.templates.rulesmode`).

The work is cut in units (:class:`Unit`) that a worker process can do alone: a run of consecutive
pages in single mode, one site's pages in the other two (a site's template is learned, or its
rules read, once). Each page has its position in the output, so that the outcomes of units
done in any order are written in the order of a run with one process.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from newsextract.batch import BatchError
from newsextract.evaluation import runner
from newsextract.evaluation.dataset import (
    ManifestEntry,
    ManifestError,
    group_entries,
    is_saved_page,
    manifest_path,
    read_manifest,
    read_page_folder,
    read_page_list,
)
from newsextract.evaluation.outcome import PageOutcome
from newsextract.exceptions import failure_reason

RULE_FILES = "*.rules.xml"  # newsextract.templates.store.site_file
#: Pages a unit of single mode: enough that a worker's answer outweighs its passing between
#: processes, few enough that the pages come back in a steady stream.
SINGLE_UNIT_PAGES = 16


def read_pages(source: str, stdin: TextIO) -> list[ManifestEntry]:
    """The pages of a manifest, of a folder of saved pages (without a manifest), or of the
    list on standard input (``-``); raise :class:`ManifestError` or :class:`BatchError`."""
    if source == "-":
        entries, empty = read_page_list(stdin), "the list on standard input names no page"
    elif Path(source).is_dir() and not manifest_path(source).exists():
        entries = read_page_folder(Path(source))
        empty = f"{source}: no manifest.jsonl and no saved pages (*.html, *.html.gz) here"
    elif is_saved_page(Path(source)):
        entries, empty = read_page_list([source], origin=source), ""
    else:
        entries, empty = list(read_manifest(source)), f"{manifest_path(source)}: no pages"
    if not entries:
        raise BatchError(empty)
    _check_unique_ids(entries)
    return entries


def _check_unique_ids(entries: Sequence[ManifestEntry]) -> None:
    """Two pages with one id would write one output file."""
    seen: dict[str, ManifestEntry] = {}
    for entry in entries:
        first = seen.setdefault(entry.id, entry)
        if first is not entry:
            raise ManifestError(f"{entry.origin}: id {entry.id!r} again (first: {first.origin})")


def mode_warnings(entries: Sequence[ManifestEntry], mode: str, group_by: str) -> list[str]:
    if mode == "site" and not any(entry.fields.get(group_by) for entry in entries):
        return [
            f"no page has the field {group_by!r} (--group-by): with no sites to learn from, "
            "every page is read alone, as in single mode"
        ]
    return []


@dataclass(frozen=True)
class Unit:
    """Pages that one worker reads together, with each page's position in the output."""

    mode: str
    entries: tuple[ManifestEntry, ...]
    positions: tuple[int, ...]
    group_by: str = "domain"
    rules_dir: Path | None = None

    def outcomes(self) -> Iterator[PageOutcome]:
        """The outcomes of the unit's pages, in the order of :attr:`positions`, one at a time
        (site mode: the site's all at once)."""
        if self.mode == "rules":
            return _rules_outcomes(self.entries, self.group_by, self.rules_dir)
        if self.mode == "site":
            return iter(_site_outcomes(self.entries, self.group_by, self.rules_dir))
        method = runner.load_method("combined")  # looked up at call time: tests replace it
        return (runner.extract_one(entry, method, "combined") for entry in self.entries)


def units(
    entries: Sequence[ManifestEntry], mode: str, group_by: str, rules_dir: Path | None
) -> list[Unit]:
    """The run's work, cut in units. What the mode needs is checked here, before the first
    page is read."""
    if mode == "single":
        return list(single_units(entries))
    groups = list(group_entries(entries, group_by).values())
    if mode == "rules":
        check_rules(entries, group_by, rules_dir)
        where = {id(entry): position for position, entry in enumerate(entries)}
        places = [tuple(where[id(entry)] for entry in members) for members in groups]
    else:  # site mode writes site after site
        ends = itertools.accumulate(len(members) for members in groups)
        places = [tuple(range(end - len(m), end)) for m, end in zip(groups, ends, strict=True)]
    return [
        Unit(mode, tuple(members), positions, group_by, rules_dir)
        for members, positions in zip(groups, places, strict=True)
    ]


def single_units(entries: Iterable[ManifestEntry]) -> Iterator[Unit]:
    """Single mode's units, made as the pages come (a web archive is read as it goes)."""
    pages = iter(entries)
    start = 0
    while chunk := tuple(itertools.islice(pages, SINGLE_UNIT_PAGES)):
        yield Unit("single", chunk, tuple(range(start, start + len(chunk))))
        start += len(chunk)


def in_order(done: Iterable[tuple[Unit, Iterable[PageOutcome]]]) -> Iterator[PageOutcome]:
    """The outcomes of units done in their order, each given as soon as those before it
    in the output are."""
    waiting: dict[int, PageOutcome] = {}
    following = 0
    for unit, outcomes in done:
        for position, outcome in zip(unit.positions, outcomes, strict=True):
            waiting[position] = outcome
            while following in waiting:
                yield waiting.pop(following)
                following += 1


def _site_outcomes(
    members: Sequence[ManifestEntry], group_by: str, rules_dir: Path | None
) -> list[PageOutcome]:
    extract_site_mode = load_site_mode()
    try:
        site_outcomes, _ = extract_site_mode(
            members, group_by=group_by, rules_dir=rules_dir, learn=True
        )
    except Exception as error:  # one site's failure must not end a long run
        reason = f"site mode failed on this site: {failure_reason(error)}"
        return [PageOutcome(entry, "", "site", 0.0, reason) for entry in members]
    return list(site_outcomes)


def check_rules(entries: Sequence[ManifestEntry], group_by: str, rules_dir: Path | None) -> None:
    """Rules mode can run: its folder holds rules for some of these pages' sites."""
    if rules_dir is None:
        raise BatchError("--mode rules needs --rules-dir, the folder of saved rules")
    if not rules_dir.is_dir():
        raise BatchError(f"--rules-dir {rules_dir}: no such folder")
    if not any(rules_dir.glob(RULE_FILES)):
        raise BatchError(f"--rules-dir {rules_dir}: no rules in this folder ({RULE_FILES})")
    if not any(_site_rules(key, rules_dir) for key in group_entries(entries, group_by)):
        raise BatchError(
            f"--rules-dir {rules_dir} has no rules for the sites of these pages "
            f"(their {group_by!r} field, --group-by)"
        )


def _site_rules(key: str, rules_dir: Path) -> Any:
    """The saved rules of one site, or None (a page alone, or a site without rules)."""
    from newsextract.templates.site import SiteTemplates

    if key.startswith("_single:"):
        return None
    templates = SiteTemplates(key, rules_dir)
    return templates if templates.has_rules() else None


def _rules_outcomes(
    members: Sequence[ManifestEntry], group_by: str, rules_dir: Path | None
) -> Iterator[PageOutcome]:
    """One site's pages read with its rules (``members`` share a group)."""
    from newsextract.templates.rulesmode import rules_outcome

    assert rules_dir is not None  # checked by units()
    sites: dict[str, Any] = {}

    def outcome(entry: ManifestEntry) -> PageOutcome:
        key = entry.group_key(group_by)
        if key not in sites:
            sites[key] = _site_rules(key, rules_dir)
        try:
            return rules_outcome(entry, sites[key])
        except Exception as error:  # one page's failure must not end a long run
            return PageOutcome(entry, "", "rules", 0.0, failure_reason(error))

    return (outcome(entry) for entry in members)


def load_site_mode() -> Callable[..., tuple[list[PageOutcome], Any]]:
    """``extract_site_mode`` of the template stage, imported only when a mode needs it."""
    from newsextract.templates.sitemode import extract_site_mode

    return extract_site_mode

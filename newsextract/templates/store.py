"""Versioned XML rule files, one a site, in a rules directory (schema: ``RULES.md``).

* Parsing is safe: no DTD loading, no entity expansion, no network, no huge trees; a file's
  size is checked before it is read; every XPath must fit the grammar of rules
  (:func:`~newsextract.templates.xpaths.is_rule_xpath`), in a file read as in one written.
* One file a site (:mod:`newsextract.templates.rulefiles` names it), which also holds the
  site's name: the rules of one site are never read as another's.
* Writes are atomic and serialised by a lock file, so two crawls writing one site's rules
  never corrupt them: each reads, changes and writes the file while holding the lock. Files
  are created as any program creates them (mode 0666 less the umask).
* A version a person edited (``edited="true"``, or a body whose ``hash`` no longer matches its
  content) is never overwritten and is preferred over induced ones.
"""

from __future__ import annotations

import hashlib
import json
import logging
import stat
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from lxml import etree

from newsextract.exceptions import NewsExtractError, RuleFileError
from newsextract.templates.rulefiles import (
    acquire_lock,
    atomic_write,
    file_key,
    history_file,
    legacy_site_file,
    lock_file,
    release_lock,
    site_file,
    sweep_stale_locks,
)
from newsextract.templates.rules import (
    BodyRule,
    FieldRule,
    RepeatingRule,
    RuleVersion,
    refused_xpaths,
)

logger = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
#: Rule and history files larger than this are refused before they are read (a site's rule
#: file holds a few kilobytes a version, its history a few hundred kilobytes).
MAX_RULE_FILE_BYTES_DEFAULT = 4_000_000
#: History records whose JSON is kept between two saves: a site saves its 50 latest every 25
#: pages, so half of each save was encoded by the one before (a few kilobytes a record).
HISTORY_RECORDS_KEPT_DEFAULT = 256
#: Retired versions of a page kind kept in its site's file, the newest: a site whose pages
#: mix two templates is re-learned on many crawls, and every version kept would grow the file
#: until it passed MAX_RULE_FILE_BYTES_DEFAULT and was refused (a version is a few kilobytes).
MAX_RETIRED_VERSIONS_DEFAULT = 50


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# -- reading ---------------------------------------------------------------------------------


class ForeignRuleFileError(RuleFileError):
    """A site's rule file names another site inside."""


def read_rule_file(path: Path, site: str | None = None) -> list[RuleVersion]:
    """Every version in a rule file, its size checked before it is read (``site``: the site
    the file must hold, when it is a site's file of the rules directory)."""
    return parse_rules(read_bounded(path), str(path), site)


def read_bounded(path: Path) -> bytes:
    """A file's bytes; RuleFileError for a file too large or not a regular file (a FIFO or a
    device would block or never end), decided before anything is read."""
    try:
        found = path.stat()
        if not stat.S_ISREG(found.st_mode):
            raise RuleFileError(f"{path}: not a regular file")
        if found.st_size > MAX_RULE_FILE_BYTES_DEFAULT:
            raise RuleFileError(
                f"{path}: rule file too large ({found.st_size:,} bytes, at most "
                f"{MAX_RULE_FILE_BYTES_DEFAULT:,})"
            )
        with path.open("rb") as handle:
            return handle.read(MAX_RULE_FILE_BYTES_DEFAULT + 1)  # it may grow meanwhile
    except OSError as error:
        raise RuleFileError(f"{path}: cannot be read: {error}") from error


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def parse_rules(data: bytes, origin: str = "rules", site: str | None = None) -> list[RuleVersion]:
    """Every version in a rule file; raise :class:`RuleFileError` for a bad or unsafe file
    (``site``: the site it must hold; a file that names another is refused)."""
    if len(data) > MAX_RULE_FILE_BYTES_DEFAULT:
        raise RuleFileError(f"{origin}: rule file too large")
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as error:
        raise RuleFileError(f"{origin}: not well-formed XML: {error}") from error
    if root.getroottree().docinfo.internalDTD is not None or _has_entities(root):
        raise RuleFileError(f"{origin}: a rule file may not declare a DTD or entities")
    if root.tag != "site":
        raise RuleFileError(f"{origin}: the root element must be <site>")
    name = root.get("name", "")
    if site is not None and name and file_key(name) != file_key(site):
        raise ForeignRuleFileError(f"{origin}: holds the rules of {name!r}, not of {site!r}")
    try:
        return [_checked(_read_version(name, element)) for element in root.iter("rules")]
    except (ValueError, TypeError) as error:
        raise RuleFileError(f"{origin}: {error}") from error


def _checked(version: RuleVersion) -> RuleVersion:
    """The version, or ValueError when an XPath of it is not one a rule may hold: it comes
    from a page's markup or a hand's edit, and could be code that runs for minutes."""
    refused = refused_xpaths(version)
    if refused:
        shown = refused[0] if len(refused[0]) <= 80 else refused[0][:77] + "..."
        raise ValueError(
            f"<rules kind={version.kind!r} version={version.number}>: {shown!r} is not an "
            "XPath a rule may hold (see RULES.md, 'XPaths')"
        )
    return version


def _has_entities(root: etree._Element) -> bool:
    return any(isinstance(el, etree._Entity) for el in root.iter())


def _read_version(site: str, element: etree._Element) -> RuleVersion:
    bodies = tuple(_read_body(b) for b in element.findall("body"))
    fields = tuple(_read_field(f) for f in element.findall("field"))
    listings = tuple(_read_listing(r) for r in element.findall("repeating"))
    version = RuleVersion(
        site=site,
        kind=element.get("kind", "article"),
        number=int(element.get("version", "1")),
        valid_from=element.get("validFrom", ""),
        valid_until=element.get("validUntil", ""),
        source=element.get("source", "induced"),
        bodies=bodies,
        fields=fields,
        listings=listings,
    )
    stated = element.get("hash")
    edited = element.get("edited") == "true" or (
        stated is not None and stated != rule_hash(version)
    )
    return replace(version, edited=edited)


def _read_body(element: etree._Element) -> BodyRule:
    return BodyRule(
        pivot=_required(element, "pivot"),
        path=element.get("path", "."),
        drops=tuple(d.get("path", "") for d in element.findall("drop") if d.get("path")),
        drop_texts=tuple(d.text or "" for d in element.findall("dropText") if d.text),
        max_link_density=float(element.get("maxLinkDensity", "0.5")),
        drop_repeated=element.get("dropRepeated", "false") == "true",
        drop_named=element.get("dropNamed", "true") != "false",
        pages=int(element.get("pages", "0")),
        min_chars=int(element.get("minChars", "0")),
        median_chars=int(element.get("medianChars", "0")),
    )


def _read_field(element: etree._Element) -> FieldRule:
    return FieldRule(
        name=_required(element, "name"),
        pivot=element.get("pivot", ""),
        path=element.get("path", "."),
        meta=element.get("meta", ""),
        in_body=element.get("inBody") == "true",
    )


def _read_listing(element: etree._Element) -> RepeatingRule:
    return RepeatingRule(
        pivot=_required(element, "pivot"),
        record=_required(element, "record"),
        fields=tuple(_read_field(f) for f in element.findall("field")),
    )


def _required(element: etree._Element, name: str) -> str:
    value = element.get(name)
    if not isinstance(value, str) or not value:
        raise ValueError(f"<{element.tag}> needs a {name} attribute (line {element.sourceline})")
    return value


# -- writing ---------------------------------------------------------------------------------


def rule_hash(version: RuleVersion) -> str:
    """A digest of what a version extracts: a mismatch on reading means a person edited it."""
    content = etree.Element("c")
    _write_rules_content(content, version)
    digest: str = hashlib.sha256(etree.tostring(content, method="c14n")).hexdigest()
    return digest[:16]


def render(site: str, versions: list[RuleVersion]) -> bytes:
    root = etree.Element("site", name=site, schema=SCHEMA_VERSION)
    root.text = "\n  "
    for version in versions:
        element = etree.SubElement(root, "rules", _version_attributes(version))
        _write_rules_content(element, version)
        element.tail = "\n  "
    etree.indent(root, space="  ")
    data: bytes = etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True)
    return data


def _version_attributes(version: RuleVersion) -> dict[str, str]:
    attributes = {
        "kind": version.kind,
        "version": str(version.number),
        "validFrom": version.valid_from,
        "validUntil": version.valid_until,
        "source": version.source,
    }
    if version.edited:
        attributes["edited"] = "true"
    else:
        attributes["hash"] = rule_hash(version)
    return attributes


def _write_rules_content(parent: etree._Element, version: RuleVersion) -> None:
    for body in version.bodies:
        element = etree.SubElement(parent, "body", pivot=body.pivot, path=body.path)
        element.set("maxLinkDensity", f"{body.max_link_density:g}")
        element.set("dropRepeated", "true" if body.drop_repeated else "false")
        element.set("dropNamed", "true" if body.drop_named else "false")
        for name, value in (
            ("pages", body.pages),
            ("minChars", body.min_chars),
            ("medianChars", body.median_chars),
        ):
            element.set(name, str(value))
        for path in body.drops:
            etree.SubElement(element, "drop", path=path)
        for text in body.drop_texts:
            etree.SubElement(element, "dropText").text = text
    for rule in version.fields:
        _write_field(parent, rule)
    for listing in version.listings:
        element = etree.SubElement(parent, "repeating", pivot=listing.pivot, record=listing.record)
        for rule in listing.fields:
            _write_field(element, rule)


def _write_field(parent: etree._Element, rule: FieldRule) -> None:
    element = etree.SubElement(parent, "field", name=rule.name)
    if rule.meta:
        element.set("meta", rule.meta)
    else:
        element.set("pivot", rule.pivot)
        element.set("path", rule.path)
    if rule.in_body:
        element.set("inBody", "true")


# -- what every store shares -------------------------------------------------------------


class LeaseBusyError(NewsExtractError):
    """Another worker is learning this site's rules of a kind now (shared mode)."""


class RuleStoreUnavailableError(NewsExtractError):
    """The store cannot be reached now (Redis away): the rules in hand are used meanwhile."""


class RuleStoreLike(Protocol):
    """What :class:`~newsextract.templates.site.SiteTemplates` needs of a store: the rules
    directory here, or Redis in shared mode (:mod:`newsextract.sharedmode.rules`)."""

    def load(self, site: str) -> list[RuleVersion]: ...
    def add_version(self, site: str, version: RuleVersion) -> RuleVersion: ...
    def load_history(self, site: str) -> list[dict[str, str]]: ...
    def save_history(self, site: str, records: list[dict[str, str]]) -> None: ...
    def revision(self, site: str) -> str | None:
        """A token that changes whenever the site's rules are written (None: never watched);
        cheap enough to ask before every page."""
        ...

    def lease(self, site: str, kind: str) -> AbstractContextManager[None]:
        """Held while this process learns the site's rules of a kind; raises
        :class:`LeaseBusyError` when another one holds it."""
        ...


def with_version(
    site: str, versions: list[RuleVersion], version: RuleVersion, saved: list[RuleVersion]
) -> list[RuleVersion]:
    """``versions`` with ``version`` added as the new one of its kind, the current one closed
    and the oldest retired past MAX_RETIRED_VERSIONS_DEFAULT dropped; unchanged when the
    current version was edited by a person or has the same rules. The version in force
    afterwards is appended to ``saved``."""
    same_kind = [v for v in versions if v.kind == version.kind]
    current = current_version(same_kind)
    if current is not None and (current.edited or current.same_rules(version)):
        saved.append(current)
        return versions
    stamp = now()
    number = max((v.number for v in same_kind), default=0) + 1
    new = replace(version, site=site, number=number, valid_from=stamp, valid_until="")
    closed = [
        replace(v, valid_until=stamp)
        if v.kind == version.kind and not v.valid_until and not v.edited
        else v
        for v in versions
    ]
    saved.append(new)
    return without_oldest_retired([*closed, new], version.kind)


def without_oldest_retired(
    versions: list[RuleVersion], kind: str, keep: int = MAX_RETIRED_VERSIONS_DEFAULT
) -> list[RuleVersion]:
    """``versions`` less the oldest retired ones of ``kind`` past the newest ``keep``; a
    version a person edited is never dropped."""
    retired = sorted(
        (v.number for v in versions if v.kind == kind and v.valid_until and not v.edited),
        reverse=True,
    )
    dropped = frozenset(retired[keep:])
    return [v for v in versions if v.kind != kind or v.number not in dropped]


def render_checked(site: str, versions: list[RuleVersion], origin: str) -> bytes:
    """The rule file of ``versions``; RuleFileError when an XPath of one is not one a rule
    may hold (it is never written)."""
    try:
        return render(site, [_checked(v) for v in versions])
    except ValueError as error:
        raise RuleFileError(f"{origin}: {error}") from error


def history_records(data: bytes, site: str, origin: str) -> list[dict[str, str]]:
    """The records of a site's history; a damaged one or another site's gives none, with a
    warning (it only costs re-induction its evidence)."""
    try:
        if len(data) > MAX_RULE_FILE_BYTES_DEFAULT:
            raise ValueError(f"history too large ({len(data):,} bytes)")
        document: Any = json.loads(data.decode("utf-8"))
    except ValueError as error:
        logger.warning("history of %s not used: %s: %s", site, origin, error)
        return []
    if isinstance(document, dict):  # {"site": ..., "records": [...]}; older versions: a list
        if file_key(str(document.get("site", ""))) != file_key(site):
            logger.warning("history of %s not used: %s holds another site's", site, origin)
            return []
        document = document.get("records")
    return [r for r in document if isinstance(r, dict)] if isinstance(document, list) else []


def history_bytes(site: str, records: list[dict[str, str]]) -> bytes:
    """``json.dumps({"site": site, "records": records}, ensure_ascii=False)`` in UTF-8, each
    record's JSON kept (bounded): a crawl writes the same recent records many times."""
    parts = ", ".join(_record_json(tuple(record.items())) for record in records)
    return f'{{"site": {json.dumps(site, ensure_ascii=False)}, "records": [{parts}]}}'.encode()


@lru_cache(maxsize=HISTORY_RECORDS_KEPT_DEFAULT)
def _record_json(items: tuple[tuple[str, str], ...]) -> str:
    return json.dumps(dict(items), ensure_ascii=False)


# -- the store -------------------------------------------------------------------------------


class RuleStore:
    """The rules directory: read a site's versions; change them under the site's lock."""

    def __init__(self, rules_dir: Path, file: Path | None = None) -> None:
        """``file``: one rule file given by path (``newsextract induce --out``) instead of
        the site's file in ``rules_dir``."""
        self.rules_dir = Path(rules_dir)
        self.file = file
        self._swept = False

    def path(self, site: str) -> Path:
        return self.file if self.file is not None else site_file(self.rules_dir, site)

    def load(self, site: str) -> list[RuleVersion]:
        return self._read(site)

    def _read(self, site: str) -> list[RuleVersion]:
        """The site's versions: from its file, else from the file an older version named it
        by, if that holds this site's rules (a shared one may hold another's)."""
        path = self.path(site)
        if self.file is not None:
            return read_rule_file(path) if path.exists() else []
        if path.exists():
            return read_rule_file(path, site)
        legacy = legacy_site_file(self.rules_dir, site)
        if legacy == path or not legacy.exists():
            return []
        try:
            versions = read_rule_file(legacy, site)
        except ForeignRuleFileError:
            return []  # the other site's, under the name they shared
        return versions if all(v.site for v in versions) else []  # it must name the site

    @contextmanager
    def _locked(self, site: str) -> Iterator[Path]:
        path = self.path(site)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self._swept:
            self._swept = True
            sweep_stale_locks(path.parent)
        lock = lock_file(path)
        handle = acquire_lock(lock, blocking=True)
        assert handle is not None
        try:
            yield path
        finally:
            release_lock(handle, lock)

    def update(
        self, site: str, change: Callable[[list[RuleVersion]], list[RuleVersion]]
    ) -> list[RuleVersion]:
        """Read, change and write a site's versions atomically under its lock; a version
        whose XPaths a rule may not hold is refused (RuleFileError), never written."""
        with self._locked(site) as path:
            versions = self._read(site)
            changed = change(list(versions))
            if changed != versions:
                atomic_write(path, render_checked(site, changed, str(path)))
            return changed

    def add_version(self, site: str, version: RuleVersion) -> RuleVersion:
        """Save a new version of a kind beside the old ones, closing the current one; a current
        version a person edited is kept current and the new one is not saved."""
        saved: list[RuleVersion] = []
        self.update(site, lambda versions: with_version(site, versions, version, saved))
        return saved[0]

    def load_history(self, site: str) -> list[dict[str, str]]:
        """Earlier results kept for re-induction (url, headline, body), oldest first."""
        path = history_file(self.rules_dir, site)
        if not path.exists():
            return []
        try:
            data = read_bounded(path)
        except RuleFileError as error:
            logger.warning("history of %s not used: %s", site, error)
            return []  # a damaged history only costs re-induction its evidence
        return history_records(data, site, str(path))

    def save_history(self, site: str, records: list[dict[str, str]]) -> None:
        # Not durable: rewritten every SAVE_HISTORY_EVERY_DEFAULT pages of a site, where an
        # fsync cost the stored-rules path a tenth of its time, and a history lost to a power
        # cut only costs re-induction its evidence (load_history reads a damaged one as none).
        with self._locked(site):
            data = history_bytes(site, records)
            atomic_write(history_file(self.rules_dir, site), data, durable=False)

    def revision(self, site: str) -> str | None:
        """A rules directory is read once a crawl: no revision to watch (see RuleStoreLike)."""
        return None

    @contextmanager
    def lease(self, site: str, kind: str) -> Iterator[None]:
        """Crawls sharing a rules directory may learn one site at once; the lock serialises
        their writes and the second writes nothing new when it learned the same rules."""
        yield


def current_version(versions: list[RuleVersion]) -> RuleVersion | None:
    """The version in force: a hand-edited one first, else the newest without an end date."""
    open_versions = [v for v in versions if not v.valid_until]
    for pool in ([v for v in open_versions if v.edited], open_versions):
        if pool:
            return max(pool, key=lambda v: v.number)
    return None

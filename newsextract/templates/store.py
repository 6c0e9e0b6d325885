"""Versioned XML rule files, one a site, in a rules directory (schema: ``RULES.md``).

* Parsing is safe: no DTD loading, no entity expansion, no network, no huge trees.
* Writes are atomic (a temporary file renamed over the old one) and serialised by a lock file,
  so two crawls writing one site's rules never corrupt them: each reads, changes and writes the
  file while holding the lock.
* A version a person edited (``edited="true"``, or a body whose ``hash`` no longer matches its
  content) is never overwritten and is preferred over induced ones.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from lxml import etree

from newsextract.exceptions import RuleFileError
from newsextract.templates.rules import BodyRule, FieldRule, RepeatingRule, RuleVersion

SCHEMA_VERSION = "1"
#: Rule files larger than this are refused (a site's file holds a few kilobytes a version).
MAX_RULE_FILE_BYTES_DEFAULT = 4_000_000
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def site_file(rules_dir: Path, site: str) -> Path:
    """The file holding one site's rules: its name made safe for any file system."""
    name = _UNSAFE_NAME.sub("_", site).strip("._") or "site"
    return rules_dir / f"{name}.rules.xml"


# -- reading ---------------------------------------------------------------------------------


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


def parse_rules(data: bytes, origin: str = "rules") -> list[RuleVersion]:
    """Every version in a rule file; raise :class:`RuleFileError` for a bad or unsafe file."""
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
    site = root.get("name", "")
    try:
        return [_read_version(site, element) for element in root.iter("rules")]
    except (ValueError, TypeError) as error:
        raise RuleFileError(f"{origin}: {error}") from error


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


# -- the store -------------------------------------------------------------------------------


class RuleStore:
    """The rules directory: read a site's versions; change them under the site's lock."""

    def __init__(self, rules_dir: Path, file: Path | None = None) -> None:
        """``file``: one rule file given by path (``newsextract induce --out``) instead of
        the site's file in ``rules_dir``."""
        self.rules_dir = Path(rules_dir)
        self.file = file

    def path(self, site: str) -> Path:
        return self.file if self.file is not None else site_file(self.rules_dir, site)

    def load(self, site: str) -> list[RuleVersion]:
        path = self.path(site)
        if not path.exists():
            return []
        return parse_rules(path.read_bytes(), str(path))

    @contextmanager
    def _locked(self, site: str) -> Iterator[Path]:
        path = self.path(site)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".lock"), "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield path
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def update(
        self, site: str, change: Callable[[list[RuleVersion]], list[RuleVersion]]
    ) -> list[RuleVersion]:
        """Read, change and write a site's versions atomically under its lock."""
        with self._locked(site) as path:
            versions = parse_rules(path.read_bytes(), str(path)) if path.exists() else []
            changed = change(list(versions))
            if changed != versions:
                _atomic_write(path, render(site, changed))
            return changed

    def add_version(self, site: str, version: RuleVersion) -> RuleVersion:
        """Save a new version of a kind beside the old ones, closing the current one; a current
        version a person edited is kept current and the new one is not saved."""
        saved: list[RuleVersion] = []

        def change(versions: list[RuleVersion]) -> list[RuleVersion]:
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
            return [*closed, new]

        self.update(site, change)
        return saved[0]

    def load_history(self, site: str) -> list[dict[str, str]]:
        """Earlier results kept for re-induction (url, headline, body), oldest first."""
        path = history_file(self.rules_dir, site)
        if not path.exists():
            return []
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            return []  # a damaged history only costs re-induction its evidence
        return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []

    def save_history(self, site: str, records: list[dict[str, str]]) -> None:
        with self._locked(site):
            data = json.dumps(records, ensure_ascii=False).encode("utf-8")
            _atomic_write(history_file(self.rules_dir, site), data)


def history_file(rules_dir: Path, site: str) -> Path:
    """Beside the rules: a bounded sample of earlier results of the site, for re-induction."""
    return site_file(rules_dir, site).with_suffix("").with_suffix(".history.json")


def current_version(versions: list[RuleVersion]) -> RuleVersion | None:
    """The version in force: a hand-edited one first, else the newest without an end date."""
    open_versions = [v for v in versions if not v.valid_until]
    for pool in ([v for v in open_versions if v.edited], open_versions):
        if pool:
            return max(pool, key=lambda v: v.number)
    return None


def _atomic_write(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

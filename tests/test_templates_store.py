"""Rule files: round trip, hand edits respected, hostile XML refused, concurrent writers."""

from __future__ import annotations

import multiprocessing
from dataclasses import replace
from pathlib import Path

import pytest

from newsextract.exceptions import RuleFileError
from newsextract.templates.rules import BodyRule, FieldRule, RepeatingRule, RuleVersion
from newsextract.templates.store import RuleStore, current_version, parse_rules, render, site_file


def version(pivot: str = "//div[@id='story']", kind: str = "article") -> RuleVersion:
    body = BodyRule(
        pivot,
        ".",
        (".//div[@class='share']",),
        ("Advertisement",),
        pages=3,
        min_chars=400,
        median_chars=900,
    )
    fields = (FieldRule("headline", "//h1", ".", in_body=True), FieldRule("authors", meta="author"))
    listing = RepeatingRule("//ul[@class='latest']", "li", (FieldRule("title", path=".//a"),))
    return RuleVersion("example.com", kind, 0, bodies=(body,), fields=fields, listings=(listing,))


def test_round_trip_keeps_every_rule() -> None:
    original = replace(version(), number=1, valid_from="2026-01-01T00:00:00+00:00")
    (read,) = parse_rules(render("example.com", [original]))
    assert read == original
    assert not read.edited


def test_new_version_closes_the_old_one(tmp_path: Path) -> None:
    store = RuleStore(tmp_path)
    first = store.add_version("example.com", version())
    second = store.add_version("example.com", version("//article"))
    again = store.add_version("example.com", version("//article"))
    versions = store.load("example.com")
    assert [v.number for v in versions] == [1, 2]
    assert versions[0].valid_until and not versions[1].valid_until
    assert (first.number, second.number, again.number) == (1, 2, 2)


def test_hand_edited_rule_wins_and_is_never_overwritten(tmp_path: Path) -> None:
    store = RuleStore(tmp_path)
    store.add_version("example.com", version())
    path = site_file(tmp_path, "example.com")
    edited_text = path.read_text().replace("//div[@id='story']", "//main")
    path.write_text(edited_text)  # a person changes the pivot but leaves the hash alone
    (loaded,) = store.load("example.com")
    assert loaded.edited and loaded.bodies[0].pivot == "//main"
    kept = store.add_version("example.com", version("//article"))
    assert kept.bodies[0].pivot == "//main"
    assert current_version(store.load("example.com")) == kept
    assert path.read_text().count("<rules ") == 1


def test_edited_attribute_marks_a_version_as_a_persons(tmp_path: Path) -> None:
    data = render("example.com", [version()]).replace(b"source=", b'edited="true" source=')
    (loaded,) = parse_rules(data)
    assert loaded.edited


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE site [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<site name="x"><rules kind="article" version="1"><body pivot="//p">
<dropText>&lol4;</dropText></body></rules></site>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE site [<!ENTITY secret SYSTEM "file:///etc/passwd">
<!ENTITY remote SYSTEM "http://127.0.0.1:9/rules.dtd">]>
<site name="x"><rules kind="article" version="1"><body pivot="//p">
<dropText>&secret;&remote;</dropText></body></rules></site>"""


@pytest.mark.parametrize("data", [BILLION_LAUGHS, EXTERNAL_ENTITY])
def test_hostile_rule_files_are_refused(data: bytes) -> None:
    with pytest.raises(RuleFileError):
        parse_rules(data)


@pytest.mark.parametrize("data", [b"<site", b"<other/>", b"<site><rules><body/></rules></site>"])
def test_malformed_rule_files_raise_rule_file_error(data: bytes) -> None:
    with pytest.raises(RuleFileError):
        parse_rules(data)


def _writer(rules_dir: str, worker: int) -> None:
    store = RuleStore(Path(rules_dir))
    for round_ in range(8):
        store.add_version("example.com", version(f"//div[@id='w{worker}r{round_}']"))


def test_concurrent_writers_never_corrupt_the_file(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(str(tmp_path), n)) for n in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    versions = RuleStore(tmp_path).load("example.com")
    assert sorted(v.number for v in versions) == list(range(1, 33))
    assert sum(1 for v in versions if not v.valid_until) == 1
    assert not list(tmp_path.glob("*.tmp"))

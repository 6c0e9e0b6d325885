"""Rule files: round trip, hand edits respected, hostile XML refused, concurrent writers, file
names that never collide, sizes checked before reading, files others can read, no lock left."""

from __future__ import annotations

import fcntl
import json
import logging
import multiprocessing
import os
import stat
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsextract.exceptions import RuleFileError
from newsextract.templates.rulefiles import (
    file_key,
    history_file,
    legacy_site_file,
    lock_file,
    site_file,
    sweep_stale_locks,
)
from newsextract.templates.rules import BodyRule, FieldRule, RepeatingRule, RuleVersion
from newsextract.templates.site import SiteTemplates
from newsextract.templates.store import (
    MAX_RETIRED_VERSIONS_DEFAULT,
    MAX_RULE_FILE_BYTES_DEFAULT,
    ForeignRuleFileError,
    RuleStore,
    current_version,
    history_bytes,
    parse_rules,
    render,
)


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


def test_a_site_relearned_on_every_crawl_keeps_its_newest_retired_versions(
    tmp_path: Path,
) -> None:
    store = RuleStore(tmp_path)
    pivots = ("//div[@id='story']", "//article")  # pages of two templates, learned in turn
    for turn in range(MAX_RETIRED_VERSIONS_DEFAULT + 10):
        store.add_version("example.com", version(pivots[turn % 2]))
    store.add_version("example.com", version(kind="listing"))
    versions = store.load("example.com")
    articles = [v.number for v in versions if v.kind == "article"]
    newest = MAX_RETIRED_VERSIONS_DEFAULT + 10
    assert articles == list(range(newest - MAX_RETIRED_VERSIONS_DEFAULT, newest + 1))
    assert current_version([v for v in versions if v.kind == "article"]).number == newest
    assert [v.number for v in versions if v.kind == "listing"] == [1]


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
    assert not list(tmp_path.glob("*.lock"))


# --- markup never becomes code: every XPath of a rule file fits the grammar of rules ------

#: What a page's tag name made of a pivot before names were quoted: 87 s on a 6,000-element page.
HOSTILE_PIVOT = "//x|descendant::*[count(following::*[count(following::*)>0])=1]|descendant::*"


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        ("pivot", HOSTILE_PIVOT),
        ("pivot", "//div[@id='a' or count(//*)>0]"),
        ("path", "following::p"),
        ("path", "../div"),
        ("drop", ".//div[@class='share']|//*"),
        ("field", "//h1[string-length(.)>0]"),
    ],
)
def test_a_rule_file_with_an_xpath_outside_the_grammar_is_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, attribute: str, value: str
) -> None:
    data = render("example.com", [version()]).decode()
    target = {
        "pivot": "pivot=\"//div[@id='story']\"",
        "path": 'path="."',
        "drop": "path=\".//div[@class='share']\"",
        "field": 'pivot="//h1"',
    }[attribute]
    assert target in data
    quoted = value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    replacement = target.split("=", 1)[0] + f'="{quoted}"'
    path = site_file(tmp_path, "example.com")
    path.write_text(data.replace(target, replacement, 1), encoding="utf-8")
    with pytest.raises(RuleFileError, match="not an XPath a rule may hold"):
        RuleStore(tmp_path).load("example.com")
    with caplog.at_level(logging.ERROR):
        templates = SiteTemplates("example.com", tmp_path)
    assert not templates.has_rules() and "not an XPath a rule may hold" in caplog.text


def test_rules_with_an_xpath_outside_the_grammar_are_never_written(tmp_path: Path) -> None:
    with pytest.raises(RuleFileError, match="not an XPath a rule may hold"):
        RuleStore(tmp_path).add_version("example.com", version(HOSTILE_PIVOT))
    assert not site_file(tmp_path, "example.com").exists()


def test_quoted_names_and_values_are_accepted() -> None:
    pivot = "//*[name()='o:p'][@class=concat('say \"it', \"'\", 's\"')]"
    (read,) = parse_rules(render("example.com", [version(pivot)]))
    assert read.bodies[0].pivot == pivot


# --- sizes are checked before a file is read -----------------------------------------------


def _peak_bytes_of(action: object) -> int:
    assert callable(action)
    tracemalloc.start()
    try:
        action()
    except RuleFileError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


def test_a_1_gb_rule_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = site_file(tmp_path, "example.com")
    with path.open("wb") as sparse:
        sparse.truncate(1_000_000_000)  # no disk used: a hole
    store = RuleStore(tmp_path)
    with pytest.raises(RuleFileError, match="too large"):
        store.load("example.com")
    assert _peak_bytes_of(lambda: store.load("example.com")) < 20_000_000


def test_a_rule_file_at_the_limit_is_read(tmp_path: Path) -> None:
    data = render("example.com", [version()])
    path = site_file(tmp_path, "example.com")
    path.write_bytes(data + b" " * (MAX_RULE_FILE_BYTES_DEFAULT - len(data)))
    assert len(RuleStore(tmp_path).load("example.com")) == 1
    path.write_bytes(data + b" " * (MAX_RULE_FILE_BYTES_DEFAULT - len(data) + 1))
    with pytest.raises(RuleFileError, match="too large"):
        RuleStore(tmp_path).load("example.com")


def test_a_rule_file_that_is_no_regular_file_is_refused(tmp_path: Path) -> None:
    os.mkfifo(site_file(tmp_path, "example.com"))  # opening it would wait for a writer
    with pytest.raises(RuleFileError, match="not a regular file"):
        RuleStore(tmp_path).load("example.com")


def test_an_oversized_history_is_left_unread(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with history_file(tmp_path, "example.com").open("wb") as sparse:
        sparse.truncate(1_000_000_000)
    store = RuleStore(tmp_path)
    with caplog.at_level(logging.WARNING):
        assert store.load_history("example.com") == []
    assert "too large" in caplog.text
    assert _peak_bytes_of(lambda: store.load_history("example.com")) < 20_000_000


def test_only_the_rules_wait_for_the_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    store = RuleStore(tmp_path)
    store.save_history("example.com", [{"url": "u", "headline": "h", "body": "b"}])
    assert synced == []  # rewritten every few pages; a lost one costs re-induction only
    store.add_version(
        "example.com", RuleVersion("example.com", "article", 0, bodies=(BodyRule("//article"),))
    )
    assert len(synced) == 1
    history_file(tmp_path, "example.com").write_bytes(b"")  # what a power cut may leave
    assert store.load_history("example.com") == []


# --- file names: one file a site, never shared -----------------------------------------------

SITES = [
    "example.com",
    "asahi.com",
    "朝日.jp",
    "毎日.jp",
    "ａ.jp",  # a full-width letter: IDNA would make it a.jp
    "a.jp",
    "a/b",
    "a b",
    "a_b",
    "a_2fb",
    "A.com",
    "a.com",
    ".a.com",
    "a.com.",
    "..",
    "",
    "_",
    "site",
    "x" * 300,
    "x" * 299 + "y",
]


def test_every_site_has_a_file_of_its_own() -> None:
    keys = [file_key(site) for site in SITES]
    assert len(set(keys)) == len(SITES), keys
    for key in keys:
        assert len((key + ".history.json").encode()) <= 255
        assert "/" not in key and not key.startswith(".") and key.isascii()


#: Characters that escapes, IDNA and the older naming could confuse.
TRICKY = st.text(alphabet="ab2f_/ .-~Aａ朝日\u00ad", max_size=8)


@settings(max_examples=300, deadline=None)
@given(TRICKY, TRICKY)
def test_two_names_share_a_file_only_when_they_are_one_name(first: str, second: str) -> None:
    assert (file_key(first) == file_key(second)) == (first == second)


def test_plain_host_names_keep_their_file_names(tmp_path: Path) -> None:
    for site in ("example.com", "asahi.com", "www.bbc.co.uk", "127.0.0.1", "news-site.org"):
        assert site_file(tmp_path, site) == legacy_site_file(tmp_path, site)
        assert site_file(tmp_path, site).name == f"{site}.rules.xml"
    assert site_file(tmp_path, "朝日.jp").name == "xn--wgvz0a.jp.rules.xml"


def test_two_international_hosts_keep_their_own_rules(tmp_path: Path) -> None:
    store = RuleStore(tmp_path)
    store.add_version("朝日.jp", version("//div[@id='asahi']"))
    store.add_version("毎日.jp", version("//div[@id='mainichi']"))
    store.add_version("a b", version("//div[@id='space']"))
    store.add_version("a/b", version("//div[@id='slash']"))
    assert [v.bodies[0].pivot for v in store.load("朝日.jp")] == ["//div[@id='asahi']"]
    assert [v.bodies[0].pivot for v in store.load("毎日.jp")] == ["//div[@id='mainichi']"]
    assert [v.bodies[0].pivot for v in store.load("a b")] == ["//div[@id='space']"]
    assert [v.bodies[0].pivot for v in store.load("a/b")] == ["//div[@id='slash']"]
    assert store.load("a_b") == []
    assert len(list(tmp_path.glob("*.rules.xml"))) == 4


def test_a_file_that_names_another_site_is_refused(tmp_path: Path) -> None:
    site_file(tmp_path, "a.example").write_bytes(render("b.example", [version()]))
    with pytest.raises(ForeignRuleFileError, match="holds the rules of 'b.example'"):
        RuleStore(tmp_path).load("a.example")


def test_a_shared_file_of_older_versions_is_read_only_by_its_own_site(tmp_path: Path) -> None:
    legacy = legacy_site_file(tmp_path, "朝日.jp")
    assert legacy.name == "jp.rules.xml" == legacy_site_file(tmp_path, "毎日.jp").name
    legacy.write_bytes(render("朝日.jp", [replace(version(), site="朝日.jp", number=1)]))
    store = RuleStore(tmp_path)
    assert [v.site for v in store.load("朝日.jp")] == ["朝日.jp"]
    assert store.load("毎日.jp") == []  # before: the rules of 朝日.jp
    store.add_version("朝日.jp", version("//article"))  # moves to its own file, history kept
    assert [v.number for v in store.load("朝日.jp")] == [1, 2]
    assert site_file(tmp_path, "朝日.jp").exists()


# --- files another account can read; lock files that do not pile up -----------------------


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.usefixtures("umask")
@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_rule_and_history_files_follow_the_umask(tmp_path: Path, mask: int, mode: int) -> None:
    os.umask(mask)
    store = RuleStore(tmp_path / "rules")
    store.add_version("example.com", version())
    store.save_history("example.com", [{"url": "u", "headline": "h", "body": "b"}])
    for path in (
        site_file(store.rules_dir, "example.com"),
        history_file(store.rules_dir, "example.com"),
    ):
        assert stat.S_IMODE(path.stat().st_mode) == mode, path
    assert store.load_history("example.com") == [{"url": "u", "headline": "h", "body": "b"}]


def test_no_lock_file_is_left_after_use(tmp_path: Path) -> None:
    store = RuleStore(tmp_path)
    store.add_version("example.com", version())
    store.save_history("example.com", [])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "example.com.history.json",
        "example.com.rules.xml",
    ]


def test_stale_lock_files_are_removed_and_held_ones_kept(tmp_path: Path) -> None:
    stale = [lock_file(site_file(tmp_path, site)) for site in ("old.example", "gone.example")]
    for lock in stale:
        lock.write_bytes(b"")  # left by an earlier version, or a crawl killed while writing
    held = lock_file(site_file(tmp_path, "busy.example"))
    handle = os.open(held, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        RuleStore(tmp_path).add_version("example.com", version())
        assert [p.name for p in tmp_path.glob("*.lock")] == ["busy.example.rules.lock"]
    finally:
        os.close(handle)
    assert sweep_stale_locks(tmp_path) == 1
    assert not list(tmp_path.glob("*.lock"))


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=20),
    st.lists(
        st.dictionaries(st.sampled_from(["url", "headline", "body", "x"]), st.text(), max_size=4),
        max_size=4,
    ),
)
def test_history_bytes_are_those_of_one_json_dump(site: str, records: list[dict[str, str]]) -> None:
    document = json.dumps({"site": site, "records": records}, ensure_ascii=False)
    try:
        expected = document.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: refused alike
        with pytest.raises(UnicodeEncodeError):
            history_bytes(site, records)
        return
    assert history_bytes(site, records) == expected
    assert history_bytes(site, records + records) == json.dumps(
        {"site": site, "records": records + records}, ensure_ascii=False
    ).encode("utf-8")  # the second time from the kept JSON


def test_a_history_of_another_site_is_not_used(tmp_path: Path) -> None:
    store = RuleStore(tmp_path)
    store.save_history("a.example", [{"url": "u"}])
    history_file(tmp_path, "a.example").rename(history_file(tmp_path, "b.example"))
    assert store.load_history("b.example") == []
    history_file(tmp_path, "b.example").write_text('[{"url": "v"}]', encoding="utf-8")
    assert store.load_history("b.example") == [{"url": "v"}]  # the list of older versions

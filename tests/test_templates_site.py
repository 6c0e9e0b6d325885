"""Induction, application, validation and re-induction through the SiteTemplates facade."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import pytest

from newsextract.cli import apply as apply_command
from newsextract.cli import induce as induce_command
from newsextract.evaluation.dataset import read_manifest
from newsextract.evaluation.metric import score_page
from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.templates.config import TemplateConfig
from newsextract.templates.induce import induce
from newsextract.templates.site import SiteTemplates
from newsextract.templates.store import parse_rules

WORDS = [
    "river",
    "council",
    "budget",
    "school",
    "storm",
    "market",
    "police",
    "harbour",
    "festival",
    "court",
    "train",
    "museum",
    "election",
    "garden",
    "factory",
    "report",
    "village",
    "bridge",
    "winter",
    "doctors",
]
TEMPLATE_ONLY = TemplateConfig(single_page_veto=False, combine_single=False)


def sentences(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(14, 30))).capitalize() + "."
        for _ in range(count)
    ]


def old_design(story: list[str], headline: str, related: list[str]) -> str:
    paragraphs = "".join(f"<p>{s}</p>" for s in story)
    teasers = "".join(f"<li><a href='/more'>{t}</a></li>" for t in related)
    return f"""<html><body><div id="nav"><a href="/">Home</a> <a href="/world">World</a>
    <a href="/sport">Sport</a></div><table><tr><td class="side">Weather: sunny spells</td>
    <td class="storybody"><h1>{headline}</h1><div class="share">Share this story</div>
    {paragraphs}<ul class="related">{teasers}</ul></td></tr></table>
    <div id="footer">Copyright the Example News Company. All rights reserved.</div></body></html>"""


def new_design(story: list[str], headline: str, related: list[str]) -> str:
    paragraphs = "".join(f"<div class='para'><span>{s}</span></div>" for s in story)
    teasers = "".join(f"<p><a href='/more'>{t}</a></p>" for t in related)
    return f"""<html><body><header><nav><a href="/">Home</a><a href="/news">News</a></nav>
    </header><main><article class="story"><h1 class="headline">{headline}</h1>
    <section class="article-body">{paragraphs}</section></article>
    <aside class="more">{teasers}</aside></main><footer>Example News 2017</footer></body></html>"""


def pages(design: object, count: int, seed: int = 0) -> list[tuple[Page, list[str]]]:
    made = []
    for n in range(count):
        story = sentences(seed + n, 6)
        related = sentences(1000 + seed + n, 2)
        html = design(story, f"Headline number {seed + n} about the town", related)  # type: ignore[operator]
        made.append((parse_page(html, f"https://example.com/news/{n}"), story))
    return made


def test_rules_reproduce_the_article_without_template_text() -> None:
    learned = pages(old_design, 4)
    site = SiteTemplates("example.com", None, TEMPLATE_ONLY)
    version = site.learn([p for p, _ in learned])
    assert version is not None and version.bodies[0].pivot == "//td[@class='storybody']"
    for page, story in learned:
        article = site.extract(page)
        assert article is not None and article.method == "rules"
        assert article.body.splitlines() == story  # the headline is a field, not body
        assert article.headline.startswith("Headline number")
        assert "Share this story" not in article.body
        assert article.rule_version == "example.com/article/v1"


def test_duplicate_pages_in_a_group_keep_their_content() -> None:
    learned = pages(old_design, 3)
    twin = parse_page(
        old_design(learned[0][1], "Headline number 0 about the town", []),
        "https://example.com/copy/0",
    )
    site = SiteTemplates("example.com", None, TEMPLATE_ONLY)
    assert site.learn([p for p, _ in learned] + [twin]) is not None
    article = site.extract(twin)
    assert article is not None and article.body.splitlines() == learned[0][1]


def test_redesign_triggers_reinduction_and_loses_no_record(tmp_path: Path) -> None:
    site = SiteTemplates("example.com", tmp_path, TEMPLATE_ONLY)
    old = pages(old_design, 4)
    site.learn([p for p, _ in old])
    first_bodies = [site.extract(p) for p, _ in old]
    assert all(a is not None for a in first_bodies)
    redesigned = pages(new_design, 4)  # the same stories at the same URLs, new layout
    results = [site.extract(p) for p, _ in redesigned]
    assert all(a is not None for a in results)
    for article, (_, story) in zip(results, redesigned, strict=True):
        assert article is not None and article.body.splitlines() == story
    versions = SiteTemplates("example.com", tmp_path).versions()
    assert [v.source for v in versions] == ["induced", "reinduced"]
    assert versions[0].valid_until and not versions[1].valid_until


def test_rules_from_another_design_fail_validation() -> None:
    site = SiteTemplates("example.com", None, TEMPLATE_ONLY)
    site.learn([p for p, _ in pages(old_design, 3)])
    ((page, _),) = pages(new_design, 1, seed=50)
    assert site.extract(page) is None
    assert "not found" in site.last_verdict.reason


def test_induce_and_apply_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = []
    for n, (page, _) in enumerate(pages(old_design, 3)):
        files.append(tmp_path / f"page{n}.html")
        files[-1].write_text(page.html)
    out = tmp_path / "example.rules.xml"
    assert (
        induce_command.run(
            argparse.Namespace(
                pages=files, out=out, site="", kind="article", template_only=True, quiet=True
            )
        )
        == 0
    )
    assert out.exists() and b"storybody" in out.read_bytes()
    arguments = argparse.Namespace(rules=out, page=files[1], kind="article", json=False)
    code = apply_command.run(arguments)
    assert code == 0
    assert "Headline number 1" in capsys.readouterr().out


@pytest.fixture(scope="module")
def bbc(shared_data: Path) -> dict[str, list[Page]]:
    by_year: dict[str, list[Page]] = {"2005": [], "2017": []}
    for entry in read_manifest(shared_data / "msv_big9_dev"):
        year = entry.fields.get("year", "")
        if entry.fields.get("site") == "bbc.co.uk" and year in by_year and len(by_year[year]) < 5:
            by_year[year].append(parse_page(entry.read_html(), entry.url))
    return by_year


def test_2005_and_2017_pages_give_different_rule_versions(
    bbc: dict[str, list[Page]], tmp_path: Path
) -> None:
    site = SiteTemplates("bbc.co.uk", tmp_path, TEMPLATE_ONLY)
    old = site.learn(bbc["2005"])
    new = site.learn(bbc["2017"])
    assert old is not None and new is not None
    assert (old.number, new.number) == (1, 2)
    assert not old.same_rules(new)
    assert new.bodies[0].pivot not in {b.pivot for b in old.bodies}
    assert new.bodies[1:] == old.bodies  # the 2005 template's region stays, after the new one
    assert all(site.extract(page) is not None for page in bbc["2005"] + bbc["2017"])
    assert [v.valid_until == "" for v in site.versions()] == [False, True]


def test_one_version_covers_both_designs_when_learned_together(
    bbc: dict[str, list[Page]], shared_data: Path
) -> None:
    both = bbc["2005"] + bbc["2017"]
    induction = induce(both, "bbc.co.uk", config=TEMPLATE_ONLY)
    assert induction.version is not None and len(induction.version.bodies) >= 2


def listing_page(seed: int) -> Page:
    titles = sentences(seed, 6)
    items = "".join(
        f"<li class='item'><a href='/news/{seed}-{n}'>{' '.join(t.split()[:6])}</a>"
        f"<span>{n} hours ago</span></li>"
        for n, t in enumerate(titles)
    )
    html = f"""<html><body><ul id="menu"><li><a href="/">Home</a></li><li><a href="/w">World</a>
    </li><li><a href="/s">Sport</a></li></ul><div id="latest"><ul class="headlines">{items}</ul>
    </div></body></html>"""
    return parse_page(html, f"https://example.com/section/{seed}")


def test_listing_pages_give_repeating_rules() -> None:
    site = SiteTemplates("example.com", None, TEMPLATE_ONLY)
    version = site.learn([listing_page(1), listing_page(2)], "listing")
    assert version is not None and len(version.listings) == 1
    rule = version.listings[0]
    assert rule.pivot == "//ul[@class='headlines']" and rule.record == "li[@class='item']"
    found = site.records(listing_page(3), "listing")
    assert len(found) == 6 and all(r.link.startswith("/news/3-") for r in found)
    assert site.extract(listing_page(3), "listing") is None  # no body rules for listings


def test_a_hand_edited_version_is_kept_by_learning_and_applied(tmp_path: Path) -> None:
    site = SiteTemplates("example.com", tmp_path, TEMPLATE_ONLY)
    learned = pages(old_design, 3)
    site.learn([p for p, _ in learned])
    path = tmp_path / "example.com.rules.xml"
    # a person widens the region to the whole table row, leaving the hash as it was
    path.write_text(path.read_text().replace("//td[@class='storybody']", "//table/tr"))
    again = SiteTemplates("example.com", tmp_path, TEMPLATE_ONLY)
    kept = again.learn([p for p, _ in learned])
    assert kept is not None and kept.edited and kept.bodies[0].pivot == "//table/tr"
    article = again.extract(learned[0][0])
    assert article is not None and article.body.startswith("Weather: sunny spells")
    assert len(again.versions()) == 1


def test_validation_thresholds() -> None:
    from newsextract.templates.rules import BodyRule
    from newsextract.templates.validate import ValidateConfig, validate_body

    rule = BodyRule("//p", min_chars=1000)
    config = ValidateConfig(min_size_share=0.25, min_body_chars=80)
    assert not validate_body(rule, 249, False, config).ok
    assert validate_body(rule, 250, False, config).ok
    assert not validate_body(rule, 250, True, config).ok  # the same body on another URL
    assert not validate_body(BodyRule("//p"), 79, False, config).ok
    assert validate_body(BodyRule("//p"), 80, False, config).ok


def write_manifest(folder: Path, design: object, count: int) -> Path:
    import json

    (folder / "html").mkdir(parents=True)
    (folder / "text").mkdir()
    lines = []
    for n, (page, story) in enumerate(pages(design, count)):
        (folder / "html" / f"{n}.html").write_text(page.html)
        (folder / "text" / f"{n}.txt").write_text("\n".join(story))
        record = {
            "id": str(n),
            "url": page.url,
            "domain": "example.com",
            "lang": "en",
            "html": f"html/{n}.html",
            "text": f"text/{n}.txt",
        }
        lines.append(json.dumps(record))
    manifest = folder / "manifest.jsonl"
    manifest.write_text("\n".join(lines) + "\n")
    return manifest


def test_site_mode_learns_saves_and_applies_saved_rules(tmp_path: Path) -> None:
    from newsextract.templates.sitemode import extract_site_mode

    entries = list(read_manifest(write_manifest(tmp_path / "data", old_design, 4)))
    rules_dir = tmp_path / "rules"
    outcomes, stats = extract_site_mode(entries, rules_dir=rules_dir, config=TEMPLATE_ONLY)
    assert [o.method for o in outcomes] == ["rules"] * 4
    assert stats.groups == 1 and len(stats.induction_seconds) == 1
    assert len(stats.application_seconds) == 4 and 0 < stats.reduction_ratios[0] < 1
    assert (rules_dir / "example.com.rules.xml").exists()
    again, stats = extract_site_mode(
        entries, rules_dir=rules_dir, learn=False, config=TEMPLATE_ONLY
    )
    assert [o.body for o in again] == [o.body for o in outcomes]
    assert stats.induction_seconds == []
    for outcome in again:
        gold = outcome.entry.read_gold()
        assert score_page(outcome.body, gold).recall == 1.0


def test_a_later_crawl_reinduces_from_the_saved_history(tmp_path: Path) -> None:
    first = SiteTemplates("example.com", tmp_path, TEMPLATE_ONLY)
    old = pages(old_design, 4)
    first.learn([p for p, _ in old])
    assert all(first.extract(p) is not None for p, _ in old)
    first.save_history()
    later = SiteTemplates("example.com", tmp_path, TEMPLATE_ONLY)  # a new process
    redesigned = pages(new_design, 2)
    for article, (_, story) in zip(
        [later.extract(p) for p, _ in redesigned], redesigned, strict=True
    ):
        assert article is not None and article.body.splitlines() == story
    assert later.current() is not None and later.current().source == "reinduced"  # type: ignore[union-attr]


def test_induce_adds_a_version_to_an_existing_rule_file(tmp_path: Path) -> None:
    out = tmp_path / "rules.xml"
    for design in (old_design, new_design):
        files = []
        for n, (page, _) in enumerate(pages(design, 3)):
            files.append(tmp_path / f"{design.__name__}{n}.html")  # type: ignore[attr-defined]
            files[-1].write_text(page.html)
        arguments = argparse.Namespace(
            pages=files,
            out=out,
            site="example.com",
            kind="article",
            template_only=True,
            quiet=True,
        )
        assert induce_command.run(arguments) == 0
    versions = parse_rules(out.read_bytes())
    assert [v.number for v in versions] == [1, 2] and versions[0].valid_until


def redesigned_listing(seed: int) -> Page:
    titles = sentences(seed, 6)
    cards = "".join(
        f"<div class='card'><h3><a href='/story/{seed}-{n}'>{' '.join(t.split()[:6])}</a></h3>"
        f"<p>Teaser text</p></div>"
        for n, t in enumerate(titles)
    )
    html = f"<html><body><nav><a href='/'>Home</a></nav><section id='river'>{cards}</section>"
    return parse_page(html + "</body></html>", f"https://example.com/section/{seed}")


def test_redesigned_listing_reinduces_its_repeating_rule() -> None:
    site = SiteTemplates("example.com", None, TEMPLATE_ONLY)
    site.learn([listing_page(1), listing_page(2)], "listing")
    before = site.records(listing_page(3), "listing")
    after = site.records(redesigned_listing(3), "listing")  # same titles, new layout
    assert [r.title for r in after] == [r.title for r in before]
    version = site.current("listing")
    assert version is not None and version.source == "reinduced"
    assert version.listings[0].pivot == "//section[@id='river']"
    assert version.listings[0].record == "div[@class='card']"


def test_a_broken_rule_file_is_neither_used_nor_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "example.com.rules.xml"
    path.write_text("<site name='example.com'><rules><body pivot=")  # a person's edit, cut off
    site = SiteTemplates("example.com", tmp_path, TEMPLATE_ONLY)
    assert not site.has_rules()
    assert site.learn([p for p, _ in pages(old_design, 3)]) is not None
    assert site.has_rules()  # learned, kept in memory
    assert path.read_text() == "<site name='example.com'><rules><body pivot="


def test_site_mode_trusts_the_template_only_where_it_agrees_with_single(tmp_path: Path) -> None:
    from dataclasses import replace

    from newsextract.templates.config import DEFAULT
    from newsextract.templates.sitemode import extract_site_mode

    entries = list(read_manifest(write_manifest(tmp_path / "data", old_design, 3)))
    trusting = replace(DEFAULT, single_page_veto=False, min_agreement=0.0)
    outcomes, _ = extract_site_mode(entries, config=trusting)
    assert {o.method for o in outcomes} == {"template+single"}
    doubting = replace(trusting, min_agreement=1.01)  # no site can agree this much
    outcomes, stats = extract_site_mode(entries, config=doubting)
    assert all(o.method.startswith("single") for o in outcomes)
    assert len(stats.application_seconds) == 3  # the rules were still applied and timed


def test_site_mode_reads_pages_with_the_single_page_answer_it_is_given(tmp_path: Path) -> None:
    from dataclasses import replace

    from newsextract.extraction.decision.combiner import CombinerConfig
    from newsextract.templates.config import DEFAULT
    from newsextract.templates.sitemode import extract_site_mode

    entries = list(read_manifest(write_manifest(tmp_path / "data", old_design, 3)))
    doubting = replace(DEFAULT, min_agreement=1.01)  # the single-page answers stand
    outcomes, _ = extract_site_mode(entries, config=doubting)
    assert all(o.body for o in outcomes)
    keeps_nothing = replace(doubting, single_page=CombinerConfig(threshold=2.0))
    outcomes, _ = extract_site_mode(entries, config=keeps_nothing)
    assert not any(o.body for o in outcomes)


def test_held_out_site_mode_measures_the_groups_of_the_site_group_table() -> None:
    from newsextract.evaluation.dataset import ManifestEntry
    from newsextract.training.sitemode import site_mode_entries

    def entry(set_name: str, number: int, **fields: str) -> tuple[tuple[str, str], ManifestEntry]:
        page_id = f"{set_name}-{number}"
        path = Path(page_id)
        return (set_name, page_id), ManifestEntry(page_id, None, path, path, "en", dict(fields))

    entries = dict(
        [entry("dragnet", n, domain="big.example") for n in range(5)]
        + [entry("dragnet", 9, domain="small.example")]
        + [entry("msv_big9_dev", n, site="cnn.com") for n in range(2)]
        + [entry("msv_big9_dev", 5, site="alone.example")]
        + [entry("cleaneval", n, domain="big.example") for n in range(5)]
    )
    measured = site_mode_entries(entries)
    assert sorted(measured) == ["dragnet", "msv_big9_dev"]  # cleaneval has no site-mode row
    assert [e.id for e in measured["dragnet"]] == [f"dragnet-{n}" for n in range(5)]
    assert [e.id for e in measured["msv_big9_dev"]] == ["msv_big9_dev-0", "msv_big9_dev-1"]

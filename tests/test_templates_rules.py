"""Applying a body rule: drops, named boxes, repeated teasers, markup shown as text; the
grammar of rule XPaths, which a page's markup never escapes."""

from __future__ import annotations

import time
from html import escape

import pytest
from lxml import etree

from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.templates.rules import (
    BodyRule,
    RuleVersion,
    apply_version,
    looks_like_markup,
    refused_xpaths,
    select,
    version_xpaths,
)
from newsextract.templates.site import SiteTemplates
from newsextract.templates.xpaths import candidates, is_rule_xpath, name_test, xpath_literal

STORY = "".join(
    f"<p>Paragraph {n} of the story tells what happened in the town today.</p>" for n in range(4)
)


def body(html: str, rule: BodyRule) -> list[str]:
    page = parse_page(f"<html><body><div id='main'>{html}</div></body></html>")
    applied = apply_version(RuleVersion("s", "article", 1, bodies=(rule,)), page)
    assert applied is not None
    return applied.body(page).splitlines()


def test_drop_paths_and_drop_texts() -> None:
    rule = BodyRule(
        "//div[@id='main']", drops=(".//div[@class='share']",), drop_texts=("Advertisement",)
    )
    lines = body(
        STORY + "<div class='share'><p>Share on every network now</p></div><p>Advertisement</p>",
        rule,
    )
    assert lines == [
        f"Paragraph {n} of the story tells what happened in the town today." for n in range(4)
    ]


def test_named_boxes_are_dropped_unless_they_hold_most_of_the_region() -> None:
    rule = BodyRule("//div[@id='main']")
    small = "<div class='comments'><p>I disagree with all of this, says a reader.</p></div>"
    assert len(body(STORY + small, rule)) == 4
    assert len(body(STORY + small, BodyRule("//div[@id='main']", drop_named=False))) == 5
    # the story itself sits in a box named "has-comments": it is the article after all
    wrapped = f"<div class='entry has-comments'>{STORY}</div><p>A short note.</p>"
    assert len(body(wrapped, rule)) == 5


def test_repeated_teasers_need_five_words() -> None:
    rule = BodyRule("//div[@id='main']", drop_repeated=True)
    five = "<p>Read more about the storm</p>" * 2
    four = "<p>Read about the storm</p>" * 2
    assert len(body(STORY + five, rule)) == 4
    assert len(body(STORY + four, rule)) == 6
    assert len(body(STORY + five, BodyRule("//div[@id='main']"))) == 6  # off by default


def test_markup_shown_as_text_is_dropped() -> None:
    code = '&lt;a href="https://ads.example/click?id=12345&amp;seg=1,2,3"&gt;&lt;img src="x"&gt;'
    assert len(body(STORY + f"<p>{code}</p>", BodyRule("//div[@id='main']"))) == 4
    assert looks_like_markup('<a href="https://ads.example/">')
    assert not looks_like_markup("Prices rose 3% <5% forecast> as expected by the bank today.")


def test_region_must_be_found_exactly_once() -> None:
    page = parse_page("<html><body><div class='a'>x</div><div class='a'>y</div></body></html>")
    version = RuleVersion("s", "article", 1, bodies=(BodyRule("//div[@class='a']"),))
    assert apply_version(version, page) is None


def test_combine_keeps_what_both_agree_on_and_the_head_above() -> None:
    from dataclasses import replace

    from newsextract.extraction.record.article import Article
    from newsextract.templates.combine import combine

    html = "<h1>Title of the story here</h1><div id='main'>" + STORY + "<p>Related: x</p></div>"
    page = parse_page(f"<html><body>{html}</body></html>")
    rules = Article(url=None, body="", method="rules", kept_blocks=(1, 2, 3, 4, 5))
    single = Article(url=None, body="", method="single", kept_blocks=(0, 1, 2, 3, 4))
    combined = combine(page, rules, single)
    assert combined.kept_blocks == (0, 1, 2, 3, 4) and combined.method == "template+single"
    assert combined.body.splitlines()[0] == "Title of the story here"
    missed = replace(single, kept_blocks=(0,))
    assert combine(page, rules, missed) is rules  # nothing agreed: the rules stand


def test_agreement_is_the_mean_f1_of_rules_against_single() -> None:
    from newsextract.templates.combine import agreement

    same = "one two three four five six"
    assert agreement([(same, same, "en")]) == 1.0
    assert agreement([(same, same, "en"), ("other words entirely here", same, "en")]) == 0.5
    assert agreement([]) == 1.0


SELECTING = (
    "<html><body><div id='a' class=''><p class='x'>1</p><div><p class='x'>2</p><p>3</p></div>"
    "</div><section><p class='x'>4</p></section><div id='b'><span>5</span></div></body></html>"
)


def test_select_many_finds_what_each_expression_selects() -> None:
    from newsextract.templates.rules import select, select_many

    root = parse_page(SELECTING).root
    region = root.find(".//div[@id='a']")
    assert region is not None
    expressions = [
        ".//p[@class='x']",  # relative: inside the region only
        ".//p[@class='x']",  # twice: found once
        ".//p",
        "//p[@class='x']",  # from the document, wherever the context is
        "//div[@class='']",  # an empty value is a value: not every div
        "//div[@id='missing']",
        "//div[@id='b']",  # the same tag by another attribute
        "//div",  # ...and by none
        "//section",  # by tag alone
        ".//div",
        ".//p[2]",  # positional: left to XPath
        "..",
        "not an expression((",
    ]
    found = select_many(region, expressions)
    assert found == {expression: select(region, expression) for expression in expressions}
    assert list(found) == list(dict.fromkeys(expressions))
    other = root.find(".//div[@id='b']")
    assert other is not None  # the same expressions from another element, planned once
    elsewhere = select_many(other, expressions)
    assert elsewhere == {expression: select(other, expression) for expression in expressions}
    assert [el.text for el in found[".//p[@class='x']"]] == ["1", "2"]
    assert [el.get("id") for el in found["//div[@class='']"]] == ["a"]
    assert found["not an expression(("] == []


def test_field_rules_take_the_first_that_finds_a_value() -> None:
    from newsextract.templates.rules import FieldRule, read_fields

    page = parse_page(
        "<html><head><meta name='author' content='Meta Writer'></head><body>"
        "<h1 class='t'>First title</h1><div id='main'><h2>Second title</h2>" + STORY + "</div>"
        "</body></html>"
    )
    region = page.root.find(".//div[@id='main']")
    assert region is not None
    rules = (
        FieldRule("headline", "//h1[@class='missing']"),
        FieldRule("headline", "//h1[@class='t']", in_body=True),
        FieldRule("headline", "//div[@id='main']", "h2"),
        FieldRule("authors", meta="author"),
        FieldRule("authors", "//div[@id='main']", "p"),
    )
    found = read_fields(rules, page.root, page.structured.meta, region)
    assert found.values == {"headline": "First title", "authors": "Meta Writer"}
    assert found.head is not None and found.head.tag == "h1"


# --- markup never becomes code in a rule --------------------------------------------------

#: libxml2 keeps ``|[]():*=`` in tag names: pasted into a pivot, this tag made a rule that
#: took 87 s on a page of 6,000 elements, in every later crawl.
HOSTILE_TAG = "x|descendant::*[count(following::*[1])=1]|descendant::*"


def hostile_page(number: int, filler: int = 100) -> Page:
    story = "".join(
        f"<p>Story {number}, paragraph {k}: the council met on day {number} and voted on "
        f"item {k} of the budget while residents watched.</p>"
        for k in range(6)
    )
    menu = "".join(f"<li><a href='/s{k}'>Section {k}</a></li>" for k in range(8))
    footer = "<span>f</span>" * filler + "<p>Copyright the paper, all rights reserved.</p>"
    html = (
        f"<html><head><title>Story {number}</title></head><body><ul class='nav'>{menu}</ul>"
        f"<div class='main'><h1>Headline number {number} of the day</h1>"
        f"<{HOSTILE_TAG} class='story'>{story}</{HOSTILE_TAG}></div>"
        f"<div class='footer'>{footer}</div></body></html>"
    )
    return parse_page(html, f"http://example.org/news/{number}.html")


def test_markup_in_tag_names_never_becomes_code_in_learned_rules() -> None:
    pages = [hostile_page(n) for n in range(4)]
    assert any(el.tag == HOSTILE_TAG for el in pages[0].root.iter())
    templates = SiteTemplates("example.org")
    version = templates.learn(pages)
    assert version is not None and refused_xpaths(version) == []
    assert any(f"*[name()={xpath_literal(HOSTILE_TAG)}]" in x for x in version_xpaths(version))
    big = hostile_page(9, filler=6000)
    started = time.monotonic()
    article = templates.extract(big)
    assert time.monotonic() - started < 5
    assert article is not None and article.body.startswith("Story 9, paragraph 0")


@pytest.mark.parametrize(
    "tag", ["div", "o:p", HOSTILE_TAG, 'a"b', "a'b", "x]|*[y", "custom-element_1.x"]
)
@pytest.mark.parametrize("value", ["story", "it's", 'say "hi"', 'say "it\'s"', "a]|//*['"])
def test_candidates_quote_every_name_and_value(tag: str, value: str) -> None:
    html = f"<{tag} id='{escape(value)}'><{tag}>a</{tag}><{tag}>b</{tag}></{tag}>"
    root = etree.fromstring(f"<html><body><div></div>{html}</body></html>", etree.HTMLParser())
    (inner,) = [el for el in root.iter() if el.text == "a"]
    assert inner.tag == tag and inner.getparent().get("id") == value  # type: ignore[union-attr]
    found = list(candidates(inner))
    assert (f"//{name_test(tag)}[@id={xpath_literal(value)}]", f"{name_test(tag)}[1]") in found
    for pivot, path in found:
        assert is_rule_xpath(pivot) and (path == "." or is_rule_xpath(path)), (pivot, path)
        pivots = select(root, pivot)
        assert len(pivots) == 1 and select(pivots[0], path) == [inner], (pivot, path)


def test_select_never_evaluates_an_expression_outside_the_grammar() -> None:
    page = parse_page("<html><body>" + "<div><p>x</p></div>" * 3000 + "</body></html>")
    started = time.monotonic()
    assert select(page.root, "//*[count(following::*)>1]") == []  # quadratic: minutes
    assert select(page.root, "//p|//div") == []
    assert time.monotonic() - started < 1
    assert len(select(page.root, "//div[contains(@class, '')]")) == 3000


@pytest.mark.parametrize(
    "expression",
    [
        "//body",
        "//div[@class='story-body__inner']",
        ".//figure",
        "div[2]/p",
        "li[@class='item']",
        ".//a[@href]",
        "/html/body/div[3]",
        "//*[name()='o:p'][@id=\"it's\"]",
        "//div[@id=concat('a', \"'\", 'b')]",
        "//div[contains(@class, 'story')][2]",
        "*",
    ],
)
def test_the_grammar_takes_what_induction_and_hands_write(expression: str) -> None:
    assert is_rule_xpath(expression)


@pytest.mark.parametrize(
    "expression",
    [
        "//x|descendant::*",
        "//div[count(following::*)=1]",
        "descendant::p",
        "..",
        "div/../p",
        "//div//p",  # a second descendant walk: one a rule at most
        "//div[@id='a' or 1=1]",
        "//div[@id='unclosed]",
        "//p/text()",
        "//div[position()=1]",
        "//div[@*]",
        "//o:p",
        "//div[@class='" + "x" * 1000 + "']",
        "",
    ],
)
def test_the_grammar_refuses_other_axes_functions_and_unions(expression: str) -> None:
    assert not is_rule_xpath(expression)

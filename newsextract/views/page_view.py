"""An annotated view of one page: the page as its reader sees it, with what was kept marked.

:func:`analyse_page` extracts the article (with a site's rules when given, single-page
otherwise) and keeps each block's score and, with rules, why the rule kept or dropped it.
:func:`render_view` then marks the page's own tree: each block's element gets a class and
an inline style (body or dropped; an element holding several blocks, runs of text, is marked
by the majority of its characters), the headline, date and authors found in the page get a
box, the rule's region and pivot an outline; a fixed side panel shows the record as JSON,
each block's score and a legend. The result is one self-contained file, sanitised by
:mod:`newsextract.views.sanitize`: opening it runs none of the page's code and sends no
request.

Every step is one pass over the blocks or the elements: a 2 MB page's view is written in
well under a second once the page is parsed and extracted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from itertools import repeat
from typing import Any

from lxml import etree

from newsextract.extraction.pagemodel.blocks import Block
from newsextract.extraction.pagemodel.page import Page
from newsextract.extraction.record.article import Article, scored_article
from newsextract.templates.rules import (
    BodyRule,
    RuleVersion,
    element_blocks,
    looks_like_markup,
    named_boxes,
    region_in,
    select_many,
    version_pivots,
)
from newsextract.templates.site import SiteTemplates
from newsextract.views.sanitize import csp_meta, sanitize_css, sanitize_tree

BODY_CLASS = "nx-body"
DROPPED_CLASS = "nx-dropped"
FIELD_CLASSES = {"headline": "nx-headline", "date": "nx-date", "authors": "nx-authors"}
REGION_CLASS = "nx-region"
PIVOT_CLASS = "nx-pivot"
PANEL_ID = "nx-panel"
BODY_COLOUR = "#b7f0b1"
DROPPED_COLOUR = "#e6c3c3"
FIELD_COLOUR = "#1f5fd1"
REGION_COLOUR = "#8a2be2"
#: A field's text is looked for in blocks at most this long (a date line, a byline).
MAX_FIELD_BLOCK_CHARS_DEFAULT = 300
#: Characters of a block's text shown in the panel's table and in a tooltip.
FIRST_WORDS_CHARS_DEFAULT = 60

#: What ``lxml.html.tostring`` removes from what it serialises (a page's own declaration).
_CONTENT_TYPE_META = '<meta http-equiv="Content-Type"'
_CONTENT_TYPE_METAS = re.compile(re.escape(_CONTENT_TYPE_META) + "[^>]*>")
_STYLE_ELEMENT = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.I | re.S)
_STYLES = {
    BODY_CLASS: f"background-color:{BODY_COLOUR} !important;",
    DROPPED_CLASS: f"background-color:{DROPPED_COLOUR} !important;",
    "field": f"outline:3px solid {FIELD_COLOUR} !important;outline-offset:2px;",
    REGION_CLASS: f"outline:3px dashed {REGION_COLOUR} !important;outline-offset:4px;",
    PIVOT_CLASS: f"box-shadow:0 0 0 3px {REGION_COLOUR} !important;",
}
_VIEW_CSS = f"""
html {{ margin-right: 30rem !important; }}
#{PANEL_ID} {{ position: fixed !important; top: 0 !important; right: 0 !important;
  width: 29rem !important; height: 100vh !important; overflow: auto !important;
  z-index: 2147483647 !important; display: block !important; visibility: visible !important;
  background: #fdfdfd !important; color: #111 !important; border-left: 2px solid #555;
  font: 13px/1.4 system-ui, sans-serif !important; padding: 0.8rem; box-sizing: border-box;
  text-align: left; }}
#{PANEL_ID} h2, #{PANEL_ID} h3 {{ font-size: 14px; margin: 0.8rem 0 0.3rem; }}
#{PANEL_ID} pre {{ white-space: pre-wrap; word-break: break-word; font-size: 12px;
  background: #f0f0f0; padding: 0.4rem; max-height: 40vh; overflow: auto; }}
#{PANEL_ID} table {{ border-collapse: collapse; font-size: 12px; width: 100%; }}
#{PANEL_ID} td, #{PANEL_ID} th {{ border-bottom: 1px solid #ddd; padding: 1px 4px;
  vertical-align: top; }}
#{PANEL_ID} .nx-swatch {{ display: inline-block; width: 1.2em; height: 1em;
  vertical-align: middle; margin-right: 0.3em; border: 1px solid #777; }}
#{PANEL_ID} tr.{BODY_CLASS} td {{ background: {BODY_COLOUR}; }}
#{PANEL_ID} tr.{DROPPED_CLASS} td {{ background: {DROPPED_COLOUR}; }}
"""


@dataclass(frozen=True)
class RuleTrace:
    """Which body rule of a version found its region on the page, and why it kept or
    dropped each block (by block index; blocks outside the region are not listed)."""

    version: RuleVersion
    rule_index: int
    region: etree._Element
    pivot: etree._Element
    reasons: Mapping[int, str]

    @property
    def rule(self) -> BodyRule:
        return self.version.bodies[self.rule_index]

    @property
    def label(self) -> str:
        rule = self.rule
        number = self.rule_index + 1
        return f"{self.version.label} body rule {number}: pivot {rule.pivot} path {rule.path}"


@dataclass(frozen=True)
class PageAnalysis:
    """What the view shows of one page: the article, the blocks kept and every score."""

    page: Page
    article: Article
    kept: frozenset[int]
    scores: tuple[float, ...]  # the single-page classifier's score of each block
    trace: RuleTrace | None = None
    note: str = ""  # e.g. why the rules gave no answer


def analyse_page(
    page: Page, templates: SiteTemplates | None = None, kind: str = "article"
) -> PageAnalysis:
    """The article of the page (the rules' answer when they give one) and its evidence."""
    scored = scored_article(page)
    scores = tuple(map(round, scored.scores.tolist(), repeat(4)))
    article, note, trace = scored.article, "", None
    if templates is not None:
        version = templates.current(kind)
        if version is None or not version.bodies:
            note = f"no current {kind} rules: single-page answer shown"
        else:
            trace = rule_trace(page, version)
            by_rules = templates.extract(page, kind)
            if by_rules is not None:
                article = by_rules
            else:
                reason = templates.last_verdict.reason
                note = f"rules gave no answer ({reason}): single-page answer shown"
    return PageAnalysis(page, article, frozenset(article.kept_blocks), scores, trace, note)


def body_kind(versions: Sequence[RuleVersion]) -> str:
    """ "article" if the versions have a current one of it, else the first kind that has
    (a crawl's kinds are its URL groups)."""
    kinds = [v.kind for v in versions if v.bodies and not v.valid_until]
    return "article" if "article" in kinds or not kinds else kinds[0]


def rule_trace(page: Page, version: RuleVersion) -> RuleTrace | None:
    """The first body rule whose region is found once on the page, with its reasons."""
    pivots = version_pivots(page.root, version)
    for number, rule in enumerate(version.bodies):
        region = region_in(page.root, rule, pivots)
        if region is not None:
            reasons = _rule_reasons(page.blocks, region, rule)
            return RuleTrace(version, number, region, pivots[rule.pivot][0], reasons)
    return None


def _rule_reasons(
    blocks: Sequence[Block], region: etree._Element, rule: BodyRule
) -> dict[int, str]:
    """Why the rule keeps or drops each block of its region (as ``kept_blocks`` decides)."""
    by_element = element_blocks(blocks)
    dropped_by: dict[etree._Element, str] = {}
    for expression, elements in select_many(region, rule.drops).items():
        for element in elements:
            if element is not region:
                for inner in element.iter():
                    dropped_by.setdefault(inner, f"dropped by {expression}")
    if rule.drop_named:
        for inner in named_boxes(blocks, region, by_element):
            dropped_by.setdefault(inner, "dropped: a box named as noise")
    drop_texts = set(rule.drop_texts)
    reasons: dict[int, str] = {}
    for element in region.iter():
        for index in by_element.get(element, ()):
            block = blocks[index]
            if element in dropped_by:
                reasons[index] = dropped_by[element]
            elif block.link_density > rule.max_link_density:
                reasons[index] = f"dropped: link density {block.link_density:.2f}"
            elif block.text in drop_texts:
                reasons[index] = "dropped: a template text"
            elif looks_like_markup(block.text):
                reasons[index] = "dropped: markup as text"
            else:
                reasons[index] = "kept by the region"
    return reasons


# -- rendering ------------------------------------------------------------------------------


def render_view(analysis: PageAnalysis, record: Mapping[str, Any]) -> str:
    """The view as one HTML document. It marks, sanitises and reuses the page's own tree:
    ``analysis.page`` is not to be used afterwards."""
    page = analysis.page
    root = sanitize_tree(page.root)  # first: the marks added next are the view's own
    score_texts = [f"{score:.3f}" for score in analysis.scores]  # for the marks and the table
    _mark_blocks(analysis, score_texts)
    _mark_fields(page.blocks, analysis.article)
    if analysis.trace is not None:
        _mark_region(analysis.trace)
    body = root.find("body")
    if body is None:
        body = etree.SubElement(root, "body")
    for head in root.findall("head"):
        root.remove(head)
    root.insert(0, _head(page, analysis.article))
    body.append(_panel(analysis, record))
    html: str = etree.tostring(root, encoding="unicode", method="html")
    if _CONTENT_TYPE_META in html:  # as lxml.html.tostring, whose search took half its time
        html = _CONTENT_TYPE_METAS.sub("", html)
    # The table of blocks, one row a block, is written as text: as elements it took most
    # of the time of a 25,000-block page. The panel is the body's last element.
    before, placeholder, after = html.rpartition(_TABLE_PLACEHOLDER)
    table = _block_table(analysis, score_texts)
    return "".join(("<!DOCTYPE html>\n", before, table, after))  # one copy of 10 MB, not two


def _mark_blocks(analysis: PageAnalysis, score_texts: Sequence[str]) -> None:
    """Mark each block's element. One pass; per block, what is the same for every element
    (its line of the tooltip, its score as text) is written once: on a page of 25,000
    blocks, formatting took more time than the marking."""
    blocks, kept, scores, trace = (
        analysis.page.blocks,
        analysis.kept,
        analysis.scores,
        analysis.trace,
    )
    lines = _block_lines(len(blocks), kept, score_texts)
    for element, indexes in element_blocks(blocks).items():
        if len(indexes) == 1:
            index = indexes[0]
            name = BODY_CLASS if index in kept else DROPPED_CLASS
            numbers, title = str(index), lines[index]
            score = score_texts[index] if scores else ""
        else:
            name = BODY_CLASS if _kept_weight(blocks, kept, indexes) > 0 else DROPPED_CLASS
            numbers, title = " ".join(map(str, indexes)), "\n".join(lines[i] for i in indexes[:5])
            score = f"{max(scores[i] for i in indexes):.3f}" if scores else ""
        marks = _class_marks(element, name, _STYLES[name])
        marks["data-nx-blocks"] = numbers
        if scores:
            marks["data-nx-score"] = score
        if trace is not None:
            reason = trace.reasons.get(indexes[0], "outside the rule's region")
            marks["data-nx-rule"] = f"{reason} ({trace.label})"
            title += f"\nrule: {reason}"
        marks["title"] = title
        element.attrib.update(marks)  # in one call: a third less time than one set() each


def _kept_weight(blocks: Sequence[Block], kept: frozenset[int], indexes: list[int]) -> int:
    """Characters kept less characters dropped: an element holding several blocks is marked
    by its majority."""
    weight = 0
    for index in indexes:
        chars = len(blocks[index].text) + 1
        weight += chars if index in kept else -chars
    return weight


def _block_lines(count: int, kept: frozenset[int], score_texts: Sequence[str]) -> list[str]:
    """Each block's line of the tooltip: ``block 3: kept, score 0.912``."""
    states = ["kept" if index in kept else "dropped" for index in range(count)]
    if not score_texts:
        return [f"block {index}: {state}" for index, state in enumerate(states)]
    return [
        f"block {index}: {state}, score {score}"
        for index, (state, score) in enumerate(zip(states, score_texts, strict=True))
    ]


def _mark_fields(blocks: Sequence[Block], article: Article) -> None:
    """Box the elements whose text is the headline, the date or an author, where found."""
    wanted: list[tuple[str, str, bool]] = [("headline", article.headline, True)]
    wanted.append(("date", article.date_published_raw or article.date_published, False))
    wanted += [("authors", author, False) for author in article.authors]
    for name, text, whole in wanted:
        element = _field_element(blocks, text.strip(), whole)
        if element is not None:
            _add_class(element, FIELD_CLASSES[name], _STYLES["field"])
            element.set(f"data-nx-{name}", "true")


def _field_element(blocks: Sequence[Block], text: str, whole: bool) -> etree._Element | None:
    if not text:
        return None
    folded = text.casefold()
    fallback = None
    for block in blocks:
        own = block.text.casefold()
        if len(own) > MAX_FIELD_BLOCK_CHARS_DEFAULT or folded not in own:
            continue
        if own.strip() == folded or not whole:
            return block.element
        fallback = fallback if fallback is not None else block.element
    return fallback


def _mark_region(trace: RuleTrace) -> None:
    _add_class(trace.region, REGION_CLASS, _STYLES[REGION_CLASS])
    trace.region.set("data-nx-region", trace.label)
    _add_class(trace.pivot, PIVOT_CLASS, _STYLES[PIVOT_CLASS])
    trace.pivot.set("data-nx-pivot", trace.rule.pivot)


def _add_class(element: etree._Element, name: str, style: str) -> None:
    element.attrib.update(_class_marks(element, name, style))


def _class_marks(element: etree._Element, name: str, style: str) -> dict[str, str]:
    """The element's class and style attributes with the class and style added."""
    classes = element.get("class")
    own = element.get("style")
    own = own.strip().rstrip(";") if own else ""
    return {
        "class": f"{classes} {name}".strip() if classes else name,
        "style": f"{own};{style}" if own else style,
    }


def _head(page: Page, article: Article) -> etree._Element:
    head = etree.Element("head")
    head.append(csp_meta())
    etree.SubElement(head, "meta", charset="utf-8")
    etree.SubElement(head, "meta", name="referrer", content="no-referrer")
    etree.SubElement(head, "title").text = f"view: {article.headline or page.url or 'page'}"
    own = "\n".join(sanitize_css(css) for css in _STYLE_ELEMENT.findall(page.html))
    if own.strip():
        etree.SubElement(head, "style").text = own
    etree.SubElement(head, "style").text = _VIEW_CSS
    return head


def _panel(analysis: PageAnalysis, record: Mapping[str, Any]) -> etree._Element:
    panel = etree.Element("aside", id=PANEL_ID)
    etree.SubElement(panel, "h2").text = "newsextract: what was kept"
    method = etree.SubElement(panel, "p")
    method.text = f"method: {analysis.article.method or '-'}; "
    method.text += f"{len(analysis.kept)} of {len(analysis.page.blocks)} blocks kept"
    if analysis.note:
        etree.SubElement(panel, "p", {"class": "nx-note"}).text = analysis.note
    panel.append(_legend(analysis.trace is not None))
    if analysis.trace is not None:
        etree.SubElement(panel, "h3").text = "Rules"
        etree.SubElement(panel, "p", {"class": "nx-rule"}).text = analysis.trace.label
    etree.SubElement(panel, "h3").text = "Record"
    text = json.dumps(dict(record), ensure_ascii=False, indent=2, default=str)
    etree.SubElement(panel, "pre", id="nx-record").text = text
    etree.SubElement(panel, "h3").text = "Blocks"
    etree.SubElement(panel, "table", id="nx-blocks")  # filled in as text by render_view
    return panel


def _legend(with_rules: bool) -> etree._Element:
    legend = etree.Element("div", {"class": "nx-legend", "id": "nx-legend"})
    entries = [
        (f"background:{BODY_COLOUR}", "body block (kept)"),
        (f"background:{DROPPED_COLOUR}", "dropped block"),
        (f"border:3px solid {FIELD_COLOUR}", "headline, date, authors"),
    ]
    if with_rules:
        entries.append((f"border:3px dashed {REGION_COLOUR}", "the rule's region (pivot: shadow)"))
    for style, text in entries:
        line = etree.SubElement(legend, "div")
        etree.SubElement(line, "span", {"class": "nx-swatch", "style": style})
        line[-1].tail = text
    return legend


_TABLE_PLACEHOLDER = '<table id="nx-blocks"></table>'


def _block_table(analysis: PageAnalysis, score_texts: Sequence[str]) -> str:
    kept, blocks = analysis.kept, analysis.page.blocks
    header = "".join(f"<th>{name}</th>" for name in ("#", "tag", "score", "kept", "first words"))
    rows = [f'<table id="nx-blocks"><tr>{header}</tr>']
    # Escaped all at once (block texts hold no NUL): one call a block took a third of the time.
    first_words = "\x00".join(block.text[:FIRST_WORDS_CHARS_DEFAULT] for block in blocks)
    escaped = escape(first_words, quote=False).split("\x00") if blocks else []
    tags = {tag: escape(tag) for tag in {block.tag for block in blocks}}
    for block, words in zip(blocks, escaped, strict=True):
        index = block.index
        is_kept = index in kept
        score = score_texts[index] if score_texts else ""
        rows.append(
            f'<tr class="{BODY_CLASS if is_kept else DROPPED_CLASS}"><td>{index}</td>'
            f"<td>{tags[block.tag]}</td><td>{score}</td><td>{'yes' if is_kept else 'no'}</td>"
            f"<td>{words}</td></tr>"
        )
    rows.append("</table>")
    return "\n".join(rows)

"""Compile a group's template into rules: body regions, drops inside them, and fields.

One body rule per template of the site. Each candidate region (a pivot and a path, from every
page's best region) earns a point for each page where it is as good as that page's best region
(``cover_ratio``) and loses for each page where it lands on a poorer one (the first rule that
finds a region on a page is the one applied there). The best candidate becomes a rule; the
pages it leaves are covered by the next, and so on.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from lxml import etree

from newsextract.extraction.pagemodel.page import is_inside
from newsextract.templates.evidence import PageEvidence
from newsextract.templates.noise import NOISE_PATTERN, NOISE_TAGS_DEFAULT
from newsextract.templates.rules import (
    MAX_LINK_DENSITY_DEFAULT,
    BodyRule,
    FieldRule,
    region_blocks,
    select,
)
from newsextract.templates.xpaths import Candidate, candidates, name_test, xpath_literal

#: A region is "as good as the best" on a page at this share of the best score. 0.8 and 0.9
#: gave the same F1 within 0.001 on msv_big9_dev, cleanportaleval and dragnet (5+ pages).
COVER_RATIO_DEFAULT = 0.85
#: Pages a body rule must cover (when that many are left to cover). 2 would refuse a region
#: seen on one page only (a front page in cleanportaleval), but the pages it leaves to single
#: mode lost more than that gained (msv_big9_dev 0.960 -> 0.959, dragnet 0.925 -> 0.924).
MIN_RULE_PAGES_DEFAULT = 1
#: What a page costs where a rule lands on a poorer region than the page's best, per unit of
#: ratio lost. Swept 0.5-4 with the removable-noise weight on msv_big9_dev and dragnet: 2 was
#: best for both (4 lets one site's odd pages veto its main rule).
HARM_WEIGHT_DEFAULT = 2.0
#: How many ancestors of each page's best region are tried too (a stabler, wider region);
#: 1 and 3 gave the same F1 on the three site sets.
WIDER_REGIONS_DEFAULT = 3
#: A drop path may remove at most this share of content among what it removes.
DROP_MAX_CONTENT_SHARE_DEFAULT = 0.1
#: Template texts kept as drop texts, at most (they are checked per block: keep the file short).
MAX_DROP_TEXTS_DEFAULT = 60
#: Words from which a repeated block is no longer a template line but quoted content.
DROP_TEXT_MAX_WORDS_DEFAULT = 30
DATE_META_KEYS = (
    "article:published_time",
    "datepublished",
    "og:published_time",
    "pubdate",
    "publishdate",
    "dc.date.issued",
    "dc.date",
    "date",
    "sailthru.date",
    "parsely-pub-date",
)
AUTHOR_META_KEYS = ("author", "article:author", "byl", "dc.creator", "sailthru.author")
_HEADINGS = ("h1", "h2", "h3")


@dataclass(frozen=True)
class CompileConfig:
    cover_ratio: float = COVER_RATIO_DEFAULT
    wider_regions: int = WIDER_REGIONS_DEFAULT
    drop_max_content_share: float = DROP_MAX_CONTENT_SHARE_DEFAULT
    max_drop_texts: int = MAX_DROP_TEXTS_DEFAULT
    drop_text_max_words: int = DROP_TEXT_MAX_WORDS_DEFAULT
    max_link_density: float = MAX_LINK_DENSITY_DEFAULT
    min_rule_pages: int = MIN_RULE_PAGES_DEFAULT
    harm_weight: float = HARM_WEIGHT_DEFAULT


def _region_candidates(evidence: PageEvidence, config: CompileConfig) -> Iterable[Candidate]:
    element: etree._Element | None = evidence.best
    for _ in range(config.wider_regions + 1):
        if element is None or not isinstance(element.tag, str):
            return
        if element is evidence.best or evidence.ratio(element) >= config.cover_ratio:
            yield from candidates(element)
        element = element.getparent()


def _value(
    candidate: Candidate, pages: Sequence[PageEvidence], config: CompileConfig
) -> tuple[float, list[int]]:
    """A page the region covers counts 1; a page where it lands on a poorer region counts what
    that region lacks (ratio - 1: a region half as good costs half a page), since the first rule
    that finds a region on a page is the one applied there."""
    rule = BodyRule(*candidate)
    covered, value, total = [], 0.0, 0.0
    for number, evidence in enumerate(pages):
        region = evidence.find_region(rule)
        if region is None:
            continue
        ratio = evidence.ratio(region)
        if ratio >= config.cover_ratio:
            covered.append(number)
            total += ratio
            value += 1
        else:
            value += config.harm_weight * (ratio - 1)
    specific = 0.01 if candidate[0] != "//body" else 0.0
    return value + 0.001 * total + specific, covered


def choose_regions(
    pages: Sequence[PageEvidence], config: CompileConfig
) -> list[tuple[Candidate, list[int]]]:
    """Body regions, each with the pages (indexes into ``pages``) it covers."""
    remaining = [n for n, e in enumerate(pages) if e.best_score > 0]
    chosen = []
    while remaining:
        subset = [pages[n] for n in remaining]
        pool = dict.fromkeys(c for e in subset for c in _region_candidates(e, config))
        best: tuple[float, list[int], Candidate] | None = None
        for candidate in pool:
            value, covered = _value(candidate, subset, config)
            if covered and (best is None or value > best[0]):
                best = (value, covered, candidate)
        if best is None or best[0] <= 0 or len(best[1]) < min(config.min_rule_pages, len(subset)):
            break
        covered_pages = [remaining[n] for n in best[1]]
        chosen.append((best[2], covered_pages))
        remaining = [n for n in remaining if n not in covered_pages]
    return chosen


def body_rule(
    candidate: Candidate, pages: Sequence[PageEvidence], config: CompileConfig
) -> BodyRule:
    """The region with its drops and history, learned from the pages it covers."""
    regions = [e.find_region(BodyRule(*candidate)) for e in pages]
    pairs = [(e, r) for e, r in zip(pages, regions, strict=True) if r is not None]
    drops = _drop_paths(pairs, config)
    drop_texts = _drop_texts(pairs, config)
    rule = BodyRule(candidate[0], candidate[1], drops, drop_texts, config.max_link_density)
    sizes = [
        sum(len(e.page.blocks[i].text) for i in region_blocks(e.page, r, rule)) for e, r in pairs
    ]
    return replace(
        rule,
        pages=len(pairs),
        min_chars=min(sizes, default=0),
        median_chars=int(statistics.median(sizes)) if sizes else 0,
    )


def _noise_anchors(element: etree._Element, region: etree._Element) -> list[str]:
    """Elements at or above a noise block, below the region, named by an attribute: the nearest
    one, and the nearest whose name says it is noise (a comments box)."""
    found: list[str] = []
    current: etree._Element | None = element
    while current is not None and current is not region:
        if current.tag in NOISE_TAGS_DEFAULT:
            found.append(f".//{current.tag}")
        for name in ("class", "id"):
            value = current.get(name)
            if not value or any(ch.isdigit() for ch in value):
                continue
            if not found or NOISE_PATTERN.search(value):
                found.append(f".//{name_test(current.tag)}[@{name}={xpath_literal(value)}]")
            if len(found) > 1 or NOISE_PATTERN.search(value):
                return found
        current = current.getparent()
    return found


def _drop_paths(
    pairs: Sequence[tuple[PageEvidence, etree._Element]], config: CompileConfig
) -> tuple[str, ...]:
    proposals: dict[str, None] = {}
    for evidence, region in pairs:
        inside = {id(el) for el in region.iter()}
        for block, is_content in zip(evidence.page.blocks, evidence.content, strict=True):
            if not is_content and id(block.element) in inside:
                for anchor in _noise_anchors(block.element, region):
                    proposals[anchor] = None
    accepted = []
    for path in proposals:
        content = noise = 0
        for evidence, region in pairs:
            for element in select(region, path):
                if element is not region:
                    content += evidence.content_chars.get(element, 0)
                    noise += evidence.noise_chars.get(element, 0)
        if noise and content <= config.drop_max_content_share * (content + noise):
            accepted.append(path)
    return tuple(accepted)


def _drop_texts(
    pairs: Sequence[tuple[PageEvidence, etree._Element]], config: CompileConfig
) -> tuple[str, ...]:
    counts: Counter[str] = Counter()
    for evidence, region in pairs:
        inside = {id(el) for el in region.iter()}
        # Distinct texts in document order, not a set: ties in most_common() then fall the
        # same way in every process, and the saved rules do not churn.
        texts = dict.fromkeys(
            b.text
            for b in evidence.page.blocks
            if b.index in evidence.template
            and id(b.element) in inside
            and b.words <= config.drop_text_max_words
        )
        counts.update(list(texts))
    needed = 2 if len(pairs) > 1 else 1
    repeated = [text for text, n in counts.most_common() if n >= needed]
    return tuple(repeated[: config.max_drop_texts])


def headline_rules(
    pages: Sequence[PageEvidence], regions: Sequence[etree._Element | None]
) -> tuple[FieldRule, ...]:
    """Headline rules, one per template: the headline's element is found by the page title;
    it goes in the body when it sits outside the region on most pages it was found on."""
    targets = [_headline_element(e) for e in pages]
    remaining = [n for n, t in enumerate(targets) if t is not None]
    rules: list[FieldRule] = []
    while remaining:
        pool = dict.fromkeys(c for n in remaining for c in candidates(targets[n]))
        best: tuple[int, list[int], Candidate] | None = None
        for candidate in pool:
            hits, harmed = _headline_hits(candidate, pages, targets, remaining)
            value = len(hits) - 2 * harmed
            if hits and value > 0 and (best is None or value > best[0]):
                best = (value, hits, candidate)
        if best is None or (len(best[1]) < 2 <= len(pages)):
            break
        outside = sum(
            1 for n in best[1] if regions[n] is not None and not is_inside(targets[n], regions[n])
        )
        rules.append(FieldRule("headline", *best[2], in_body=outside * 2 >= len(best[1])))
        remaining = [n for n in remaining if n not in best[1]]
    return tuple(rules)


def _headline_hits(
    candidate: Candidate,
    pages: Sequence[PageEvidence],
    targets: Sequence[etree._Element | None],
    remaining: Sequence[int],
) -> tuple[list[int], int]:
    hits, harmed = [], 0
    for n in remaining:
        found = pages[n].select_pivot(candidate[0])
        element = select(found[0], candidate[1])[:1] if found else []
        if element and element[0] is targets[n]:
            hits.append(n)
        elif element:
            harmed += 1
    return hits, harmed


def _headline_element(evidence: PageEvidence) -> etree._Element | None:
    structured = evidence.page.structured
    title = (structured.meta.get("og:title") or structured.title).lower()
    first = None
    for block in evidence.page.blocks:
        if block.tag not in _HEADINGS or len(block.text) < 10:
            continue
        if block.text.lower() in title:
            return block.element
        first = first if first is not None else block.element if block.tag == "h1" else None
    return first


def meta_rules(pages: Sequence[PageEvidence]) -> tuple[FieldRule, ...]:
    """Date and author rules from the meta tags most pages carry."""
    rules = []
    for name, keys in (("datePublished", DATE_META_KEYS), ("authors", AUTHOR_META_KEYS)):
        for key in keys:
            present = sum(1 for e in pages if e.page.structured.meta.get(key))
            if present * 2 >= len(pages):
                rules.append(FieldRule(name, meta=key))
                break
    return tuple(rules)

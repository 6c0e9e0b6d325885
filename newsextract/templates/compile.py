"""Compile a group's template into rules: body regions, drops inside them, and fields.

One body rule per template of the site: the rule whose region is as good as each page's best
region (``cover_ratio``) on the most pages wins, without landing on a poor region of a page
no earlier rule covers; the pages it leaves are covered by the next rule, and so on.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from lxml import etree

from newsextract.templates.evidence import PageEvidence
from newsextract.templates.rules import (
    MAX_LINK_DENSITY_DEFAULT,
    BodyRule,
    FieldRule,
    find_region,
    region_blocks,
    select,
)
from newsextract.templates.xpaths import Candidate, candidates

#: A region is "as good as the best" on a page at this share of the best score (msv_big9_dev,
#: cleanportaleval: 0.8-0.9 gave the same rules; lower let one rule swallow two templates).
COVER_RATIO_DEFAULT = 0.85
#: How many ancestors of each page's best region are tried too (a stabler, wider region).
WIDER_REGIONS_DEFAULT = 3
#: A drop path may remove at most this share of content among what it removes.
DROP_MAX_CONTENT_SHARE_DEFAULT = 0.1
#: Template texts kept as drop texts, at most (they are checked per block: keep the file short).
MAX_DROP_TEXTS_DEFAULT = 60
#: Words from which a repeated block is no longer a template line but quoted content.
DROP_TEXT_MAX_WORDS_DEFAULT = 30
DATE_META_KEYS = (
    "article:published_time", "datepublished", "og:published_time", "pubdate", "publishdate",
    "dc.date.issued", "dc.date", "date", "sailthru.date", "parsely-pub-date",
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
    rule = BodyRule(*candidate)
    covered, harmed, total = [], 0, 0.0
    for number, evidence in enumerate(pages):
        region = find_region(evidence.page, rule)
        if region is None:
            continue
        ratio = evidence.ratio(region)
        if ratio >= config.cover_ratio:
            covered.append(number)
            total += ratio
        else:
            harmed += 1
    specific = 0.01 if candidate[0] != "//body" else 0.0
    return len(covered) - 2 * harmed + 0.001 * total + specific, covered


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
        if best is None or best[0] <= 0:
            break
        covered_pages = [remaining[n] for n in best[1]]
        chosen.append((best[2], covered_pages))
        remaining = [n for n in remaining if n not in covered_pages]
    return chosen


def body_rule(
    candidate: Candidate, pages: Sequence[PageEvidence], config: CompileConfig
) -> BodyRule:
    """The region with its drops and history, learned from the pages it covers."""
    regions = [find_region(e.page, BodyRule(*candidate)) for e in pages]
    pairs = [(e, r) for e, r in zip(pages, regions, strict=True) if r is not None]
    drops = _drop_paths(pairs, config)
    drop_texts = _drop_texts(pairs, config)
    rule = BodyRule(candidate[0], candidate[1], drops, drop_texts, config.max_link_density)
    sizes = [
        sum(len(e.page.blocks[i].text) for i in region_blocks(e.page, r, rule)) for e, r in pairs
    ]
    return replace(
        rule, pages=len(pairs), min_chars=min(sizes, default=0),
        median_chars=int(statistics.median(sizes)) if sizes else 0,
    )


def _noise_anchor(element: etree._Element, region: etree._Element) -> str | None:
    """The nearest element at or above a noise block, below the region, named by an attribute."""
    current: etree._Element | None = element
    while current is not None and current is not region:
        for name in ("class", "id"):
            value = current.get(name)
            if value and "'" not in value and not any(ch.isdigit() for ch in value):
                return f".//{current.tag}[@{name}='{value}']"
        current = current.getparent()
    return None


def _drop_paths(
    pairs: Sequence[tuple[PageEvidence, etree._Element]], config: CompileConfig
) -> tuple[str, ...]:
    proposals: dict[str, None] = {}
    for evidence, region in pairs:
        inside = {id(el) for el in region.iter()}
        for block, is_content in zip(evidence.page.blocks, evidence.content, strict=True):
            if not is_content and id(block.element) in inside:
                anchor = _noise_anchor(block.element, region)
                if anchor:
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
        texts = {
            b.text for b in evidence.page.blocks
            if b.index in evidence.template and id(b.element) in inside
            and b.words <= config.drop_text_max_words
        }
        counts.update(texts)
    needed = 2 if len(pairs) > 1 else 1
    repeated = [text for text, n in counts.most_common() if n >= needed]
    return tuple(repeated[: config.max_drop_texts])


def headline_rule(pages: Sequence[PageEvidence], regions: Sequence[etree._Element | None]) -> (
    FieldRule | None
):
    """The headline's element, found by the page title, as a rule; in the body when it sits
    outside the region on most pages."""
    targets = [_headline_element(e) for e in pages]
    pool = dict.fromkeys(c for t in targets if t is not None for c in candidates(t))
    best: tuple[int, Candidate] | None = None
    for pivot, path in pool:
        hits = 0
        for evidence, target in zip(pages, targets, strict=True):
            found = select(evidence.page.root, pivot)
            hit = bool(found) and select(found[0], path)[:1] == [target]
            hits += bool(target is not None and hit)
        if hits and (best is None or hits > best[0]):
            best = (hits, (pivot, path))
    if best is None or best[0] < max(1, len(pages) // 3):
        return None
    outside = sum(
        1 for t, r in zip(targets, regions, strict=True)
        if t is not None and r is not None and not _contains(r, t)
    )
    return FieldRule("headline", best[1][0], best[1][1], in_body=outside * 2 >= best[0])


def _contains(ancestor: etree._Element, element: etree._Element) -> bool:
    return any(el is ancestor for el in element.iterancestors()) or element is ancestor


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

"""The combiner: the product's single-page answer from the methods' evidence.

Stages, in order: method E's per-block posteriors (layout and language classifiers, then the
top-down context stage); the page's own structured data (JSON-LD ``articleBody``) as a vote
per block; asides, sidebars and hidden text after the article out (:mod:`.asides`); the
region rules; paragraphs placed as confidently kept ones are
(:mod:`.places`); comment sections out, by their containers' names and by the heading above
them (:mod:`.comments`); consent banners and modal dialogs out (:mod:`.dialogs`); the keep
decision, which empties the body of pages without an article (index pages, error pages);
the page's main region for such a page, when it marks one (:mod:`.mainregion`); second
copies of the article's text placed elsewhere out; rights notices out (:mod:`.notices`);
the headline out (:mod:`.headline`). The record (:mod:`..record.article`) keeps the blocks in
document order, one paragraph a line, with the metadata.

Methods C (FFT interval) and D (punctuation density) are not consulted. Measured on method
E's leave-one-set-out posteriors (dragnet, cleaneval, cleanportaleval, msv_chaos,
chinese_wced): a tree model stacking C and D on E scored no better than E alone (dragnet
0.861 with, 0.862 without); D as a veto gained 0.003-0.006 on dragnet and msv_chaos but lost
0.005 on cleaneval and 0.02 on chinese_wced; 0.8 E + 0.1 C + 0.1 D gained 0.003 on average,
while C alone costs about as much time as E. They stay usable alone (``newsextract eval``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from lxml import etree

from newsextract.extraction.decision.asides import without_asides, without_hidden_tail
from newsextract.extraction.decision.comments import before_comments_heading, is_discussion
from newsextract.extraction.decision.dialogs import without_dialogs
from newsextract.extraction.decision.headline import without_headline
from newsextract.extraction.decision.mainregion import METHOD as MAIN_REGION_METHOD
from newsextract.extraction.decision.mainregion import main_region_answer
from newsextract.extraction.decision.notices import without_rights_notices
from newsextract.extraction.decision.places import with_its_places, without_copies
from newsextract.extraction.decision.region import MIN_BODY_CHARS_DEFAULT, RegionConfig, region_kept
from newsextract.extraction.evidence.classifier import (
    BlockEvidence,
    ClassifierModel,
    block_evidence,
    headline_texts,
)
from newsextract.extraction.evidence.wording import RUN_WORDS, lower_words, word_runs
from newsextract.extraction.pagemodel.blocks import HEADING_TAGS
from newsextract.extraction.pagemodel.blocktable import BlockTable
from newsextract.extraction.pagemodel.compiled import Places, fold_text
from newsextract.extraction.pagemodel.page import Page

#: JSON-LD ``articleBody`` shorter than this (in tokens) is a teaser, not evidence.
MIN_ARTICLE_BODY_TOKENS_DEFAULT = 50
#: A block with a smaller share of its word runs in the JSON-LD ``articleBody`` is demoted (its
#: score multiplied by ARTICLE_BODY_DEMOTION_DEFAULT), when the articleBody is complete.
MIN_ARTICLE_BODY_OVERLAP_DEFAULT = 0.5
ARTICLE_BODY_DEMOTION_DEFAULT = 0.5
#: An articleBody with fewer words than this share of the article E found is a teaser or a
#: prefix: it demotes nothing.
COMPLETE_ARTICLE_BODY_DEFAULT = 0.8
#: A block with at least this share of its word runs in the articleBody is kept.
ARTICLE_BODY_CONFIRM_DEFAULT = 0.9
#: When E keeps nothing, blocks with at least this share of words in the articleBody are
#: the body.
ARTICLE_BODY_FALLBACK_OVERLAP_DEFAULT = 0.8
#: Comment sections are left out of the body when at least this share of the kept text is
#: outside them.
COMMENTS_OUTSIDE_SHARE_DEFAULT = 0.4
#: ... or at least this many characters: an article above a long discussion.
COMMENTS_ARTICLE_CHARS_DEFAULT = 400
#: A body whose characters are mostly link text is a list of teasers (an index page), not an
#: article. On dragnet, 0.5 emptied five real bodies (link shares 0.49-0.64, one of 44,000
#: characters) and 0.8 only two link-only bodies of about 50 characters.
MAX_KEPT_LINK_SHARE_DEFAULT = 0.8
#: ... unless it holds a paragraph of prose (this many characters, few links): link-heavy
#: CleanEval pages with gold text were emptied otherwise. The other rules that ask for a
#: paragraph's worth of text (comments, asides, hidden text) read it too.
MIN_PROSE_CHARS_DEFAULT = 150
#: A body of at most this many blocks and fewer characters, but for section headings, each a
#: teaser is an index page's: an item of a list of teasers (at least TEASER_LIST_MIN_ITEMS
#: items headed by a link), or a short summary under a heading that is all link.
#: Leave-one-set-out: cleanportaleval +0.0067 (a BBC section page); counting one teaser of at
#: most two blocks, the page came back with other seeds (four teasers and their section
#: headings), which this catches (+0.0068 with those models; no other set moved).
TEASER_MAX_BLOCKS_DEFAULT = 5
TEASER_MAX_CHARS_DEFAULT = 800
TEASER_LIST_MIN_ITEMS = 3
#: A teaser's summary is shorter than this.
TEASER_SUMMARY_MAX_CHARS = 300
#: A short body on a page whose title says "not found" is an error page's message.
NOT_FOUND_MAX_CHARS_DEFAULT = 300
# (A string: re compiles it for the first short body, not every process at import.)
_NOT_FOUND = (
    r"\b404\b|not found|page (?:does not|doesn't|cannot|can't|could not) (?:exist|be found)"
    r"|no longer (?:available|exists)|\u898b\u3064\u304b\u308a\u307e\u305b\u3093"
    r"|\u9875\u9762\u4e0d\u5b58\u5728|\u627e\u4e0d\u5230"
)


@dataclass(frozen=True)
class CombinerConfig:
    threshold: float | None = None  # None: the classifier model's own threshold
    min_article_body_tokens: int = MIN_ARTICLE_BODY_TOKENS_DEFAULT
    min_article_body_overlap: float = MIN_ARTICLE_BODY_OVERLAP_DEFAULT
    article_body_demotion: float = ARTICLE_BODY_DEMOTION_DEFAULT
    complete_article_body: float = COMPLETE_ARTICLE_BODY_DEFAULT
    article_body_confirm: float = ARTICLE_BODY_CONFIRM_DEFAULT
    article_body_fallback_overlap: float = ARTICLE_BODY_FALLBACK_OVERLAP_DEFAULT
    min_body_chars: int = MIN_BODY_CHARS_DEFAULT
    max_kept_link_share: float = MAX_KEPT_LINK_SHARE_DEFAULT
    not_found_max_chars: int = NOT_FOUND_MAX_CHARS_DEFAULT
    model: ClassifierModel | None = None  # None: the model shipped in the package
    region: RegionConfig = field(default_factory=RegionConfig)
    drop_comments: bool = True
    # a page without an article answers its main region (one-off pages; off in crawls and
    # site templates, which collect articles)
    main_region: bool = True


DEFAULT = CombinerConfig()


class Decision(NamedTuple):
    """Which blocks make the article, with the scores they were kept by."""

    kept: tuple[int, ...]
    scores: np.ndarray  # every block's final score (method E and the JSON-LD vote)
    method: str  # "single:classifier", with "+json-ld" or the main region's name


def decide(page: Page, config: CombinerConfig = DEFAULT) -> Decision:
    """The kept blocks of one page: the classifier's evidence, then every rule after it."""
    evidence = block_evidence(page, config.model)
    threshold = keep_threshold(config)
    reference = article_body_text(page, config)
    scores = combined_scores(page, evidence, config, threshold, reference)
    kept = tuple(np.flatnonzero(scores >= threshold).tolist())
    texts = [block.text for block in page.blocks]
    # First: the region rules then start without them.
    kept = without_asides(kept, evidence.table, page, MIN_PROSE_CHARS_DEFAULT)
    share = config.region.container_share
    kept = without_hidden_tail(kept, evidence.table, share, MIN_PROSE_CHARS_DEFAULT)
    kept = region_kept(
        kept, evidence.table, evidence.common_words, config.region, scores, texts, evidence.title
    )
    places = Places()
    kept = with_its_places(kept, page.blocks, scores, places)
    kept = without_dialogs(kept, page)  # first: a banner's prose must not outweigh a forum's posts
    if config.drop_comments:
        kept = without_comments(kept, evidence.table, page)
        kept = before_comments_heading(kept, page)
    kept = article_or_nothing(page, kept, config)
    kept, main_region = _or_main_region(page, kept, scores, config)
    kept = without_copies(kept, page.blocks, places)
    kept = without_rights_notices(kept, texts, evidence.table.words)
    kept = without_headline(kept, evidence.title, evidence.table.words)
    return Decision(kept, scores, _method(main_region, bool(reference.words)))


def _or_main_region(
    page: Page, kept: tuple[int, ...], scores: np.ndarray, config: CombinerConfig
) -> tuple[tuple[int, ...], bool]:
    """The kept blocks, or the page's main region when they make no answer (and whether
    it was)."""
    region = main_region_answer(page, kept, scores) if config.main_region else None
    if region is None:
        return kept, False
    least = MIN_PROSE_CHARS_DEFAULT if kept else config.min_body_chars
    if sum(len(page.blocks[i].text) for i in region) < least:
        return kept, False
    return region, True


def _method(main_region: bool, json_ld: bool) -> str:
    if main_region:
        return MAIN_REGION_METHOD
    return "single:classifier+json-ld" if json_ld else "single:classifier"


def without_comments(kept: tuple[int, ...], table: BlockTable, page: Page) -> tuple[int, ...]:
    """The kept blocks less those in a comment section (a container named comment, reply,
    discussion ...), unless that is where most of the kept text is (a forum's posts, or a
    page whose every container has such a name) or the page declares itself a forum thread
    or a question: its replies are its content. A short post in an ``<article>`` with its
    comments outside it is an article with comments, however many they are."""
    if not kept:
        return kept
    chosen = np.array(kept)
    inside = table.inside("comment")[chosen]
    if not inside.any():
        return kept
    outside_chars = float(table.chars[chosen[~inside]].sum())
    share = COMMENTS_OUTSIDE_SHARE_DEFAULT * float(table.chars[chosen].sum())
    if outside_chars < min(share, COMMENTS_ARTICLE_CHARS_DEFAULT) and not (
        outside_chars >= MIN_PROSE_CHARS_DEFAULT and _article_apart(table, chosen, inside)
    ):
        return kept
    if is_discussion(page):  # read last: it searches the whole tree
        return kept
    return tuple(int(i) for i in chosen[~inside])


def _article_apart(table: BlockTable, chosen: np.ndarray, inside: np.ndarray) -> bool:
    """Whether the kept blocks outside comment sections are all in an ``<article>`` (or
    ``<main>``) and those inside them in none."""
    article = table.inside("article")[chosen]
    return bool(article[~inside].all() and not article[inside].any())


def keep_threshold(config: CombinerConfig) -> float:
    """The score at which the single-page answer keeps a block."""
    if config.threshold is not None:
        return config.threshold
    from newsextract.extraction.evidence.classifier import default_model

    return (config.model or default_model()).threshold


def combined_scores(
    page: Page,
    evidence: BlockEvidence,
    config: CombinerConfig,
    threshold: float = 0.5,
    reference: ArticleBodyText | None = None,
) -> np.ndarray:
    """Method E's final posterior, joined with the JSON-LD vote where the page has one.

    The page's own ``articleBody`` confirms the blocks it covers. It demotes the blocks it
    does not cover only when it is as long as the article E found: a teaser or the first
    paragraphs (a common way to fill the field) say nothing of what follows them.
    ``reference`` is :func:`article_body_text` of the page when the caller has it already.
    """
    scores = evidence.final.copy()
    if reference is None:
        reference = article_body_text(page, config)
    if not reference.words:
        return scores
    coverage = reference.coverage([block.text for block in page.blocks])
    kept = scores >= threshold
    if not kept.any():  # E found nothing: trust the page's own statement
        return np.where(coverage >= config.article_body_fallback_overlap, 1.0, scores)
    confirmed = (coverage >= config.article_body_confirm) & (evidence.table.words >= 5)
    scores = np.where(confirmed, np.maximum(scores, threshold), scores)
    found_words = float(evidence.table.words[kept].sum())
    if reference.length < config.complete_article_body * found_words:
        return scores
    demoted = scores * config.article_body_demotion
    result: np.ndarray = np.where(coverage < config.min_article_body_overlap, demoted, scores)
    return result


class ArticleBodyText(NamedTuple):
    """The page's JSON-LD ``articleBody``: its lower-cased words and their 4-word runs."""

    words: frozenset[str]
    runs: frozenset[tuple[str, ...]]
    length: int  # words

    def coverage(self, texts: list[str]) -> np.ndarray:
        """Share of each text's 4-word runs (of its words, when shorter) found here."""
        shares = np.zeros(len(texts))
        for i, text in enumerate(texts):
            words = lower_words(text)
            if len(words) >= RUN_WORDS:
                runs = word_runs(words)
                shares[i] = sum(run in self.runs for run in runs) / len(runs)
            elif words:
                shares[i] = sum(w in self.words for w in words) / len(words)
        return shares


_NO_ARTICLE_BODY = ArticleBodyText(frozenset(), frozenset(), 0)


def article_body_text(page: Page, config: CombinerConfig) -> ArticleBodyText:
    """The page's JSON-LD ``articleBody``, when it is long enough to be evidence."""
    for item in page.structured.json_ld:
        body = item.get("articleBody")
        if isinstance(body, str):
            words = lower_words(body)
            if len(words) >= config.min_article_body_tokens:
                return ArticleBodyText(frozenset(words), frozenset(word_runs(words)), len(words))
    return _NO_ARTICLE_BODY


def keep_blocks(
    page: Page, scores: np.ndarray, threshold: float, config: CombinerConfig
) -> tuple[int, ...]:
    """Blocks at or above the threshold, or none when they make no article."""
    kept = tuple(int(i) for i in np.flatnonzero(scores >= threshold))
    return article_or_nothing(page, kept, config)


def article_or_nothing(
    page: Page, kept: tuple[int, ...], config: CombinerConfig
) -> tuple[int, ...]:
    """The kept blocks, or none when they make no article (too short, a list of links, an
    error page's message)."""
    chars = sum(len(page.blocks[i].text) for i in kept)
    links = sum(page.blocks[i].link_chars for i in kept)
    if chars < config.min_body_chars:
        return ()
    if links > config.max_kept_link_share * chars and not _has_prose(page, kept):
        return ()
    if chars < config.not_found_max_chars and is_error_page(page, kept):
        return ()
    if chars < TEASER_MAX_CHARS_DEFAULT and only_teasers(page, kept):
        return ()
    return kept


def _has_prose(page: Page, kept: tuple[int, ...]) -> bool:
    """A paragraph of running text, not a link: what an index page of teasers lacks."""
    return any(
        len(page.blocks[i].text) >= MIN_PROSE_CHARS_DEFAULT and page.blocks[i].link_density < 0.2
        for i in kept
    )


def only_teasers(page: Page, kept: tuple[int, ...]) -> bool:
    """Whether the few kept blocks, but for section headings, are teasers: what an index
    page's most article-like blocks look like. One summary alone under a linked heading is a
    teaser only when the heading is not the page's headline: a short post stands under its
    title's permalink, an index page's lone teaser under another story's headline."""
    teasers = [i for i in kept if page.blocks[i].tag not in HEADING_TAGS]
    if not 0 < len(teasers) <= TEASER_MAX_BLOCKS_DEFAULT or any(
        len(page.blocks[i].text) >= TEASER_SUMMARY_MAX_CHARS for i in teasers
    ):
        return False
    listed = [_in_teaser_list(page.blocks[i].element) for i in teasers]
    pairs = zip(teasers, listed, strict=True)
    if not all(inside or _under_linked_heading(page, i) for i, inside in pairs):
        return False
    if any(listed) or len(teasers) >= 2:
        return True
    # Any part of the title, however short: a match by chance keeps the body, as before.
    heading = fold_text(page.blocks[teasers[0] - 1].text)
    return not heading or not any(heading in title for title in headline_texts(page))


def _under_linked_heading(page: Page, index: int) -> bool:
    """Whether the block comes right after a heading that is all link (to its story)."""
    if index == 0:
        return False
    heading = page.blocks[index - 1]
    return heading.tag in HEADING_TAGS and heading.link_chars >= len(heading.text) > 0


def _in_teaser_list(element: etree._Element) -> bool:
    """Whether an item of a list above ``element`` is one of several items headed by a link
    (to the story each teases)."""
    for item in element.iterancestors("li"):
        items = [item, *item.itersiblings("li"), *item.itersiblings("li", preceding=True)]
        if sum(map(_has_linked_heading, items)) >= TEASER_LIST_MIN_ITEMS:
            return True
    return False


def _has_linked_heading(item: etree._Element) -> bool:
    """Whether the item's first heading holds a link."""
    heading = next(item.iter(*HEADING_TAGS), None)
    return heading is not None and next(heading.iter("a"), None) is not None


def is_error_page(page: Page, kept: tuple[int, ...]) -> bool:
    """The title, a heading or the kept text says the page was not found."""
    texts = [page.structured.title] + [page.blocks[i].text for i in kept]
    texts += [block.text for block in page.blocks if block.tag in ("h1", "h2")][:3]
    return any(re.search(_NOT_FOUND, text, re.I) for text in texts)

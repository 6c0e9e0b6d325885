"""The article record of a page: the decision's blocks as a body, with the page's metadata.

:func:`extract_article` chains the stages: the page model (given), the evidence and the
decision (:func:`..decision.combiner.decide`), then the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from newsextract.extraction.decision.combiner import DEFAULT, CombinerConfig, decide
from newsextract.extraction.pagemodel.page import Page
from newsextract.extraction.record.metadata import read_metadata


@dataclass(frozen=True)
class Article:
    """The product's answer for one page: schema.org Article fields plus provenance."""

    url: str | None
    body: str  # one paragraph a line; empty for a page with no main content
    headline: str = ""
    canonical_url: str = ""
    date_published: str = ""  # ISO 8601 where it could be parsed
    date_published_raw: str = ""
    authors: tuple[str, ...] = ()
    language: str = ""
    method: str = ""  # "single", "rules", ... with the contributing methods
    rule_version: str = ""  # the rule or template version that produced it, if any
    confidence: float = 0.0
    kept_blocks: tuple[int, ...] = field(default=(), repr=False)


class ScoredArticle(NamedTuple):
    article: Article
    scores: np.ndarray  # every block's final score (method E and the JSON-LD vote)


def extract_article(page: Page, config: CombinerConfig = DEFAULT) -> Article:
    """The article of one page: body, headline, date, authors, language, canonical URL."""
    return scored_article(page, config).article


def scored_article(page: Page, config: CombinerConfig = DEFAULT) -> ScoredArticle:
    """:func:`extract_article` with the block scores it kept blocks by."""
    decision = decide(page, config)
    kept, scores = decision.kept, decision.scores
    body = "\n".join(page.blocks[i].text for i in kept)
    metadata = read_metadata(page, body)
    article = Article(
        url=page.url,
        body=body,
        headline=metadata.headline,
        canonical_url=metadata.canonical_url,
        date_published=metadata.date_published,
        date_published_raw=metadata.date_published_raw,
        authors=metadata.authors,
        language=metadata.language,
        method=decision.method,
        confidence=round(float(scores[list(kept)].mean()), 4) if kept else 0.0,
        kept_blocks=kept,
    )
    return ScoredArticle(article, scores)

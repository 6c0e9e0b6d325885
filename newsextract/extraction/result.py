"""What every extraction method returns, and the article the product returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from newsextract.extraction.page import Page


@dataclass(frozen=True)
class MethodResult:
    """One method's verdict on one page.

    ``kept`` are indexes into ``page.blocks`` (document order); ``scores`` holds one
    score per block of the page where the method scores blocks (empty otherwise).
    """

    method: str
    kept: tuple[int, ...]
    score: float = 0.0  # the method's confidence in its whole answer, 0..1
    scores: tuple[float, ...] = ()

    def text(self, page: Page) -> str:
        return "\n".join(page.blocks[i].text for i in self.kept)


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

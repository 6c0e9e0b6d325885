"""The combiner: turns the single-page methods' evidence into one article.

Interim version (the page's blocks with low link density) until the methods land.
"""

from __future__ import annotations

from newsextract.extraction.page import Page
from newsextract.extraction.result import Article

MAX_LINK_DENSITY_DEFAULT = 0.5


def extract_article(page: Page) -> Article:
    kept = tuple(
        block.index for block in page.blocks if block.link_density < MAX_LINK_DENSITY_DEFAULT
    )
    body = "\n".join(page.blocks[i].text for i in kept)
    return Article(
        url=page.url,
        body=body,
        headline=page.structured.meta.get("og:title", page.structured.title),
        canonical_url=page.structured.canonical,
        language=page.structured.lang,
        method="single",
        kept_blocks=kept,
    )

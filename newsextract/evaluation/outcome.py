"""One page's result in a batch or evaluation run."""

from __future__ import annotations

from dataclasses import dataclass

from newsextract.evaluation.dataset import ManifestEntry
from newsextract.extraction.result import Article


@dataclass(frozen=True)
class PageOutcome:
    entry: ManifestEntry
    body: str  # empty when the page failed
    method: str
    seconds: float  # extraction time for this page (parsing included)
    error: str | None = None
    headline: str = ""  # the record's headline (the body leaves it out)
    #: The whole answer (dates, authors, language...), where the method gives one: the
    #: article record of ``batch`` is built from it, as a crawl builds its records.
    article: Article | None = None

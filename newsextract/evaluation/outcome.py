"""One page's result in a batch or evaluation run."""

from __future__ import annotations

from dataclasses import dataclass

from newsextract.evaluation.dataset import ManifestEntry
from newsextract.extraction.record.article import Article


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

    def answer(self) -> Article:
        """The article to build the page's record from: the method's whole answer, or one
        of the body and headline alone (site and rules modes give no more)."""
        if self.article is not None:
            return self.article
        entry = self.entry
        return Article(url=entry.url, body=self.body, headline=self.headline, method=self.method)

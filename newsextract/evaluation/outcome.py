"""One page's result in a batch or evaluation run."""

from __future__ import annotations

from dataclasses import dataclass

from newsextract.evaluation.dataset import ManifestEntry


@dataclass(frozen=True)
class PageOutcome:
    entry: ManifestEntry
    body: str  # empty when the page failed
    method: str
    seconds: float  # extraction time for this page (parsing included)
    error: str | None = None
    headline: str = ""  # the record's headline (the body leaves it out)

"""A page's gold, whole text or snippets, and the score of a body against it."""

from __future__ import annotations

from dataclasses import dataclass

from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.metric import PageScore, SnippetScore, score_page, score_snippets


@dataclass(frozen=True)
class Gold:
    """The whole main text, or snippets that must and must not be found."""

    text: str
    lang: str
    wanted: tuple[str, ...] = ()
    unwanted: tuple[str, ...] = ()
    snippets: bool = False

    def score(self, body: str) -> PageScore | SnippetScore:
        if self.snippets:
            return score_snippets(body, self.wanted, self.unwanted)
        return score_page(body, self.text, self.lang)

    @classmethod
    def of(cls, entry: ManifestEntry) -> Gold:
        if entry.has_snippet_gold:
            return cls("", entry.lang, entry.wanted_snippets, entry.unwanted_snippets, True)
        return cls(entry.read_gold(), entry.lang)

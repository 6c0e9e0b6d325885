"""What every extraction method returns: its verdict on a page's blocks."""

from __future__ import annotations

from dataclasses import dataclass

from newsextract.extraction.pagemodel.page import Page


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

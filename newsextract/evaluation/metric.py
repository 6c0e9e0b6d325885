"""The article-extraction metric of ``shared/data/README.md``: 4-token shingles, mean P and R.

Chinese, Japanese and Korean text is tokenised into single letters and digits, since
``\\w+`` would make a whole sentence one token. Sets whose gold is snippets (texts that must
and must not be in the output) are scored as trafilatura's own evaluation does: counts pooled
over all pages (:func:`score_snippets`, :func:`summarise_snippets`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

SHINGLE_SIZE = 4
CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})
_WORD = re.compile(r"\w+")
_CHAR = re.compile(r"[^\W_]")


def tokens(text: str, lang: str | None = None) -> list[str]:
    """Tokens as the metric defines them.

    >>> tokens("It's 4:30 now")
    ['It', 's', '4', '30', 'now']
    >>> tokens("東京都、晴れ", "ja")
    ['東', '京', '都', '晴', 'れ']
    """
    if lang and lang.split("-")[0].lower() in CJK_LANGUAGES:
        return _CHAR.findall(text)
    return _WORD.findall(text)


def shingles(token_list: list[str]) -> Counter[tuple[str, ...]]:
    """Multiset of 4-token runs; 1-3 tokens make one shingle; none make none."""
    if not token_list:
        return Counter()
    if len(token_list) < SHINGLE_SIZE:
        return Counter([tuple(token_list)])
    return Counter(
        tuple(token_list[i : i + SHINGLE_SIZE]) for i in range(len(token_list) - SHINGLE_SIZE + 1)
    )


@dataclass(frozen=True)
class PageScore:
    tp: int
    fp: int
    fn: int
    exact: bool

    @property
    def precision(self) -> float:
        if self.fp == 0 and self.fn == 0:
            return 1.0
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        if self.fp == 0 and self.fn == 0:
            return 1.0
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def has_prediction(self) -> bool:
        return self.tp + self.fp > 0

    @property
    def has_gold(self) -> bool:
        return self.tp + self.fn > 0


def score_page(predicted: str, gold: str, lang: str | None = None) -> PageScore:
    """Score one page's prediction against its gold text."""
    predicted_tokens, gold_tokens = tokens(predicted, lang), tokens(gold, lang)
    pred, true = shingles(predicted_tokens), shingles(gold_tokens)
    tp = sum((pred & true).values())
    return PageScore(
        tp=tp,
        fp=sum(pred.values()) - tp,
        fn=sum(true.values()) - tp,
        exact=predicted_tokens == gold_tokens,
    )


@dataclass(frozen=True)
class Summary:
    pages: int
    precision: float
    recall: float
    f1: float
    exact_rate: float
    share_f1_90: float
    share_f1_99: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "pages": self.pages,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "exact": round(self.exact_rate, 4),
            "f1>=0.9": round(self.share_f1_90, 4),
            "f1>=0.99": round(self.share_f1_99, 4),
        }


def summarise(scores: Iterable[PageScore]) -> Summary:
    """Precision: mean over pages with a prediction; recall: mean over pages with gold."""
    page_scores = list(scores)
    with_prediction = [s.precision for s in page_scores if s.has_prediction]
    with_gold = [s.recall for s in page_scores if s.has_gold]
    precision = sum(with_prediction) / len(with_prediction) if with_prediction else 0.0
    recall = sum(with_gold) / len(with_gold) if with_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    n = len(page_scores) or 1
    return Summary(
        pages=len(page_scores),
        precision=precision,
        recall=recall,
        f1=f1,
        exact_rate=sum(s.exact for s in page_scores) / n,
        share_f1_90=sum(s.f1 >= 0.9 for s in page_scores) / n,
        share_f1_99=sum(s.f1 >= 0.99 for s in page_scores) / n,
    )


@dataclass(frozen=True)
class SnippetScore:
    """One page against snippet gold: snippets that must be there (found: tp, missing: fn)
    and snippets that must not (found: fp)."""

    tp: int
    fp: int
    fn: int

    @property
    def f1(self) -> float:
        return (
            2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp + self.fp + self.fn else 1.0
        )


def score_snippets(predicted: str, wanted: Iterable[str], unwanted: Iterable[str]) -> SnippetScore:
    """Which snippets are found verbatim in the prediction.

    >>> score_snippets("a long text", ["long", "gone"], ["text"])
    SnippetScore(tp=1, fp=1, fn=1)
    """
    found = [snippet in predicted for snippet in wanted]
    return SnippetScore(
        tp=sum(found),
        fp=sum(snippet in predicted for snippet in unwanted),
        fn=len(found) - sum(found),
    )


def summarise_snippets(scores: Iterable[SnippetScore]) -> Summary:
    """Precision, recall and F1 of the counts pooled over all pages; the shares of pages at
    F1 >= 0.9 and >= 0.99 from each page's own counts (no exact match: there is no text)."""
    page_scores = list(scores)
    tp = sum(s.tp for s in page_scores)
    fp = sum(s.fp for s in page_scores)
    fn = sum(s.fn for s in page_scores)
    n = len(page_scores) or 1
    return Summary(
        pages=len(page_scores),
        precision=tp / (tp + fp) if tp + fp else 0.0,
        recall=tp / (tp + fn) if tp + fn else 0.0,
        f1=2 * tp / (2 * tp + fp + fn) if tp else 0.0,
        exact_rate=0.0,
        share_f1_90=sum(s.f1 >= 0.9 for s in page_scores) / n,
        share_f1_99=sum(s.f1 >= 0.99 for s in page_scores) / n,
    )


def summarise_set(scores: Iterable[PageScore | SnippetScore]) -> Summary:
    """A set's figures: pooled counts for snippet gold, the mean P and R of pages otherwise."""
    listed = list(scores)
    snippets = [s for s in listed if isinstance(s, SnippetScore)]
    if snippets:
        return summarise_snippets(snippets)
    return summarise(s for s in listed if isinstance(s, PageScore))

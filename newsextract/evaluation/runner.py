"""Run one extraction method over a manifest, time it, and score it against the gold text.

Speed is reported as BASELINES.md reports it, pages per second = 1 / median page time
(parsing included), and also from the mean, which long pages pull down.
"""

from __future__ import annotations

import importlib
import statistics
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from newsextract.evaluation.conventions import with_headline
from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.gold import Gold
from newsextract.evaluation.metric import (
    PageScore,
    SnippetScore,
    Summary,
    summarise_set,
)
from newsextract.evaluation.outcome import PageOutcome
from newsextract.exceptions import NewsExtractError, failure_reason
from newsextract.extraction.evidence.method import MethodResult
from newsextract.extraction.pagemodel.page import Page, parse_page
from newsextract.extraction.record.article import Article

#: The methods ``eval`` knows, the product's answer first.
METHOD_NAMES = ("combined", "fft", "punctuation", "classifier")


@dataclass(frozen=True)
class Extracted:
    """What a method gives for one page: the body and, for the product's answer, the
    headline (which the body leaves out)."""

    body: str
    headline: str = ""
    article: Article | None = None  # the whole answer, for the product's method


PageMethod = Callable[[Page], Extracted]


class MethodUnavailableError(NewsExtractError):
    """A method's module is not installed in this tree (yet)."""


def load_method(name: str) -> PageMethod:
    """The body extractor of a method name; raise :class:`MethodUnavailableError`."""
    if name == "combined":
        from newsextract.extraction.record.article import extract_article

        def combined(page: Page) -> Extracted:
            article = extract_article(page)
            return Extracted(article.body, article.headline, article)

        return combined
    module_name, function_name = _METHOD_FUNCTIONS.get(name, ("", ""))
    if not module_name:
        raise MethodUnavailableError(f"unknown method {name!r}; known: {', '.join(METHOD_NAMES)}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise MethodUnavailableError(f"method {name!r} is not available: {error}") from error
    method: Callable[[Page], MethodResult] = getattr(module, function_name)
    return lambda page: Extracted(method(page).text(page))


_METHOD_FUNCTIONS = {
    "fft": ("newsextract.extraction.evidence.fft", "fft_interval"),
    "punctuation": ("newsextract.extraction.evidence.punctuation", "punctuation_density"),
    "classifier": ("newsextract.extraction.evidence.classifier", "classify_blocks"),
}


def extract_one(entry: ManifestEntry, method: PageMethod, name: str) -> PageOutcome:
    """Read, parse and extract one page; a failure gives an empty body and its reason."""
    try:
        body = entry.read_html()
    except (OSError, EOFError, zlib.error) as error:  # EOFError, zlib.error: a broken .gz
        return PageOutcome(entry, "", name, 0.0, f"read: {error}")
    started = time.perf_counter()
    try:
        page = parse_page(body, entry.url, entry.content_type or None)
        extracted = method(page)
    except Exception as error:  # one page's failure, whatever it is, must not end a long run
        seconds = time.perf_counter() - started
        return PageOutcome(entry, "", name, seconds, failure_reason(error))
    seconds = time.perf_counter() - started
    return PageOutcome(
        entry, extracted.body, name, seconds, headline=extracted.headline, article=extracted.article
    )


def run_method(entries: Iterable[ManifestEntry], name: str) -> list[PageOutcome]:
    method = load_method(name)
    return [extract_one(entry, method, name) for entry in entries]


@dataclass(frozen=True)
class Speed:
    """Pages per second from the median and from the mean page time."""

    median_pages_per_second: float
    mean_pages_per_second: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Speed:
        if not seconds:
            return cls(0.0, 0.0)
        median, total = statistics.median(seconds), sum(seconds)
        return cls(1 / median if median else 0.0, len(seconds) / total if total else 0.0)


@dataclass(frozen=True)
class Evaluation:
    """One method's figures on one manifest."""

    method: str
    summary: Summary
    speed: Speed
    errors: int
    first_error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "method": self.method,
            **self.summary.as_dict(),
            "pages_per_second": round(self.speed.median_pages_per_second, 1),
            "pages_per_second_mean": round(self.speed.mean_pages_per_second, 1),
            "errors": self.errors,
            "first_error": self.first_error,
        }


def score_outcomes(
    outcomes: Sequence[PageOutcome], headline_first: bool = False
) -> list[PageScore | SnippetScore]:
    """Score each outcome against its gold (CJK languages tokenised by character; snippet
    gold by the snippets found), the headline before the body where the gold opens with it."""
    scores: list[PageScore | SnippetScore] = []
    for outcome in outcomes:
        body = outcome.body
        if headline_first:
            body = with_headline(body, outcome.headline)
        scores.append(Gold.of(outcome.entry).score(body))
    return scores


def evaluate(
    outcomes: Sequence[PageOutcome], method: str, headline_first: bool = False
) -> Evaluation:
    summary = summarise_set(score_outcomes(outcomes, headline_first))
    speed = Speed.of([outcome.seconds for outcome in outcomes if outcome.error is None])
    failures = [outcome.error for outcome in outcomes if outcome.error is not None]
    return Evaluation(method, summary, speed, len(failures), failures[0] if failures else None)


def evaluate_method(
    entries: Iterable[ManifestEntry], name: str, headline_first: bool = False
) -> Evaluation:
    """Extract every entry with method ``name`` and score the result."""
    return evaluate(run_method(entries, name), name, headline_first)

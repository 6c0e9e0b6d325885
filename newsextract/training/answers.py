"""The product's single-page answer with a given model, scored on a set's pages.

This is what a user gets (:func:`~newsextract.extraction.record.article.extract_article`: JSON-LD,
the keep rules and the headline apart), scored as the set's gold reads (the headline first
where the gold opens with it, snippets pooled where the gold is snippets). Pages are read
by a few worker processes, each building the model once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from newsextract.evaluation.conventions import HEADLINE_SETS, with_headline
from newsextract.evaluation.dataset import ManifestEntry
from newsextract.evaluation.gold import Gold
from newsextract.evaluation.metric import PageScore, SnippetScore
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.decision.combiner import CombinerConfig
from newsextract.extraction.evidence.classifier import ClassifierModel
from newsextract.extraction.pagemodel.page import parse_page
from newsextract.extraction.record.article import extract_article

#: Fewer pages than this are read in-process.
SMALL_JOB_PAGES = 32


@dataclass(frozen=True)
class AnswerJob:
    """One page to answer: its set (for the headline convention) and its manifest entry."""

    dataset: str
    entry: ManifestEntry


def answer_scores(
    model: ClassifierModel | None, jobs: Sequence[AnswerJob], workers: int | None = None
) -> list[PageScore | SnippetScore]:
    """Each page's score, in the order of ``jobs`` (``model`` None: the shipped one)."""
    data = model.to_json() if model is not None else None
    workers = workers or min(os.cpu_count() or 1, 4)
    if workers < 2 or len(jobs) < SMALL_JOB_PAGES:
        _start_worker(data)
        return [_score(job) for job in jobs]
    with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(data,)) as pool:
        return list(pool.map(_score, jobs, chunksize=8))


_CONFIG = CombinerConfig()


def _start_worker(model: dict[str, Any] | None) -> None:
    global _CONFIG
    if model is None:
        _CONFIG = CombinerConfig()
    else:  # through JSON, exactly what would ship
        _CONFIG = CombinerConfig(model=ClassifierModel.from_json(json.loads(json.dumps(model))))


def _score(job: AnswerJob) -> PageScore | SnippetScore:
    entry = job.entry
    try:
        article = extract_article(parse_page(entry.read_html(), url=entry.url), _CONFIG)
        body = article.body
        if job.dataset in HEADLINE_SETS:
            body = with_headline(body, article.headline)
    except NewsExtractError:
        body = ""
    return Gold.of(entry).score(body)

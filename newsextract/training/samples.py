"""Training pages: each development page parsed once, its blocks read and labelled."""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.evaluation.gold import Gold
from newsextract.evaluation.metric import tokens
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.decision.combiner import MAX_KEPT_LINK_SHARE_DEFAULT
from newsextract.extraction.evidence.classifier import title_blocks
from newsextract.extraction.pagemodel.blocktable import BlockTable, read_blocks
from newsextract.extraction.pagemodel.page import parse_page
from newsextract.progress import track
from newsextract.training.labels import (
    CONTENT_LABEL_DEFAULT,
    BlockLabels,
    label_blocks,
    label_snippets,
)

#: Fewer pages than this are read in-process: starting workers would cost more.
SMALL_JOB_PAGES = 64
#: A block with at least this share of its characters in links is all link.
ALL_LINK_SHARE = 0.9


@dataclass(frozen=True)
class PageSample:
    """One training page: its blocks' features and labels."""

    dataset: str
    page_id: str
    lang: str
    domain: str
    table: BlockTable
    title: np.ndarray  # 1 where a block is the page's headline
    label: np.ndarray  # share of each block's shingles found in the gold text
    weight: np.ndarray  # each page weighs 1 in all, spread over its labelled blocks by tokens
    texts: tuple[str, ...]
    gold: Gold


def load_page(entry: ManifestEntry, dataset: str) -> PageSample | None:
    try:
        page = parse_page(entry.read_html(), url=entry.url)
    except NewsExtractError:
        return None
    texts = tuple(block.text for block in page.blocks)
    gold = Gold.of(entry)
    table = read_blocks(page)
    title = title_blocks(page, table)
    labels = _labels(texts, gold)
    sizes = np.array([max(len(tokens(t, entry.lang)), 1) for t in texts], dtype=float)
    # The headline is a field of its own, outside the body: no label of it is learned.
    sizes *= labels.known & (title == 0) & ~_kept_links(table, labels.label)
    weight = sizes / max(sizes.sum(), 1.0) * len(texts) if texts else sizes
    domain = str(entry.fields.get("site") or entry.fields.get("domain") or entry.id)
    return PageSample(
        dataset, entry.id, entry.lang, domain, table, title, labels.label, weight, texts, gold
    )


def _kept_links(table: BlockTable, label: np.ndarray) -> np.ndarray:
    """Per block: whether it is all link and kept by a gold that is mostly links, as a
    listing page's gold keeps its items. The combiner calls such a body no article, so those
    blocks would teach the classifier only to keep lists of links."""
    kept = label >= CONTENT_LABEL_DEFAULT
    chars = float(table.chars[kept].sum())
    if not chars or table.link_chars[kept].sum() <= MAX_KEPT_LINK_SHARE_DEFAULT * chars:
        return np.zeros(len(label), dtype=bool)
    all_link: np.ndarray = kept & (
        table.link_chars >= ALL_LINK_SHARE * np.maximum(table.chars, 1.0)
    )
    return all_link


def _labels(texts: tuple[str, ...], gold: Gold) -> BlockLabels:
    if gold.snippets:
        return label_snippets(texts, gold.wanted, gold.unwanted)
    return BlockLabels(label_blocks(texts, gold.text, gold.lang), np.ones(len(texts), dtype=bool))


def _load_one(job: tuple[ManifestEntry, str]) -> PageSample | None:
    return load_page(*job)


def load_sets(
    data: Path, names: Iterable[str], workers: int | None = None, quiet: bool = True
) -> list[PageSample]:
    """Every page of the named sets under ``data`` (pages that do not parse are left out),
    with a progress bar unless ``quiet``."""
    jobs = [(entry, name) for name in names for entry in read_manifest(data / name)]
    workers = workers or min(os.cpu_count() or 1, 4)
    if workers < 2 or len(jobs) < SMALL_JOB_PAGES:
        loaded = [_load_one(job) for job in track(jobs, label="reading", quiet=quiet)]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            mapped = pool.map(_load_one, jobs, chunksize=16)
            loaded = list(track(mapped, total=len(jobs), label="reading", quiet=quiet))
    return [sample for sample in loaded if sample is not None]

"""Site mode on sites the single-page model never saw (``newsextract train --folds K
--site-mode``).

Site mode's own steps learn nothing from gold text, but its single-page answer (the veto when
learning rules, the narrowing of each rule answer) comes from a model trained on the
development sets. Here each page is read in site mode with the model of its fold, which learned
from the other folds' sites only, on the sets and groups of the site-group table of
``BASELINES.md``, beside that model's single mode on the same pages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from newsextract.evaluation.conventions import HEADLINE_SETS, with_headline
from newsextract.evaluation.dataset import ManifestEntry
from newsextract.extraction.decision.combiner import CombinerConfig
from newsextract.extraction.evidence.classifier import ClassifierModel
from newsextract.templates.config import TemplateConfig
from newsextract.templates.sitemode import extract_site_mode

#: Set -> the field its pages are grouped by and the pages a group needs, as in the table.
SITE_MODE_SETS: dict[str, tuple[str, int]] = {
    "msv_big9_dev": ("site", 2),
    "cleanportaleval": ("site_group", 2),
    "dragnet": ("domain", 5),
}

PageKey = tuple[str, str]  # (set, page id)


def site_mode_entries(
    entries: Mapping[PageKey, ManifestEntry],
) -> dict[str, list[ManifestEntry]]:
    """The pages of each site-mode set that are measured: those of groups large enough."""
    measured: dict[str, list[ManifestEntry]] = {}
    for name, (group_by, minimum) in SITE_MODE_SETS.items():
        members = [entry for (set_name, _), entry in entries.items() if set_name == name]
        sizes = Counter(entry.group_key(group_by) for entry in members)
        kept = [e for e in members if sizes[e.group_key(group_by)] >= minimum]
        if kept:
            measured[name] = kept
    return measured


def fold_site_mode(
    model: ClassifierModel, measured: Mapping[str, Sequence[ManifestEntry]]
) -> dict[PageKey, str]:
    """Site mode's body of every page given (the pages of one fold), with ``model`` as the
    single-page answer; a group whose pages fall in several folds is read in each apart."""
    config = TemplateConfig(single_page=CombinerConfig(model=model, main_region=False))
    bodies: dict[PageKey, str] = {}
    for name, members in measured.items():
        group_by = SITE_MODE_SETS[name][0]
        outcomes, _ = extract_site_mode(members, group_by=group_by, config=config)
        first = name in HEADLINE_SETS
        bodies.update(
            {
                (name, o.entry.id): with_headline(o.body, o.headline) if first else o.body
                for o in outcomes
            }
        )
    return bodies

"""One typed options object for the template stage, passed explicitly."""

from __future__ import annotations

from dataclasses import dataclass, field

from newsextract.extraction.decision.combiner import CombinerConfig
from newsextract.templates.combine import MIN_AGREEMENT_DEFAULT
from newsextract.templates.compile import CompileConfig
from newsextract.templates.consistency import ConsistencyConfig
from newsextract.templates.evidence import NOISE_WEIGHT_DEFAULT
from newsextract.templates.frequency import FrequencyConfig
from newsextract.templates.validate import ValidateConfig

#: Pages needed before a template is induced (seed 002 induces from a pair).
MIN_PAGES_DEFAULT = 2
#: Blocks the single-page answer rejects count as noise when learning the rules (issue 4).
SINGLE_PAGE_VETO_DEFAULT = True
#: Site mode narrows each rule answer to what the single-page answer agrees with
#: ("template+single"): msv_big9_dev 0.978 -> 0.983, cleanportaleval 0.965 -> 0.965, with
#: the method E combiner of 2026-11-29 as the single-page answer.
COMBINE_SINGLE_DEFAULT = True
#: Site mode drops the blocks the single-page answer keeps where the site's other pages drop
#: theirs (consistency.py). With the combination of combine.py, off -> on: dragnet's sites with
#: 5+ pages 0.9378 -> 0.9391, msv_big9_dev 0.9842 -> 0.9841, cleanportaleval 0.9655 either way.
SITE_CONSISTENCY_DEFAULT = True
#: Boxes named as noise (comments, related, share) count as noise when learning the rules.
NAMED_NOISE_DEFAULT = True


@dataclass(frozen=True)
class TemplateConfig:
    min_pages: int = MIN_PAGES_DEFAULT
    single_page_veto: bool = SINGLE_PAGE_VETO_DEFAULT
    named_noise: bool = NAMED_NOISE_DEFAULT
    combine_single: bool = COMBINE_SINGLE_DEFAULT
    site_consistency: bool = SITE_CONSISTENCY_DEFAULT
    min_agreement: float = MIN_AGREEMENT_DEFAULT
    noise_weight: float = NOISE_WEIGHT_DEFAULT
    frequency: FrequencyConfig = field(default_factory=FrequencyConfig)
    compile: CompileConfig = field(default_factory=CompileConfig)
    consistency: ConsistencyConfig = field(default_factory=ConsistencyConfig)
    validate: ValidateConfig = field(default_factory=ValidateConfig)
    # the single-page answer's settings and model (a held-out model, when measuring); no
    # main region in place of an article: templates are of articles
    single_page: CombinerConfig = field(default_factory=lambda: CombinerConfig(main_region=False))


DEFAULT = TemplateConfig()

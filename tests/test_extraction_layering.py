"""The runtime extraction package needs the page and the shipped model, nothing more.

Training and its measures live in ``newsextract.training``; evaluation, templates, the crawl
and Scrapy are never imported by ``newsextract.extraction``. Inside it, the stages follow the
data (page model, evidence, decision, record) and none imports a later one.
"""

from __future__ import annotations

from pathlib import Path

from imports import imported_names

import newsextract.extraction

ALLOWED = ("newsextract.extraction", "newsextract.exceptions")
FORBIDDEN_THIRD_PARTY = ("scrapy", "twisted", "justext", "stopwordsiso")


def test_extraction_imports_nothing_from_training_evaluation_templates_or_scrapy() -> None:
    folder = Path(newsextract.extraction.__file__).parent
    modules = sorted(folder.rglob("*.py"))
    assert len(modules) > 10
    for module in modules:
        for name in imported_names(module):
            if name.startswith("newsextract"):
                assert name.startswith(ALLOWED), f"{module.name} imports {name}"
            assert not name.startswith(FORBIDDEN_THIRD_PARTY), f"{module.name} imports {name}"


STAGES = ("pagemodel", "evidence", "decision", "record")


def _stage(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] != ["newsextract", "extraction"] or len(parts) < 3 or parts[2] not in STAGES:
        return None
    return STAGES.index(parts[2])


def test_no_stage_imports_a_later_one() -> None:
    folder = Path(newsextract.extraction.__file__).parent
    for stage, name in enumerate(STAGES):
        modules = sorted((folder / name).glob("*.py"))
        assert modules, name
        for module in modules:
            for imported in imported_names(module):
                later = _stage(imported)
                assert later is None or later <= stage, f"{name}/{module.name} imports {imported}"


def test_every_extraction_module_belongs_to_a_stage() -> None:
    folder = Path(newsextract.extraction.__file__).parent
    assert [p.name for p in folder.glob("*.py")] == ["__init__.py"]

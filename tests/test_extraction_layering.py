"""The runtime extraction package needs the page and the shipped model, nothing more.

Training and its measures live in ``newsextract.training``; evaluation, templates, the crawl
and Scrapy are never imported by ``newsextract.extraction``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import newsextract.extraction

ALLOWED = ("newsextract.extraction", "newsextract.exceptions")
FORBIDDEN_THIRD_PARTY = ("scrapy", "twisted", "justext", "stopwordsiso")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_extraction_imports_nothing_from_training_evaluation_templates_or_scrapy() -> None:
    folder = Path(newsextract.extraction.__file__).parent
    modules = sorted(folder.glob("*.py"))
    assert len(modules) > 10
    for module in modules:
        for name in _imports(module):
            if name.startswith("newsextract"):
                assert name.startswith(ALLOWED), f"{module.name} imports {name}"
            assert not name.startswith(FORBIDDEN_THIRD_PARTY), f"{module.name} imports {name}"

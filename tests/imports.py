"""What a source file of the package imports, read from its syntax tree (layering tests)."""

from __future__ import annotations

import ast
from pathlib import Path


def imported_names(path: Path) -> set[str]:
    """Every module the file imports, wherever the statement stands (inside a function
    too), and each name taken from a module as ``module.name``, which may be a submodule.
    Relative imports are left out: the package writes none."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names

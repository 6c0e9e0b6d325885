"""The command layer sits on top: nothing imports ``newsextract.cli``, and no two modules of
the package import each other, even through an import inside a function."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from imports import imported_names

import newsextract

PACKAGE = Path(newsextract.__file__).parent


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules ``path`` imports, wherever the import statement stands."""
    return {name for name in imported_names(path) if name in known}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of the graph, or [] (a depth-first walk)."""
    state: dict[str, int] = {}  # 1: on the walk's path, 2: done
    path: list[str] = []

    def walk(module: str) -> Iterator[list[str]]:
        state[module] = 1
        path.append(module)
        for imported in sorted(graph[module]):
            if state.get(imported) == 1:
                yield path[path.index(imported) :] + [imported]
            elif imported not in state:
                yield from walk(imported)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            for found in walk(module):
                return found
    return []


def test_only_the_command_layer_imports_itself() -> None:
    modules = _modules()
    assert "newsextract.cli.batch" in modules
    for name, path in modules.items():
        if not name.startswith("newsextract.cli"):
            upward = {m for m in _imports(path, modules) if m.startswith("newsextract.cli")}
            assert not upward, f"{name} imports {upward}"


def test_no_import_circle_in_the_package() -> None:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    assert _cycle(graph) == []


def test_a_circle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []

"""The game service and the service kit stay in parts a reader takes in at one sitting: no service object that
holds every use case, no module that is the whole of a concern's four, and no import circle between the parts.

A walk over the source with ``ast``, as ``tests/ai/test_import_graph.py`` does for the AI worker's boundary."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"torres_game": ROOT / "services/game/torres_game",
            "torres_service": ROOT / "shared/service/torres_service"}
#: The store adapters implement the ``EventStore`` port, one method per store operation: their size is the port's.
STORE = PACKAGES["torres_game"] / "store"
MOST_METHODS = 25
MOST_LINES = 700


def _sources() -> list[Path]:
    return sorted(path for root in PACKAGES.values() for path in root.rglob("*.py"))


def _module(path: Path) -> str:
    for package, root in PACKAGES.items():
        if path.is_relative_to(root):
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise ValueError(path)


def test_no_class_outside_the_store_adapters_holds_every_use_case() -> None:
    crowded = []
    for path in _sources():
        if path.is_relative_to(STORE):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                methods = sum(isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) for item in node.body)
                if methods > MOST_METHODS:
                    crowded.append(f"{_module(path)}.{node.name}: {methods} methods")
    assert crowded == []


@pytest.mark.parametrize("path", _sources(), ids=lambda path: _module(path))
def test_every_module_is_read_in_one_sitting(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MOST_LINES


def test_the_parts_of_the_service_and_of_the_rate_limits_import_no_circle() -> None:
    modules = {_module(path): path for path in _sources()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join([*base, node.module] if node.module else base)
                found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
        graph[name] = (found & modules.keys()) - {name}
    assert "torres_game.writes" in graph["torres_game.commands"], "the walk found no import: it is broken"
    assert "torres_service.ratelimit_counts" in graph["torres_service.ratelimits"]

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph[start] - seen:
            seen.add(nxt)
            if nxt == goal or reaches(nxt, goal, seen):
                return True
        return False

    assert sorted(name for name in graph if reaches(name, name, set())) == []

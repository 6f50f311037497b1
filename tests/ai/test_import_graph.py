"""The AI worker crosses into the game service through its two doors (AI turns, post-game analyses), and nothing
imports back.

A short walk over the source with ``ast`` (every import statement, also those inside functions and under
``TYPE_CHECKING``: a type-only import is still a dependency a reader must follow) rather than a graph library.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"torres_game": ROOT / "services/game/torres_game", "torres_ai": ROOT / "services/ai-worker/torres_ai"}


def _module_name(package: str, path: Path) -> str:
    parts = [package, *path.relative_to(PACKAGES[package]).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(package: str, path: Path) -> set[str]:
    """The modules ``path`` imports (absolute names; ``from pkg import mod`` counts as ``pkg.mod`` when that is
    a module of ours)."""
    name = _module_name(package, path)
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            submodules = {f"{module}.{alias.name}" for alias in node.names} & MODULES
            found.update(submodules or {module})
    return {m for m in found if m.split(".")[0] in PACKAGES}


MODULES = {_module_name(pkg, p) for pkg, root in PACKAGES.items() for p in root.rglob("*.py")}


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for package, root in PACKAGES.items():
        for path in root.rglob("*.py"):
            graph[_module_name(package, path)] = {m for m in _imports(package, path) if m in MODULES}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_the_ai_worker_enters_the_game_service_through_ai_turns_and_analyses_only() -> None:
    graph = _graph()
    crossings = {(src, dst) for src, dsts in graph.items() if src.startswith("torres_ai")
                 for dst in dsts if dst.split(".")[0] == "torres_game"}
    assert crossings, "the walk found no import at all: it is broken"
    assert {dst for _, dst in crossings} == {"torres_game.ai_turns", "torres_game.analyses"}, sorted(crossings)


def test_the_game_service_never_imports_the_ai_worker() -> None:
    graph = _graph()
    back = sorted((src, dst) for src, dsts in graph.items() if src.startswith("torres_game")
                  for dst in dsts if dst.startswith("torres_ai"))
    assert back == []


def test_the_game_service_names_no_module_of_the_ai_worker_either() -> None:
    """Not even as a string to import later: an installed worker declares its driver by an entry point."""
    named = []
    for path in PACKAGES["torres_game"].rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)}
        named += [f"{path.name}: {node.value!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and "torres_ai" in node.value
                  and id(node) not in docstrings]
    assert named == []


def test_no_import_circle_in_either_package() -> None:
    graph = _graph()
    assert graph["torres_game.service"], "the walk found no import of the service: it is broken"
    assert "torres_game.service" in graph["torres_game.ai_turns"]
    assert _cycles(graph) == []

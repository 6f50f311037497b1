"""The layout shows the system (docs/architecture.md): deployable services under ``services/``, the libraries several
of them import under ``shared/``, clients under ``clients/``, and imports that only run down that order.

Each component is a folder with a pyproject; its package's imports of the project's other packages are read from
the source with ``ast`` (every import statement, also those inside functions: a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Where components live, lowest layer first: a component may import only its own layer or those before it.
LAYERS = ("shared", "services", "clients")
#: The services, and the clients: what a shared library must never name, even in a string.
USERS = re.compile(r"\btorres_(game|ai|matchmaking|terminal)\b")


@dataclass(frozen=True)
class Component:
    folder: Path
    distribution: str
    package: str
    requires: frozenset[str]  # the distributions its pyproject declares, extras included

    @property
    def layer(self) -> int:
        return LAYERS.index(self.folder.relative_to(ROOT).parts[0])

    @property
    def root(self) -> Path:
        return self.folder / self.package

    def sources(self) -> list[Path]:
        return sorted(self.root.rglob("*.py"))


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _components() -> list[Component]:
    found = []
    for pyproject in sorted(path for layer in LAYERS for path in (ROOT / layer).glob("**/pyproject.toml")):
        if "node_modules" in pyproject.parts:
            continue
        meta = tomllib.loads(pyproject.read_text())
        project = meta["project"]
        package = meta["tool"]["setuptools"]["packages"]["find"]["include"][0]
        requires = [*project.get("dependencies", ()),
                    *(r for extra in project.get("optional-dependencies", {}).values() for r in extra)]
        found.append(Component(pyproject.parent, _name(project["name"]), package, frozenset(map(_name, requires))))
    return found


COMPONENTS = _components()
BY_PACKAGE = {c.package: c for c in COMPONENTS}


def _imported(component: Component) -> dict[str, set[str]]:
    """The project's other packages that ``component`` imports, each with the modules that import it."""
    out: dict[str, set[str]] = {}
    for path in component.sources():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in BY_PACKAGE and top != component.package:
                    out.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return out


GRAPH = {c.package: _imported(c) for c in COMPONENTS}


def test_the_components_are_where_the_architecture_puts_them() -> None:
    where = {c.package: str(c.folder.relative_to(ROOT)) for c in COMPONENTS}
    assert where == {
        "torres_rules": "shared", "torres_online": "shared/online", "torres_audit": "shared/audit",
        "torres_service": "shared/service", "torres_game": "services/game", "torres_ai": "services/ai-worker",
        "torres_matchmaking": "services/matchmaking", "torres_terminal": "clients/terminal",
    }
    assert GRAPH["torres_game"].keys() >= {"torres_rules", "torres_online", "torres_audit", "torres_service"}, (
        "the walk found too few imports: it is broken")


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda c: c.package)
def test_a_component_imports_only_what_its_pyproject_declares(component: Component) -> None:
    undeclared = {package: sorted(modules) for package, modules in GRAPH[component.package].items()
                  if BY_PACKAGE[package].distribution not in component.requires}
    assert undeclared == {}


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda c: c.package)
def test_no_import_runs_up_the_layers(component: Component) -> None:
    upward = {package: sorted(modules) for package, modules in GRAPH[component.package].items()
              if BY_PACKAGE[package].layer > component.layer}
    assert upward == {}


def test_the_rules_engine_imports_nothing_of_ours() -> None:
    assert GRAPH["torres_rules"] == {}


def test_no_circle_between_the_packages() -> None:
    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in GRAPH[start].keys() - seen:
            seen.add(nxt)
            if nxt == goal or reaches(nxt, goal, seen):
                return True
        return False

    assert sorted(package for package in GRAPH if reaches(package, package, set())) == []


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (they may say who uses a module)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


@pytest.mark.parametrize("component", [c for c in COMPONENTS if c.layer == 0], ids=lambda c: c.package)
def test_a_shared_library_names_none_of_its_users(component: Component) -> None:
    """Not even by a string that is loaded by name: each service declares what the shared library collects (the
    settings table reads the ``torres_service.settings`` entry points)."""
    named = []
    for path in component.sources():
        tree = ast.parse(path.read_text(), str(path))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                    and USERS.search(node.value)):
                named.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:60]!r}")
    assert named == []


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda c: c.package)
def test_no_test_infrastructure_in_a_component(component: Component) -> None:
    """Test helpers live under tests/: no module of a component imports a test framework."""
    tools = {"pytest", "hypothesis", "_pytest"}
    found = []
    for path in component.sources():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.relative_to(ROOT)}: {name}" for name in names if name.split(".")[0] in tools]
    assert found == []

"""docs/security.md cannot drift from the suite: every test it names as ``tests/<file>.py::<name>``
exists (the file, and a test function or class of that name in it), and every test file it names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "security.md"

NAMED = re.compile(r"\b(tests/[\w/]+\.py)::(\w+)")
FILES = re.compile(r"\b(tests/[\w/]+\.py)\b")


def _defined(path: Path) -> set[str]:
    """Top-level functions and classes of a test module, and the methods of its classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {n.name for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    return names


def test_every_test_the_security_document_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = sorted(set(NAMED.findall(text)))
    assert len(named) >= 40, "the threat model names its tests as tests/<file>.py::<name>"
    missing = [f"{file}::{name}" for file, name in named
               if not (ROOT / file).is_file() or name not in _defined(ROOT / file)]
    assert not missing, f"docs/security.md names tests that do not exist: {missing}"


def test_every_test_file_the_security_document_names_exists() -> None:
    files = sorted(set(FILES.findall(DOC.read_text(encoding="utf-8"))))
    assert files
    missing = [file for file in files if not (ROOT / file).is_file()]
    assert not missing, f"docs/security.md names test files that do not exist: {missing}"


def test_the_check_catches_a_renamed_test(tmp_path: Path) -> None:
    """The parser finds a reference and tells a missing name from a present one."""
    module = tmp_path / "t.py"
    module.write_text("def test_a():\n    pass\n\nclass TestB:\n    def test_c(self):\n        pass\n")
    assert {"test_a", "TestB", "test_c"} <= _defined(module)
    assert NAMED.findall("see `tests/game/test_x.py::test_y`, and tests/a/b.py::c.") == [
        ("tests/game/test_x.py", "test_y"), ("tests/a/b.py", "c")]

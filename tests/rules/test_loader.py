"""The build choice of torres_rules/_loader.py: a compiled build whose sources changed is never loaded, and
TORRES_RULES_PURE=1 rules the compiled build out. Run on a copy of the package and its build folder, each in a
fresh interpreter (the choice is made on first import)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import torres_rules as tr

SHARED = Path(tr.__file__).resolve().parents[1]
PROBE = "import logging, sys; logging.basicConfig(stream=sys.stdout, level=logging.INFO); import torres_rules as t;" \
        " print(t.ENGINE_BUILD, t.actions.__file__)"


def load(copy: Path, pure: bool = False) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TORRES_RULES_PURE"}
    env["PYTHONPATH"] = str(copy)
    if pure:
        env["TORRES_RULES_PURE"] = "1"
    return subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=copy, check=True, capture_output=True,
                          text=True).stdout


def test_stale_or_refused_compiled_build_falls_back_to_the_pure_sources(tmp_path: Path) -> None:
    if not (SHARED / "build" / "compiled" / "SOURCES.sha256").is_file():
        pytest.skip("no compiled build here (`make install` builds it)")
    shutil.copytree(SHARED / "torres_rules", tmp_path / "torres_rules", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SHARED / "build" / "compiled", tmp_path / "build" / "compiled")
    assert "compiled (mypyc) build loaded" in load(tmp_path)
    out = load(tmp_path, pure=True)
    assert "pure Python build loaded (TORRES_RULES_PURE=1)" in out and "actions.py" in out
    with (tmp_path / "torres_rules" / "scoring.py").open("a") as source:
        source.write("# an edit after the build\n")
    out = load(tmp_path)
    assert "compiled build is stale" in out and out.splitlines()[-1].startswith("pure ")
    assert out.splitlines()[-1].endswith("actions.py")

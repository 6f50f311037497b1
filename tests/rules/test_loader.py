"""The build choice of torres_rules/_loader.py: a compiled build whose sources changed is never loaded,
TORRES_RULES_PURE=1 rules the compiled build out, and a package installed the way the image installs it carries its
compiled build along. Run on copies of the package (its compiled build inside), each in a fresh interpreter (the
choice is made on first import)."""

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


def need_compiled_build() -> None:
    if not (SHARED / "torres_rules" / "_compiled" / "SOURCES.sha256").is_file():
        pytest.skip("no compiled build here (`make install` builds it)")


def test_stale_or_refused_compiled_build_falls_back_to_the_pure_sources(tmp_path: Path) -> None:
    need_compiled_build()
    shutil.copytree(SHARED / "torres_rules", tmp_path / "torres_rules", ignore=shutil.ignore_patterns("__pycache__"))
    assert "compiled (mypyc) build loaded" in load(tmp_path)
    out = load(tmp_path, pure=True)
    assert "pure Python build loaded (TORRES_RULES_PURE=1)" in out and "actions.py" in out
    with (tmp_path / "torres_rules" / "scoring.py").open("a") as source:
        source.write("# an edit after the build\n")
    out = load(tmp_path)
    assert "compiled build is stale" in out and out.splitlines()[-1].startswith("pure ")
    assert out.splitlines()[-1].endswith("actions.py")


def test_the_package_installed_as_the_image_installs_it_loads_its_compiled_build(tmp_path: Path) -> None:
    """The Dockerfile runs build_compiled.py, then `pip install ./shared`: the compiled build is package data."""
    need_compiled_build()
    source = tmp_path / "src"
    shutil.copytree(SHARED / "torres_rules", source / "torres_rules", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(SHARED / "pyproject.toml", source)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(tmp_path / "site"), str(source)], check=True, capture_output=True)
    out = load(tmp_path / "site")
    assert "compiled (mypyc) build loaded" in out
    build, actions = out.splitlines()[-1].split()
    assert build == "compiled" and Path(actions).parent == tmp_path / "site" / "torres_rules" / "_compiled"

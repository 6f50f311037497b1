"""The components as a deploy gets them: each built as a wheel and installed, not editable, into a clean virtual
environment that holds the runtime lock and nothing else, where every module of every component must import.

The editable install of `make install` reads the checkout, so a subpackage or data file that a component's
pyproject leaves out of its wheel goes unnoticed there; here it fails (the image installs the same wheels).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, tool

#: The runtime components (requirements-runtime.in) and their top-level packages.
COMPONENTS = {
    "shared": "torres_rules",
    "shared/online": "torres_online",
    "shared/audit": "torres_audit",
    "shared/service": "torres_service",
    "services/game": "torres_game",
    "services/ai-worker": "torres_ai",
    "services/matchmaking": "torres_matchmaking",
}
#: Modules that belong to an optional extra, and the modules of that extra's distributions (open-spiel and its
#: numpy) whose absence they may fail on without it.
EXTRAS = {"torres_ai.openspiel": {"pyspiel", "numpy"}}

IMPORT_ALL = """
import importlib, importlib.util, json, pathlib, sys
found, failed, files = [], {}, {}
for top in sys.argv[1:]:
    root = pathlib.Path(importlib.util.find_spec(top).origin).parent  # found, not imported: its __init__ may fail
    files[top] = str(root)
    for path in sorted(root.rglob("*.py")):  # what the wheel shipped
        parts = path.relative_to(root.parent).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
for name in found:
    if name.rsplit(".", 1)[-1] in ("__main__", "wsgi"):
        continue  # entry points: they run a command or build the app from the environment when imported
        # (tests/deploy/test_image.py starts each of them from the image)
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = [type(exc).__name__, str(exc), getattr(exc, "name", None)]
print(json.dumps({"found": found, "failed": failed, "files": files}))
"""


def lock_names(lock: Path) -> dict[str, str]:
    """{normalized distribution name: version} of a hashed lock."""
    pins = re.findall(r"(?m)^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(\S+)", lock.read_text())
    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in pins}


def source_modules(folder: Path, top: str) -> set[str]:
    """Every module of a component's package in the checkout (tracked by git), as dotted names."""
    tracked = subprocess.run(["git", "ls-files", "--", f"{top}/"], cwd=ROOT / folder, capture_output=True,
                             text=True, check=True).stdout.split()
    names = set()
    for path in tracked:
        if path.endswith(".py"):
            name = path[:-3].replace("/", ".")
            names.add(name.removesuffix(".__init__"))
    return names


@pytest.fixture(scope="module")
def runtime_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean virtual environment: the runtime lock (hash-checked), then each component's wheel, no deps."""
    uv = tool("uv", Path(sys.executable).parent / "uv")
    base = tmp_path_factory.mktemp("runtime")
    wheels, env = base / "wheels", base / "env"
    # from a copy of the tracked files: a setuptools build in the checkout reuses its build/ folder, whose
    # leftovers from an earlier build would hide what the pyproject leaves out
    sources = base / "src"
    for component in COMPONENTS:
        for path in subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                                   cwd=ROOT / component, capture_output=True, text=True, check=True).stdout.split():
            (sources / component / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / component / path, sources / component / path)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(wheels), *(str(sources / c) for c in COMPONENTS)], check=True, cwd=base)
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(env)], check=True)
    python = str(env / "bin" / "python")
    subprocess.run([uv, "pip", "install", "--quiet", "--python", python, "--require-hashes",
                    "-r", str(ROOT / "requirements-runtime.lock")], check=True)
    subprocess.run([uv, "pip", "install", "--quiet", "--python", python, "--no-deps",
                    *map(str, sorted(wheels.glob("*.whl")))], check=True)
    return env


def test_every_module_of_every_component_imports_from_its_wheel(runtime_env: Path, tmp_path: Path) -> None:
    result = subprocess.run([str(runtime_env / "bin" / "python"), "-I", "-c", IMPORT_ALL, *COMPONENTS.values()],
                            capture_output=True, text=True, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    for top, file in report["files"].items():  # the installed copy, not the checkout
        assert str(runtime_env) in file and str(ROOT) not in file, (top, file)
    failed = {name: why for name, why in report["failed"].items()
              if not any((name == extra or name.startswith(extra + ".")) and why[2] in missing
                         for extra, missing in EXTRAS.items())}
    assert not failed, failed
    shipped = set(report["found"])
    for folder, top in COMPONENTS.items():
        missing = source_modules(Path(folder), top) - shipped
        assert not missing, f"{folder}'s wheel leaves out {sorted(missing)}"


def test_data_files_ship_in_the_wheels(runtime_env: Path, tmp_path: Path) -> None:
    """The matchmaker's Redis scripts are package data: the store registers every one of them at start."""
    script = ("from importlib import resources; import torres_matchmaking as m;"
              "print(sorted(p.name for p in resources.files(m).joinpath('lua').iterdir()))")
    shipped = subprocess.run([str(runtime_env / "bin" / "python"), "-I", "-c", script], capture_output=True,
                             text=True, cwd=tmp_path, check=True).stdout
    sources = sorted(p.name for p in (ROOT / "services/matchmaking/torres_matchmaking/lua").glob("*.lua"))
    assert sources and shipped.strip() == repr(sources)


def test_the_runtime_environment_holds_the_runtime_lock_only(runtime_env: Path, tmp_path: Path) -> None:
    """Nothing of the development set (test runners, linters, Playwright, OpenSpiel...) is a runtime dependency."""
    listing = subprocess.run([str(runtime_env / "bin" / "python"), "-I", "-c",
                              "import importlib.metadata as m, json;"
                              "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"],
                             capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    installed = {re.sub(r"[-_.]+", "-", k).lower(): v for k, v in json.loads(listing).items()}
    runtime = lock_names(ROOT / "requirements-runtime.lock")
    components = {"torres-rules", "torres-online", "torres-audit", "torres-service", "torres-game",
                  "torres-ai-worker", "torres-matchmaking"}
    assert set(installed) - components <= set(runtime), set(installed) - components - set(runtime)
    dev_only = set(lock_names(ROOT / "requirements.lock")) - set(runtime)
    assert {"pytest", "playwright", "open-spiel", "mypy", "ruff", "fakeredis", "matplotlib"} <= dev_only
    assert not dev_only & set(installed)


def test_the_locks_agree() -> None:
    """The runtime and build locks are subsets of the development lock at the same pins (make lock makes them so):
    what the image runs is what `make test` tested."""
    dev = lock_names(ROOT / "requirements.lock")
    for name in ("requirements-runtime.lock", "requirements-build.lock"):
        pins = lock_names(ROOT / name)
        assert pins and {k: dev.get(k) for k in pins} == pins, name
        text = (ROOT / name).read_text()
        for block in re.split(r"(?m)^(?=[A-Za-z0-9])", text):
            if "==" in block:
                assert "--hash=sha256:" in block, f"{name}: {block.splitlines()[0]} has no hash"

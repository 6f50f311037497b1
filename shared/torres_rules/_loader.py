"""Which build of the engine this process runs: the compiled (mypyc) one or the pure Python one.

Both come from the same source files. `shared/build_compiled.py` (run by `make install`, and by the image build)
compiles them into a folder inside the package, `torres_rules/_compiled/`, with the digest of the sources it compiled;
the package ships that folder as package data, so an installed copy (the image's) carries its compiled build along.
`select` puts that folder first on the package's `__path__`, so `import torres_rules.actions` finds the extension
module there before the `.py` file here -- but only when

- TORRES_RULES_PURE is not set to 1 (tests and benchmarks run both builds; anyone can rule the compiled one out),
- the digest matches the sources now (a stale build never shadows edited source: it is ignored, and said so),
- an extension module for this interpreter exists for every source module and the shared library imports.

Otherwise the pure modules load. Either way one log line says which build runs. This module and `__init__`
are never compiled: they choose.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import logging
import os
import sys
from collections.abc import MutableSequence
from pathlib import Path

COMPILED_DIR_NAME = "_compiled"
DIGEST_FILE = "SOURCES.sha256"
NOT_COMPILED = ("__init__", "_loader")
SHARED_LIBRARY = "_native__mypyc"  # mypyc's shared library for group "torres_rules._native"

log = logging.getLogger("torres_rules")


def compiled_modules(package: Path) -> list[str]:
    """The modules the compiled build holds: every source module but the two that choose the build."""
    return sorted(p.stem for p in package.glob("*.py") if p.stem not in NOT_COMPILED)


def source_digest(package: Path) -> str:
    """SHA-256 over the names and bytes of the compiled modules' sources."""
    digest = hashlib.sha256()
    for name in compiled_modules(package):
        digest.update(name.encode() + b"\0" + (package / f"{name}.py").read_bytes() + b"\0")
    return digest.hexdigest()


def _compiled_dir_problem(package: Path, folder: Path) -> str | None:
    """Why the compiled build in `folder` cannot be used, or None when it can."""
    if not (folder / DIGEST_FILE).is_file():
        return f"no compiled build (run `make install`; looked in {folder})"
    if (folder / DIGEST_FILE).read_text().strip() != source_digest(package):
        return "the compiled build is stale (sources changed since it was built; `make install` rebuilds it)"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    missing = [m for m in (*compiled_modules(package), SHARED_LIBRARY) if not (folder / f"{m}{suffix}").is_file()]
    if missing:
        return f"the compiled build has no {', '.join(missing)} for this interpreter ({suffix})"
    return None


def select(package_path: MutableSequence[str]) -> str:
    """Choose the build for the package whose `__path__` is `package_path` (changed in place); returns
    "compiled" or "pure" and logs one line saying which and, for pure, why."""
    package = Path(package_path[0])
    if os.environ.get("TORRES_RULES_PURE") == "1":
        log.info("torres_rules: pure Python build loaded (TORRES_RULES_PURE=1)")
        return "pure"
    folder = package / COMPILED_DIR_NAME
    problem = _compiled_dir_problem(package, folder)
    if problem is None:
        package_path.insert(0, str(folder))
        try:
            importlib.import_module(f"{__package__}.{SHARED_LIBRARY}")
        except ImportError as exc:
            package_path.remove(str(folder))
            problem = f"the compiled build does not import: {exc}"
    if problem is not None:
        level = logging.WARNING if "stale" in problem or "does not import" in problem else logging.INFO
        log.log(level, "torres_rules: pure Python build loaded; %s", problem)
        return "pure"
    log.info("torres_rules: compiled (mypyc) build loaded from %s", folder)
    return "compiled"


# Chosen on the package's first import, before `__init__` imports any other module of it.
ENGINE_BUILD = select(sys.modules[__package__].__path__) if __package__ in sys.modules else "pure"

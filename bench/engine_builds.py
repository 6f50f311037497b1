"""Which rules-engine builds the benchmarks can compare here, and the environment that selects each.

The compiled (mypyc) build exists where `make install` could compile it; the pure build always does. Each build
is chosen when torres_rules is first imported, so a benchmark runs each in its own process.
"""

from __future__ import annotations

import os
import subprocess
import sys


def build_env(build: str) -> dict[str, str]:
    """The environment of a process that should load `build` ("compiled" or "pure")."""
    env = {k: v for k, v in os.environ.items() if k != "TORRES_RULES_PURE"}
    if build == "pure":
        env["TORRES_RULES_PURE"] = "1"
    return env


def available_builds() -> tuple[str, ...]:
    """("compiled", "pure"), or ("pure",) with a note on stdout where no compiled build loads."""
    loaded = subprocess.run([sys.executable, "-c", "import torres_rules as tr; print(tr.ENGINE_BUILD)"],
                            env=build_env("compiled"), check=True, capture_output=True, text=True).stdout.strip()
    if loaded == "compiled":
        return ("compiled", "pure")
    print("no compiled rules engine here (`make install` builds it where a C compiler is present): pure only")
    return ("pure",)

"""Which rules-engine builds the benchmarks can compare here, and the environment that selects each.

The compiled (mypyc) build exists where `make install` could compile it; the pure build always does. Each build
is chosen when torres_rules is first imported, so a benchmark runs each in its own process.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys


def build_env(build: str) -> dict[str, str]:
    """The environment of a process that should load `build` ("compiled" or "pure")."""
    env = {k: v for k, v in os.environ.items() if k != "TORRES_RULES_PURE"}
    if build == "pure":
        env["TORRES_RULES_PURE"] = "1"
    return env


BUILDS = ("compiled", "pure")


def available_builds(wanted: str = ",".join(BUILDS)) -> tuple[str, ...]:
    """The builds of ``wanted`` (a comma-separated list, ``--builds``) that load here, with a note on stdout for
    the compiled one where it does not."""
    asked = tuple(name for name in BUILDS if name in wanted.split(","))
    if "compiled" not in asked:
        return asked
    loaded = subprocess.run([sys.executable, "-c", "import torres_rules as tr; print(tr.ENGINE_BUILD)"],
                            env=build_env("compiled"), check=True, capture_output=True, text=True).stdout.strip()
    if loaded == "compiled":
        return asked
    print("no compiled rules engine here (`make install` builds it where a C compiler is present): pure only")
    return tuple(name for name in asked if name != "compiled") or ("pure",)


def add_builds_argument(parser: argparse.ArgumentParser) -> None:
    """``--builds``: which builds to measure (both by default; one for a smoke run, each costing a process)."""
    parser.add_argument("--builds", default=",".join(BUILDS), help="comma-separated: compiled, pure")

"""The rules suite on the pure Python build as well, from inside the suite that runs on the compiled one.

`make test` runs every test on the compiled build (where it could be built); this test runs `tests/rules` again in a
pytest process of its own with `TORRES_RULES_PURE=1` (the build is chosen when torres_rules is first imported, so it
cannot change inside one process). As one test of the session it runs beside the others on an xdist worker, early
(tests/conftest.py, SPLIT), and fills the time that worker would spend waiting, instead of a second pytest run after
the first one ends. Its failures are the inner run's, printed in full.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import torres_rules as tr

ROOT = Path(__file__).resolve().parents[2]
#: What the outer run tells its processes: pytest-xdist's worker identity (the inner run is a plain pytest process,
#: not a worker) and the caller's extra options (`-n`, a plugin), which are the outer run's, not the inner's.
OUTER_RUN_VARIABLES = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID",
                       "PYTEST_CURRENT_TEST", "PYTEST_ADDOPTS")


@pytest.mark.timeout(900)
@pytest.mark.skipif(os.environ.get("TORRES_RULES_PURE") == "1" or tr.ENGINE_BUILD == "pure",
                    reason="this run is on the pure build already")
def test_the_rules_suite_passes_on_the_pure_build() -> None:
    env = {k: v for k, v in os.environ.items() if k not in OUTER_RUN_VARIABLES} | {"TORRES_RULES_PURE": "1"}
    run = subprocess.run([sys.executable, "-m", "pytest", "tests/rules", "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=850)
    assert run.returncode == 0, f"tests/rules on the pure build:\n{run.stdout[-8000:]}\n{run.stderr[-2000:]}"
    assert " passed" in run.stdout

"""tests/conftest.py's end-of-run summary: a run on a machine without the servers and tools passes by
skipping their tests, so it must end saying loudly what did not run, why, and how to run it; and under
TORRES_REQUIRE_SERVICES=1 every such skip is a failure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

SKIPPING = '''
import pytest

def test_event_store():
    pytest.skip("PostgreSQL not reachable at postgresql://torres:s3cret@db.test:5432/postgres: connection failed: "
                "refused\\n\\tIs the server running on that host?")

def test_broker():
    pytest.skip("Redis not reachable at redis://127.0.0.1:6399/13: Error 111 connecting to 127.0.0.1:6399.")

def test_matching():
    pytest.skip("Redis not reachable at redis://127.0.0.1:6399/14: Error 111 connecting to 127.0.0.1:6399.")

def test_manifests():
    pytest.skip("kubectl not reachable on PATH (make test installs the Python tools, the machine kubectl)")

@pytest.mark.skipif(True, reason="valgrind is not installed")
def test_instructions():
    pass

def test_runs():
    pass
'''


def run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    environ = {k: v for k, v in os.environ.items() if k != "TORRES_REQUIRE_SERVICES"} | env
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                           cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=120)


def test_the_run_ends_with_what_did_not_run_for_a_missing_server_or_tool(tmp_path: Path) -> None:
    result = run(tmp_path)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    summary = out[out.index("4 TESTS DID NOT RUN: a server or tool they need is missing"):]
    assert "1 passed, 5 skipped" in summary  # the summary comes after pytest's own, before the final count
    assert "Redis at redis://127.0.0.1:6399/13, redis://127.0.0.1:6399/14: 2 test(s)" in summary
    assert "PostgreSQL at postgresql://torres:***@db.test:5432/postgres: 1 test(s)" in summary
    assert "s3cret" not in summary
    assert "TEST_DATABASE_URL=postgresql://user:pass@host:5432/postgres" in summary
    assert "TEST_REDIS_URL" in summary and "TEST_MM_REDIS_URL" in summary
    assert "kubectl: 1 test(s), e.g. test_skipping.py::test_manifests" in summary
    assert "Also skipped, for other reasons: 1 x valgrind is not installed" in summary
    assert "`.ci/run`" in summary and "TORRES_REQUIRE_SERVICES=1" in summary


def test_required_services_turn_those_skips_into_failures(tmp_path: Path) -> None:
    result = run(tmp_path, TORRES_REQUIRE_SERVICES="1")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "4 failed, 1 passed, 1 skipped" in result.stdout, result.stdout
    assert "TESTS DID NOT RUN" not in result.stdout

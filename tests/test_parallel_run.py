"""`make test` runs the suite on pytest-xdist workers (`-n`, `--dist loadscope`): each worker gets Redis databases
of its own (tests/redis_databases.py, set by tests/conftest.py before any test reads them), the tests that share
one costly fixture run on one worker, and the skip summary of tests/conftest.py still speaks for the whole run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from redis_databases import worker_redis_urls

TESTS = Path(__file__).resolve().parent

DEFAULTS = {"TEST_REDIS_URL": "redis://127.0.0.1:6379/13", "TEST_MM_REDIS_URL": "redis://127.0.0.1:6379/14"}


def test_each_worker_has_its_own_pair_below_the_last_ones() -> None:
    assert worker_redis_urls({}, 0, 4) == DEFAULTS
    assert worker_redis_urls({}, 3, 4) == {"TEST_REDIS_URL": "redis://127.0.0.1:6379/7",
                                           "TEST_MM_REDIS_URL": "redis://127.0.0.1:6379/8"}
    pairs = [tuple(worker_redis_urls({}, n, 7).values()) for n in range(7)]
    assert len({url for pair in pairs for url in pair}) == 14


def test_a_developers_databases_are_the_first_workers_and_the_others_count_down_from_them() -> None:
    mine = {"TEST_REDIS_URL": "redis://:pw@cache.test:6380/7", "TEST_MM_REDIS_URL": "redis://cache.test:6380?db=8"}
    assert worker_redis_urls(mine, 0, 3) == mine
    assert worker_redis_urls(mine, 2, 3) == {"TEST_REDIS_URL": "redis://:pw@cache.test:6380/3",
                                             "TEST_MM_REDIS_URL": "redis://cache.test:6380?db=4"}


def test_too_many_workers_or_a_shared_database_is_refused_saying_what_to_change() -> None:
    with pytest.raises(ValueError, match="TEST_REDIS_URL of worker 4 would be database -1"):
        worker_redis_urls({"TEST_REDIS_URL": "redis://127.0.0.1:6379/7",
                           "TEST_MM_REDIS_URL": "redis://127.0.0.1:6379/8"}, 0, 5)
    with pytest.raises(ValueError, match="TEST_REDIS_URL of worker 1 would be database 3, which is "
                                         "TEST_MM_REDIS_URL of worker 0's"):
        worker_redis_urls({"TEST_REDIS_URL": "redis://127.0.0.1:6379/5",
                           "TEST_MM_REDIS_URL": "redis://127.0.0.1:6379/3"}, 0, 2)
    # on two servers the same numbers are two databases
    assert worker_redis_urls({"TEST_REDIS_URL": "redis://127.0.0.1:6379/5",
                              "TEST_MM_REDIS_URL": "redis://127.0.0.1:6380/3"}, 1, 2)["TEST_MM_REDIS_URL"] \
        == "redis://127.0.0.1:6380/1"


#: Every test writes where it ran and which Redis databases it was given; one skips for a missing server.
RECORDING = '''
import json, os, pytest

@pytest.mark.parametrize("n", range(3))
def test_records(n, tmp_path_factory):
    record = tmp_path_factory.getbasetemp().parent.parent / f"record-{__name__}-{n}.json"
    record.write_text(json.dumps([os.environ["PYTEST_XDIST_WORKER"], os.environ["TEST_REDIS_URL"],
                                  os.environ["TEST_MM_REDIS_URL"]]))
'''
MODULES = ("test_a", "test_b", "test_c", "web/test_w1", "web/test_w2")


def run_in_workers(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest on 2 workers over a copy of tests/conftest.py with modules of recording tests (two of them in
    tests/web/, one of the SHARED sets), in an environment of its own (this run may itself be an xdist worker's)."""
    (folder / "tmp").mkdir(parents=True)
    (folder / "tests" / "web").mkdir(parents=True)
    for name in ("conftest.py", "redis_databases.py"):
        shutil.copy(TESTS / name, folder / "tests" / name)
    for module in MODULES:
        (folder / "tests" / f"{module}.py").write_text(RECORDING.replace("__name__", repr(module.replace("/", "-"))))
    (folder / "tests" / "test_missing.py").write_text(
        "import pytest\n\ndef test_broker():\n    pytest.skip('Redis not reachable at redis://127.0.0.1:6399/13: "
        "Error 111')\n")
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTEST_", "TEST_", "TORRES_TEST_")) and k != "TORRES_REQUIRE_SERVICES"}
    xdist = ["-n", "2", "--dist", "loadscope", "--no-loadscope-reorder", "--max-worker-restart", "0"]
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *xdist, "--basetemp",
                           str(folder / "tmp" / "base"), *args, "tests"], cwd=folder, env=environ | env,
                          capture_output=True, text=True, timeout=300)


def test_the_workers_use_databases_of_their_own_and_the_skip_summary_covers_them(tmp_path: Path) -> None:
    result = run_in_workers(tmp_path / "run", TEST_REDIS_URL="redis://127.0.0.1:6379/7",
                            TEST_MM_REDIS_URL="redis://127.0.0.1:6379/8")
    assert result.returncode == 0, result.stdout + result.stderr
    records = {(module, n): json.loads((tmp_path / "run" / "tmp" / f"record-{module.replace('/', '-')}-{n}.json")
                                       .read_text()) for module in MODULES for n in range(3)}
    pairs = {worker: (broker, matchmaking) for worker, broker, matchmaking in records.values()}
    assert pairs == {"gw0": ("redis://127.0.0.1:6379/7", "redis://127.0.0.1:6379/8"),
                     "gw1": ("redis://127.0.0.1:6379/5", "redis://127.0.0.1:6379/6")}
    for module in MODULES:  # a module's tests on one worker: its fixtures start once
        assert len({records[module, n][0] for n in range(3)}) == 1
    assert records["web/test_w1", 0][0] == records["web/test_w2", 0][0]  # a SHARED set on one worker
    assert "1 TESTS DID NOT RUN: a server or tool they need is missing" in result.stdout
    assert "Redis at redis://127.0.0.1:6399/13: 1 test(s)" in result.stdout

    required = run_in_workers(tmp_path / "required", TORRES_REQUIRE_SERVICES="1")
    assert required.returncode == 1 and "1 failed, 15 passed" in required.stdout, required.stdout


def test_a_worker_whose_databases_would_run_out_stops_the_run_saying_why(tmp_path: Path) -> None:
    result = run_in_workers(tmp_path / "run", TEST_REDIS_URL="redis://127.0.0.1:6379/1",
                            TEST_MM_REDIS_URL="redis://127.0.0.1:6379/2")
    assert result.returncode != 0
    assert "TEST_REDIS_URL of worker 1 would be database -1" in result.stdout + result.stderr

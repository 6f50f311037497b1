"""Every benchmark under bench/ still runs: once each, with the smallest arguments, the way `make bench` runs it; one
gunicorn worker a server where no ratio of two servers' slices is taken (a worker's start-up is most of a smoke
run's CPU, but a one-second slice on one worker under load once accepted nothing).

The figures themselves are measured by hand, and recorded in docs/performance.md; a timed test would only
measure this machine's noise. This test keeps the scripts from rotting as the code they drive changes: a
renamed import once broke `make bench` without any test noticing.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"

POSTGRES = ("127.0.0.1", 5432)
REDIS = ("127.0.0.1", 6379)


def _reachable(address: tuple[str, int]) -> bool:
    try:
        with socket.create_connection(address, timeout=2):
            return True
    except OSError:
        return False


# (script, arguments, a line fragment its report must print, servers it needs)
CASES = [  # game_bench.py appears thrice: its everyday run, its worker-class and limits comparisons
    ("rules_bench.py", ["--runs", "1", "--games", "1"], "4p rio_grande master (hand)", []),
    ("rules_bench.py", ["--runs", "1", "--games", "1", "--configs", "2p", "--api", "wire"], "wire forms", []),
    ("ai_search_bench.py", ["--positions", "1", "--seconds", "0.5", "--runs", "1"], "iterations/s", []),
    ("matchmaking_bench.py", ["--tickets", "60", "--runs", "1", "--embedded"], "median: all 60 matched", []),
    ("matchmaking_bench.py", ["--tickets", "300", "--runs", "1", "--matchers", "1,2", "--big", "0", "--idle", "0.5"],
     "median tickets matched/s", [REDIS]),
    ("game_bench.py", ["--quick", "--games", "4", "--duration", "2", "--workers", "1"], "HTTP accepted actions/s",
     [POSTGRES]),
    ("push_bench.py", ["--sse", "20", "--polls", "20", "--games", "4", "--probes", "3", "--window", "1",
                       "--poll-timeout", "3", "--settle", "0", "--workers", "1"], "append -> SSE event p50",
     [POSTGRES]),
    ("game_bench.py", ["--only", "http", "--games", "2", "--compare-worker-classes", "1", "--slice-seconds", "1"],
     "ratio gevent / gthread, median of the pairs", [POSTGRES]),
    ("game_bench.py", ["--only", "http", "--games", "2", "--compare-limits", "1", "--slice-seconds", "1"],
     "ratio rate limits on (memory://, shared: address,tenant,player) / off", [POSTGRES]),
    ("edge_bench.py", ["--quick"], "serve descriptors after warm-up", []),
    ("audit_bench.py", ["--runs", "1", "--players", "2"], "verify (in process), 1 runs: median", []),
    ("webhook_bench.py", ["--pairs", "1", "--slice-seconds", "1", "--games", "2"],
     "ratio webhooks on / off (accepted actions/s)", [POSTGRES]),
    ("webhook_cpu_bench.py", ["--rounds", "1", "--rows", "40"], "the webhook row, this checkout", [POSTGRES]),
    ("webhook_isolation_bench.py", ["--seconds", "4", "--kill-at", "1000", "--drain", "30"],
     "B  latency append -> arrival", [POSTGRES]),
    ("write_bench.py", ["--rounds", "1", "--writers", "1,2", "--slice-seconds", "0.5", "--processes", "2",
                        "--connections", "4", "--http-pairs", "1", "--http-games", "2", "--http-seconds", "1"],
     "ratio notice after the commit", [POSTGRES]),
    ("translog_bench.py", ["--rounds", "1", "--games", "2", "--actions", "1", "--leaves", "10",
                           "--proof-leaves", "100"], "ratio log on / off", [POSTGRES]),
    ("witness_bench.py", ["--rounds", "2", "--games", "2", "--actions", "1"], "median ratio on/off", [POSTGRES]),
    ("ai_bench.py", ["throughput", "--levels", "easy", "--games", "1"], "decisions/s/process", [POSTGRES, REDIS]),
    ("analysis_bench.py", ["--games", "1", "--players", "2", "--depths", "quick"], "CPU s/game median", []),
    ("ai_bench.py", ["latency", "--human-games", "1", "--background", "1", "--samples", "1", "--level", "easy",
                     "--analyses", "1", "--depth", "quick"],
     "median ratio", [POSTGRES, REDIS]),
]


@pytest.mark.parametrize("script,args,expected,servers", CASES, ids=[case[0] for case in CASES])
def test_benchmark_runs(script: str, args: list[str], expected: str, servers: list[tuple[str, int]]) -> None:
    for address in servers:
        if not _reachable(address):
            name = "PostgreSQL" if address == POSTGRES else "Redis"
            pytest.skip(f"{name} not reachable at {address[0]}:{address[1]} ({script} needs it)")
    run = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    assert expected in run.stdout


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_instruction_count_benchmark_runs() -> None:
    """One configuration of one build: each is one interpreter run under callgrind per build and game count, and
    every run there costs seconds of CPU however small the game (both builds run the same code of the script)."""
    run = subprocess.run([sys.executable, str(BENCH / "rules_instructions.py"), "--games", "1", "--configs",
                          "4p-master", "--builds", "compiled"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    assert run.stdout.count("M instructions per game") == 1 and "4p rio_grande master (hand)" in run.stdout


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_search_instruction_count_benchmark_runs() -> None:
    """One build, as above."""
    run = subprocess.run([sys.executable, str(BENCH / "ai_search_bench.py"), "--positions", "1", "--instructions", "1",
                          "--builds", "compiled"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    assert "M instructions per iteration" in run.stdout

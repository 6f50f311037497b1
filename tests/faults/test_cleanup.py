"""What the fault tests start is removed even when the test run is SIGKILLed (infra/ha/isolation.py).

A child process plays the test run: it makes a network namespace, starts a Redis stand-in (a master, a replica,
three Sentinels) inside it, says where, and waits. While it lives, a sweep leaves its stand-in alone (it may be
another test run on this machine); once it is SIGKILLed, with no chance to clean up, the next sweep kills every
process of the stand-in and removes its directory, and with its last process the namespace is gone too.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import isolation
import pytest
import redis_ha

HA = Path(__file__).resolve().parents[2] / "infra" / "ha"
CHILD = f"""
import json, sys, time
sys.path.insert(0, {str(HA)!r})
import isolation, redis_ha
with isolation.network_namespace() as netns:
    cluster = redis_ha.RedisHa()
    cluster.start()
print(json.dumps({{"base": str(cluster.base), "netns": netns}}), flush=True)
time.sleep(600)
"""


def namespaces_in_use() -> set[str]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                found.add(os.readlink(entry / "ns" / "net"))
            with contextlib.suppress(OSError):
                for task in (entry / "task").iterdir():
                    with contextlib.suppress(OSError):
                        found.add(os.readlink(task / "ns" / "net"))
    return found


def running(pid: int) -> bool:
    """Alive and not a zombie (a killed process stays in /proc until its new parent reaps it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_runs_stand_in_and_namespace_are_swept_and_a_live_ones_are_not() -> None:
    missing = redis_ha.missing_tools()
    if missing or os.geteuid() != 0:
        pytest.skip(f"needs redis-server, redis-sentinel and root (missing: {missing})")
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        assert child.stdout is not None
        started = json.loads(child.stdout.readline())
        base, netns = Path(started["base"]), started["netns"]
        processes = isolation.processes_of(base)
        assert len(processes) == 6 and netns  # 3 servers, 3 sentinels in namespaces_in_use()

        assert base not in isolation.sweep()  # its owner runs
        assert isolation.processes_of(base) == processes and base.exists()

        os.kill(child.pid, signal.SIGKILL)  # the test run dies without cleaning up
        child.wait(10)
        assert isolation.processes_of(base) == processes, "the stand-in outlives its owner until swept"
        assert base in isolation.sweep()
        deadline = time.monotonic() + 10
        while netns in namespaces_in_use() or any(running(pid) for pid in processes):
            assert time.monotonic() < deadline, "the stand-in's processes or namespace outlived the sweep"
            time.sleep(0.1)
        assert not base.exists()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        isolation.sweep()

"""A ``redis-server`` of the test's own (the ``private_redis`` fixture, tests/conftest.py): on a free loopback port,
without persistence, so that a test may stop it and start it again empty -- never the shared server."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis


class PrivateRedis:
    """A redis-server of the test's own on a free loopback port, which the test may stop and start again (empty:
    no persistence)."""

    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:  # pragma: no cover - depends on the machine
            pytest.skip("redis-server not reachable: the binary is not installed (apt-get install redis-server)")
        self.binary, self.folder = binary, folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(redis.RedisError):
                if self.client().ping():
                    return
            assert time.monotonic() < deadline, "the private redis-server did not accept connections"
            time.sleep(0.05)

    def stop(self) -> None:
        """Kill it (no shutdown: what it held is gone with it)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=1)

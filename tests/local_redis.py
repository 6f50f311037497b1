"""Throwaway Redis servers for tests and benchmarks: one plain server, or a Redis Cluster of 3 masters,
started from Debian's ``redis-server`` on free loopback ports in a temporary directory, and stopped again."""

from __future__ import annotations

import random
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from polling import wait_until


def free_bus_port() -> int:
    """A free port whose cluster bus port (+10000) is free too (so not an ephemeral one: those run to 60999)."""
    rng = random.Random()
    while True:
        port = rng.randrange(20000, 55000)
        try:
            for p in (port, port + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port


def _wait(ready: Callable[[], Any], what: str) -> None:
    """Until ``ready`` holds, a Redis error counting as not yet, for 30 s at the most."""
    def holds() -> bool:
        try:
            return bool(ready())
        except redis.RedisError:
            return False

    wait_until(holds, 30, what)


class LocalRedis:
    """``masters`` = 0: one plain server; 3 (or more): a Redis Cluster of that many masters, no replicas."""

    def __init__(self, workdir: Path, masters: int = 0) -> None:
        self.cluster = masters > 0
        self.ports = [free_bus_port() for _ in range(max(1, masters))]
        self.processes: list[subprocess.Popen[bytes]] = []
        try:
            self._start(workdir)
        except BaseException:
            self.stop()
            raise
        self.url = f"redis://127.0.0.1:{self.ports[0]}/0"

    def _start(self, workdir: Path) -> None:
        for port in self.ports:
            d = workdir / f"redis-{port}"
            d.mkdir()
            args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(d), "--save", "",
                    "--appendonly", "no"]
            if self.cluster:
                args += ["--cluster-enabled", "yes", "--cluster-config-file", str(d / "nodes.conf")]
            self.processes.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in self.ports:
            _wait(lambda p=port: redis.Redis(port=p).ping(), f"redis-server on port {port}")
        if not self.cluster:
            return
        subprocess.run(["redis-cli", "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
                        "--cluster-replicas", "0", "--cluster-yes"], check=True, capture_output=True, timeout=60)
        for port in self.ports:
            _wait(lambda p=port: redis.Redis(port=p).cluster("info")["cluster_state"] == "ok", "the cluster")

    def client(self) -> Any:
        if self.cluster:
            return redis.cluster.RedisCluster.from_url(self.url, decode_responses=True)
        return redis.Redis.from_url(self.url, decode_responses=True)

    def flush(self) -> None:
        for port in self.ports:
            redis.Redis(port=port).flushall()

    def stop(self) -> None:
        for p in self.processes:
            p.terminate()
        for p in self.processes:
            p.wait(timeout=30)

"""A Redis with failover on one machine (``make redis-ha``): a master, two replicas and three Sentinels, on loopback.

What production runs for the Celery broker and the matchmaker's store, scaled down: the services name it with one
URL, ``redis+sentinel://127.0.0.1:<s1>,127.0.0.1:<s2>,127.0.0.1:<s3>/torres`` (torres_service.redis_urls), and find
the master Sentinel names. Sentinels declare the master down after ``DOWN_AFTER_MS`` without an answer and, two of
three agreeing, promote the replica with the most data. Two replicas, so that with one server lost a write still
has a replica to wait for (``MM_REDIS_WAIT_REPLICAS=1``, torres_matchmaking.store). Every process runs in a session
of its own under a temporary directory and is SIGKILLed at :meth:`RedisHa.stop` (or by isolation.sweep, when its
owner died first). ``python infra/ha/redis_ha.py`` starts one, prints the URL, stops it at Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import isolation
import redis

MASTER_NAME = "torres"
#: Milliseconds a master may leave the sentinels' pings unanswered before they fail it over.
DOWN_AFTER_MS = 1000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def missing_tools() -> list[str]:
    return [name for name in ("redis-server", "redis-sentinel") if shutil.which(name) is None]


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes] | None = None


@dataclass
class RedisHa:
    """``start()``, then :attr:`url` names the master through the sentinels; ``stop()`` ends everything."""

    base: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="torres-redis-ha-")))
    servers: list[Server] = field(default_factory=lambda: [Server(free_port()) for _ in range(3)])
    sentinels: list[Server] = field(default_factory=lambda: [Server(free_port()) for _ in range(3)])
    netns: str = ""  # the network namespace it was started in
    _stalls: list[list[str]] = field(default_factory=list)  # iptables rules of :meth:`stall_replication`

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{hosts}/{MASTER_NAME}"

    def start(self) -> None:
        missing = missing_tools()
        if missing:
            raise RuntimeError(f"missing: {', '.join(missing)}")
        isolation.sweep()
        isolation.claim(self.base)
        self.netns = os.readlink("/proc/thread-self/ns/net")
        try:
            master = self.servers[0]
            for server in self.servers:
                self._start_server(server, None if server is master else master.port)
            self._wait(lambda: self.client(master).ping())
            for sentinel in self.sentinels:
                config = self.base / f"sentinel-{sentinel.port}.conf"
                config.write_text(
                    f"port {sentinel.port}\nbind 127.0.0.1\ndir {self.base}\n"
                    f"sentinel monitor {MASTER_NAME} 127.0.0.1 {master.port} 2\n"
                    f"sentinel down-after-milliseconds {MASTER_NAME} {DOWN_AFTER_MS}\n"
                    f"sentinel failover-timeout {MASTER_NAME} 5000\n"
                    f"sentinel parallel-syncs {MASTER_NAME} 1\n")
                sentinel.process = self._spawn(["redis-sentinel", str(config)], f"sentinel-{sentinel.port}.log")
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise

    def _start_server(self, server: Server, replica_of: int | None) -> None:
        argv = ["redis-server", "--port", str(server.port), "--bind", "127.0.0.1", "--dir", str(self.base),
                "--dbfilename", f"dump-{server.port}.rdb", "--save", "", "--appendonly", "no"]
        if replica_of is not None:
            argv += ["--replicaof", "127.0.0.1", str(replica_of)]
        server.process = self._spawn(argv, f"redis-{server.port}.log")

    def _spawn(self, argv: list[str], log_name: str) -> subprocess.Popen[bytes]:
        with (self.base / log_name).open("ab") as log:
            return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    cwd=self.base, start_new_session=True,
                                    env={**os.environ, isolation.ENV: str(self.base)})

    def stop(self, keep_logs: Path | None = None) -> None:
        """SIGKILL everything this stand-in started and remove its directory, its logs copied to ``keep_logs`` first
        if given."""
        with contextlib.suppress(Exception):  # the rules go with the namespace anyway
            self.resume_replication()
        for proc in [s.process for s in (*self.servers, *self.sentinels)]:
            if proc is not None and proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGCONT)
                    proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
        isolation.kill_all(self.base)
        isolation.keep_logs(self.base, keep_logs)
        shutil.rmtree(self.base, ignore_errors=True)

    @staticmethod
    def client(server: Server) -> redis.Redis:
        return redis.Redis(port=server.port, socket_timeout=1, socket_connect_timeout=1)

    @staticmethod
    def _wait(check: object, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(redis.RedisError, OSError):
                if check():  # type: ignore[operator]
                    return
            if time.monotonic() > deadline:
                raise TimeoutError("the Redis stand-in did not become ready")
            time.sleep(0.1)

    def master(self) -> Server:
        """The server the sentinels name master now."""
        for sentinel in self.sentinels:
            with contextlib.suppress(redis.RedisError, OSError):
                _host, port = self.client(sentinel).sentinel_get_master_addr_by_name(MASTER_NAME)
                for server in self.servers:
                    if server.port == int(port) and server.process is not None and server.process.poll() is None:
                        return server
        raise LookupError("no live master known to the sentinels")

    def wait_healthy(self, timeout: float = 60.0) -> None:
        """Until every live server but the master is its replica, in sync, and every sentinel knows them all and the
        other sentinels."""
        def healthy() -> bool:
            master = self.master()
            replicas = sum(s.process is not None and s.process.poll() is None for s in self.servers) - 1
            replication = self.client(master).info("replication")
            online = sum(isinstance(v, dict) and v.get("state") == "online" for v in replication.values())
            if online < replicas:
                return False  # a replica still in its first sync would lose everything in a failover
            for sentinel in self.sentinels:
                state = self.client(sentinel).sentinel_master(MASTER_NAME)
                if int(state["port"]) != master.port or state.get("num-other-sentinels", 0) < 2 or \
                        state.get("num-slaves", 0) < replicas:
                    return False
            return True

        self._wait(healthy, timeout)

    def kill_master(self) -> Server:
        """SIGKILL the master; returns the server that replaced it, once the sentinels have promoted it."""
        old = self.master()
        assert old.process is not None
        old.process.kill()
        old.process.wait(timeout=10)
        return self.wait_for_master(other_than=old)

    def wait_for_master(self, other_than: Server, timeout: float = 60.0) -> Server:
        """The master the sentinels name once it is another server than ``other_than``."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(LookupError):
                new = self.master()
                if new is not other_than:
                    return new
            if time.monotonic() > deadline:
                raise TimeoutError("the sentinels did not fail over")
            time.sleep(0.1)

    def stall_replication(self) -> None:
        """Drop every packet the master sends its replicas while everything runs on (a replication link that
        stalls: writes reach the master alone, and the kernel holds them in its send buffer). iptables rules in the
        stand-in's own network namespace (isolation.iptables), removed by :meth:`resume_replication`."""
        master = self.master()
        assert master.process is not None
        for replica in self.client(master).client_list(_type="replica"):
            rule = ["-p", "tcp", "--sport", str(master.port), "--dport", replica["addr"].rsplit(":", 1)[1]]
            isolation.iptables(self.netns, master.process.pid, "-A", "OUTPUT", *rule, "-j", "DROP")
            self._stalls.append(rule)

    def resume_replication(self) -> None:
        pid = next(s.process.pid for s in self.sentinels if s.process is not None)
        while self._stalls:
            isolation.iptables(self.netns, pid, "-D", "OUTPUT", *self._stalls.pop(), "-j", "DROP")

    def restart(self, server: Server) -> None:
        """Start a killed server again, as a replica of the current master (the sentinels would reconfigure it)."""
        self._start_server(server, self.master().port)


@contextlib.contextmanager
def running() -> Iterator[RedisHa]:
    cluster = RedisHa()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


def main() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    with running() as cluster:
        print(f"CELERY_BROKER_URL={cluster.url}", flush=True)
        print(f"MM_REDIS_URL={cluster.url}?db=1", flush=True)
        print("MM_REDIS_WAIT_REPLICAS=1", flush=True)
        print(f"# logs in {cluster.base}; Ctrl-C stops everything", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})


if __name__ == "__main__":
    main()

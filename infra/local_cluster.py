"""The production processes on one machine (``make cluster``): the same commands compose and Kubernetes run.

On the local PostgreSQL and Redis it starts, each on a free loopback port:

* the migrations (``python -m torres_game migrate``), once, before anything else;
* 2 game-service replicas (``gunicorn -c infra/gunicorn.conf.py torres_game.wsgi:app``);
* 2 AI workers (``celery -A torres_ai.celery_app worker``) and the outbox sweeper (``python -m torres_ai.sweeper``);
* the webhook worker (``python -m torres_game webhooks``; the replicas' own delivery threads off, as in production);
* the matchmaking API (gunicorn, ``torres_matchmaking.wsgi:app``), 2 matchers and the ratings consumer.

There is no load balancer: matcher *i* and the consumer talk to game replica *i* (mod 2), so killing one replica
also exercises the matchers' back-off and re-queueing; HTTP clients pick a replica themselves. Every process is
its own session (process group), so :meth:`Proc.kill` takes gunicorn's or Celery's children down with it.

``tests/cluster/test_local_cluster.py`` plays games through it while killing and restarting processes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GUNICORN_CONF = ROOT / "infra" / "gunicorn.conf.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_ok(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return 200 <= response.status < 300
    except OSError:
        return False


@dataclass
class Proc:
    """One production process: started, SIGKILLed, SIGTERMed and restarted with the same command and port."""

    name: str
    argv: list[str]
    env: dict[str, str]
    log_dir: Path
    health_url: str | None = None
    port: int | None = None
    popen: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"{self.name}.log"

    def start(self) -> None:
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts}: {' '.join(self.argv)}\n".encode())
            self.popen = subprocess.Popen(self.argv, env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                          start_new_session=True)

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def wait_healthy(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"{self.name} exited with {self.popen and self.popen.returncode}:\n{self.tail()}")
            if self.health_url is None or http_ok(self.health_url):
                return
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} not healthy after {timeout}s:\n{self.tail()}")

    def signal(self, sig: int) -> None:
        """Signal the main process only, as Kubernetes and Docker do (PID 1 of the container)."""
        if self.alive():
            assert self.popen is not None
            self.popen.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL the whole process group: no clean-up, in-flight work is cut off (a crash, an OOM kill)."""
        if self.alive():
            assert self.popen is not None
            os.killpg(self.popen.pid, signal.SIGKILL)
        if self.popen is not None:
            self.popen.wait(timeout=30)
            with contextlib.suppress(ProcessLookupError):  # orphaned children (gunicorn/Celery workers)
                os.killpg(self.popen.pid, signal.SIGKILL)

    def stop(self, timeout: float = 45.0) -> int | None:
        """SIGTERM, as Kubernetes does; SIGKILL after ``timeout`` (its terminationGracePeriodSeconds)."""
        if self.popen is None:
            return None
        self.signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.popen.returncode

    def restart(self) -> None:
        self.start()
        self.wait_healthy()

    def tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""


@dataclass
class Cluster:
    database_url: str
    broker_url: str
    mm_redis_url: str
    run_dir: Path
    game_replicas: int = 2
    ai_workers: int = 2
    matchers: int = 2
    web_concurrency: int = 2
    namespace: str = field(default_factory=lambda: f"torres-cluster-{uuid.uuid4().hex[:8]}")
    api_key: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    admin_key: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    # the single-key default tenant signs its players' tokens with this (HS256, >= 32 bytes)
    player_token_secret: str = field(default_factory=lambda: secrets.token_urlsafe(48))
    log_level: str = "WARNING"
    extra_env: dict[str, str] = field(default_factory=dict)
    procs: dict[str, Proc] = field(default_factory=dict)

    @property
    def queue(self) -> str:
        return self.namespace

    @property
    def mm_prefix(self) -> str:
        return f"{self.namespace}:mm:"

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONUNBUFFERED": "1",
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": self.broker_url,
            "TORRES_AI_QUEUE": self.queue,
            "TORRES_AI_BULK_QUEUE": f"{self.queue}-bulk",
            "TORRES_AI_KEY_PREFIX": self.namespace,
            "TORRES_AI_SWEEP_INTERVAL": "2",
            "TORRES_AI_SWEEP_AFTER": "5",
            "TORRES_API_KEY": self.api_key,
            "TORRES_ADMIN_KEY": self.admin_key,
            "TORRES_PLAYER_TOKEN_SECRET": self.player_token_secret,
            "TORRES_AUTO_MIGRATE": "0",
            "TORRES_MIGRATIONS_DIR": str(ROOT / "infra" / "migrations"),
            "REDIS_URL": self.mm_redis_url,
            "MM_KEY_PREFIX": self.mm_prefix,
            "MM_CLAIM_TIMEOUT": "10",
            "MM_RATINGS_POLL_SECONDS": "0.5",
            "LOG_LEVEL": self.log_level,
            "HOST": "127.0.0.1",
            "WEB_CONCURRENCY": str(self.web_concurrency),
        }
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        env.update(self.extra_env)
        env.update(extra)
        return env

    def _add(self, name: str, argv: list[str], *, port: int | None = None, health: str | None = None,
             **env: str) -> Proc:
        proc = Proc(name, argv, self.env(**env), self.run_dir, health_url=health, port=port)
        self.procs[name] = proc
        return proc

    def game_url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.procs[f'game-{i}'].port}"

    @property
    def game_urls(self) -> list[str]:
        return [self.game_url(i) for i in range(1, self.game_replicas + 1)]

    @property
    def matchmaking_url(self) -> str:
        return f"http://127.0.0.1:{self.procs['matchmaking'].port}"

    def start(self) -> Cluster:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        migrate = subprocess.run([str(BIN / "python"), "-m", "torres_game", "migrate"], env=self.env(), cwd=ROOT,
                                 capture_output=True, text=True)
        if migrate.returncode != 0:
            raise RuntimeError(f"migrations failed:\n{migrate.stdout}{migrate.stderr}")
        gunicorn = [str(BIN / "gunicorn"), "-c", str(GUNICORN_CONF)]
        for i in range(1, self.game_replicas + 1):
            port = free_port()
            metrics_dir = self.run_dir / f"metrics-game-{i}"
            self._add(f"game-{i}", [*gunicorn, "torres_game.wsgi:app"], port=port,
                      health=f"http://127.0.0.1:{port}/readyz", PORT=str(port),
                      PROMETHEUS_MULTIPROC_DIR=str(metrics_dir), TORRES_WEBHOOK_INTERVAL="0")
        for i in range(1, self.ai_workers + 1):
            self._add(f"ai-{i}", [str(BIN / "celery"), "-A", "torres_ai.celery_app", "worker", "--loglevel=WARNING",
                                  "--pool=prefork", "--concurrency=1", "-Q", f"{self.queue},{self.queue}-bulk",
                                  "-n", f"ai-{i}-{self.namespace}@%h", "--without-gossip", "--without-mingle",
                                  "--without-heartbeat"], TORRES_AI_METRICS_PORT="0")
        self._add("sweeper", [str(BIN / "python"), "-m", "torres_ai.sweeper", "--interval", "2"])
        port = free_port()
        self._add("webhooks", [str(BIN / "python"), "-m", "torres_game", "webhooks"], port=port,
                  health=f"http://127.0.0.1:{port}/metrics", TORRES_WEBHOOK_METRICS_PORT=str(port),
                  TORRES_WEBHOOK_METRICS_HOST="127.0.0.1")
        game_urls = self.game_urls
        port = free_port()
        # its /readyz asks the game service too (matching cannot work without it)
        self._add("matchmaking", [*gunicorn, "torres_matchmaking.wsgi:app"], port=port,
                  health=f"http://127.0.0.1:{port}/readyz", PORT=str(port),
                  PROMETHEUS_MULTIPROC_DIR=str(self.run_dir / "metrics-matchmaking"), GAME_SERVICE_URL=game_urls[0])
        for i in range(1, self.matchers + 1):
            port = free_port()
            self._add(f"matcher-{i}", [str(BIN / "python"), "-m", "torres_matchmaking", "matcher", "--no-ratings"],
                      port=port, health=f"http://127.0.0.1:{port}/metrics", MM_METRICS_PORT=str(port),
                      MM_METRICS_HOST="127.0.0.1",
                      GAME_SERVICE_URL=game_urls[(i - 1) % len(game_urls)])
        port = free_port()
        self._add("ratings", [str(BIN / "python"), "-m", "torres_matchmaking", "ratings"], port=port,
                  health=f"http://127.0.0.1:{port}/metrics", MM_METRICS_PORT=str(port), MM_METRICS_HOST="127.0.0.1",
                  GAME_SERVICE_URL=game_urls[-1])
        for proc in self.procs.values():
            proc.start()
        for proc in self.procs.values():
            proc.wait_healthy()
        return self

    @property
    def game_service_processes(self) -> list[str]:
        """The processes that run the game service's code: its replicas and the webhook worker."""
        return [*(f"game-{i}" for i in range(1, self.game_replicas + 1)), "webhooks"]

    def rolling_restart(self, names: list[str] | None = None) -> dict[str, float]:
        """A deploy: each process in turn (every game-service process by default) SIGTERMed as Kubernetes does,
        started again and healthy before the next one; returns how many seconds each was out."""
        out = {}
        for name in names or self.game_service_processes:
            began = time.monotonic()
            self.procs[name].stop()
            self.procs[name].restart()
            out[name] = time.monotonic() - began
        return out

    def stop(self) -> dict[str, int | None]:
        """SIGTERM everything (HTTP front first, workers last) and report each exit code."""
        order = ["matchmaking", *[n for n in self.procs if n.startswith(("matcher", "ratings"))],
                 *[n for n in self.procs if n.startswith("game")], "webhooks", "sweeper",
                 *[n for n in self.procs if n.startswith("ai-")]]
        return {name: self.procs[name].stop() for name in dict.fromkeys(order) if name in self.procs}

    def clean_redis(self) -> None:
        """Delete this cluster's keys (its queue, its plan keys, its matchmaking prefix) and nothing else."""
        import redis

        for url, patterns in ((self.broker_url, [f"{self.namespace}*", "celery-task-meta-ai:*"]),
                              (self.mm_redis_url, [f"{self.mm_prefix}*"])):
            client = redis.Redis.from_url(url)
            for pattern in patterns:
                keys = list(client.scan_iter(pattern, count=1000))
                for start in range(0, len(keys), 500):
                    client.delete(*keys[start:start + 500])
            client.close()


def _ensure_database(url: str) -> None:
    import psycopg

    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            admin.execute(f'CREATE DATABASE "{name}"')


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get(
        "DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/torres_cluster"), help="created if missing")
    parser.add_argument("--broker-url", default=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--mm-redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/1"))
    parser.add_argument("--run-dir", type=Path, default=None, help="logs and metrics files (default: a temp dir)")
    args = parser.parse_args(argv)
    _ensure_database(args.database_url)
    run_dir = args.run_dir or Path(tempfile.mkdtemp(prefix="torres-cluster-"))
    cluster = Cluster(args.database_url, args.broker_url, args.mm_redis_url, run_dir, log_level="INFO")
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        cluster.start()
        print(f"game service:  {' '.join(cluster.game_urls)}")
        print(f"matchmaking:   {cluster.matchmaking_url}")
        for name, proc in cluster.procs.items():
            print(f"  {name:12} pid {proc.popen.pid if proc.popen else '-':>7}  port {proc.port or '-'}")
        print(f"service key:   {cluster.api_key}\nadmin key:     {cluster.admin_key}")
        print(f"AI queue:      {cluster.queue}\nlogs:          {run_dir}\nCtrl-C stops everything.", flush=True)
        while all(p.alive() for p in cluster.procs.values()):
            time.sleep(1)
        dead = [n for n, p in cluster.procs.items() if not p.alive()]
        print(f"stopped: {', '.join(dead)} exited", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        print(f"exit codes: {cluster.stop()}", flush=True)
        cluster.clean_redis()


if __name__ == "__main__":
    sys.exit(main())

"""docs/integration.md's production setup, followed word for word on this machine: its first block names the
reader's servers, and this test gives exactly those variables this machine's values (a throwaway PostgreSQL
database, the test Redis databases, free loopback ports); every other block runs as written -- the keys, the
schema, each process line under its own supervisor (here: one subprocess a line), and the check, in which the portal's
key creates a game and two players with tokens it signs are matched by the matcher."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "integration.md").read_text()
SECTION = DOC[DOC.index("## Production setup of a portal, start to finish"):]
SECTION = SECTION[:SECTION.index("\n## ", 10)]
BLOCKS = re.findall(r"```sh\n(.*?)```", SECTION, re.S)
BROKER_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
MM_REDIS_URL = os.environ.get("TEST_MM_REDIS_URL", "redis://127.0.0.1:6379/14")

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.timeout(420)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def lines(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_section_has_its_five_steps() -> None:
    assert len(BLOCKS) == 5, BLOCKS
    _, _, migrate, processes, _ = BLOCKS
    assert lines(migrate) == ["python -m torres_game migrate"]
    commands = " ".join(lines(processes))
    for needed in ("TORRES_WEBHOOK_INTERVAL=0", "torres_game.wsgi:app", "python -m torres_game webhooks",
                   "torres_ai.celery_app worker", "torres_ai.sweeper", "torres_matchmaking.wsgi:app",
                   "torres_matchmaking matcher", "torres_matchmaking ratings"):
        assert needed in commands, needed
    assert "TORRES_TENANTS_FILE" in BLOCKS[1]


def test_the_production_setup_works_as_written(
        throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]], tmp_path: Path) -> None:
    servers, keys, migrate, processes, check = BLOCKS
    named = set(re.findall(r"([A-Z_]+)=", servers))
    game_port, mm_port, hook_port = free_port(), free_port(), free_port()  # nothing listens on hook_port
    namespace = f"prod-doc-{uuid.uuid4().hex[:8]}"
    (tmp_path / "infra").symlink_to(ROOT / "infra")  # the image's working directory holds infra/
    procs: list[tuple[subprocess.Popen[bytes], Path]] = []
    with throwaway_database("torres_prod_doc") as database:
        here = {  # the reader's servers: exactly the variables the first block sets
            "DATABASE_URL": database, "CELERY_BROKER_URL": BROKER_URL, "REDIS_URL": MM_REDIS_URL,
            "GAME_PORT": str(game_port), "MATCHMAKING_PORT": str(mm_port),
            "GAME_SERVICE_URL": f"http://127.0.0.1:{game_port}", "MATCHMAKING_URL": f"http://127.0.0.1:{mm_port}",
            "PORTAL": "my-portal", "PORTAL_ORIGIN": "https://portal.example",
            "PORTAL_WEBHOOK": f"http://127.0.0.1:{hook_port}/torres/hooks",
        }
        assert set(here) == named
        machine = {  # this machine's: loopback only, keys and ports of its own beside other tests
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # `. .venv/bin/activate`
            "HOST": "127.0.0.1", "MM_KEY_PREFIX": f"{namespace}:mm:", "TORRES_AI_KEY_PREFIX": namespace,
            "TORRES_AI_METRICS_PORT": "0", "LOG_LEVEL": "WARNING", "WEB_CONCURRENCY": "1",
            "PYTHONUNBUFFERED": "1",
            # the portal's webhook endpoint is on loopback here, which webhooks refuse unless allowed
            "TORRES_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8",
        }
        base = {k: v for k, v in os.environ.items() if not k.startswith(("TORRES_", "MM_", "GAME_SERVICE"))}
        env = base | here | machine
        setup = subprocess.run(["bash", "-c", f"set -euo pipefail\n{keys}\n{migrate}\nenv -0 > setup.env"],
                               cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert setup.returncode == 0, setup.stdout + setup.stderr
        env = dict(item.split("=", 1) for item in (tmp_path / "setup.env").read_text().split("\0") if "=" in item)
        try:
            for n, line in enumerate(lines(processes)):
                log = tmp_path / f"process-{n}.log"
                with log.open("wb") as out:
                    procs.append((subprocess.Popen(["bash", "-c", line], cwd=tmp_path, env=env,
                                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True), log))
            deadline = time.monotonic() + 120
            while True:
                dead = [log.read_text()[-2000:] for proc, log in procs if proc.poll() is not None]
                assert not dead, dead
                try:
                    if all(httpx.get(f"{here[url]}/readyz", timeout=2).status_code == 200
                           for url in ("GAME_SERVICE_URL", "MATCHMAKING_URL")):
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, [log.read_text()[-2000:] for _, log in procs]
                time.sleep(0.5)
            ran = subprocess.run(["bash", "-c", f"set -euo pipefail\n{check}"], cwd=tmp_path, env=env,
                                 capture_output=True, text=True, timeout=180)
            assert ran.returncode == 0, ran.stdout + ran.stderr + "".join(log.read_text()[-1500:] for _, log in procs)
            assert '"status":"matched"' in ran.stdout.replace(" ", ""), ran.stdout
            assert "game_id" in (tmp_path / "game.json").read_text()
            assert [proc.poll() for proc, _ in procs] == [None] * len(procs)  # every process still up
        finally:
            for proc, _ in procs:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
            for proc, _ in procs:
                try:
                    proc.wait(timeout=45)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            for url, patterns in ((BROKER_URL, ["torres-ai*", f"{namespace}*"]), (MM_REDIS_URL, [f"{namespace}*"])):
                client = redis.Redis.from_url(url)
                for pattern in patterns:
                    for key in client.scan_iter(pattern, count=1000):
                        client.delete(key)

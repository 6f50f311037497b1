"""A standalone enforcer (``python -m torres_game enforce``) beside a game service that
enforces nothing itself (``TORRES_ENFORCER_INTERVAL=0``), on PostgreSQL, all real processes over HTTP.

A human seat lets its clock run out under the ``ai`` timeout policy (scope ``turn``): the enforcer process
appends the timeout, and the AI must play that seat's turn and hand the game on (the next seat to move has a
deadline again and can act) within a bounded delay, whoever plays AI turns:

* ``in-process``: no broker; the web process and the enforcer both run the in-process bots
  (``TORRES_AI_DRIVER=auto``), so the enforcer plays the turn it made due itself;
* ``enforcer-records-only``: the enforcer only records the turn (``TORRES_AI_DRIVER=none``), as a killed
  enforcer would leave it: the web process must take the outbox row up although it did not write it;
* ``celery``: a broker and a real Celery worker (no beat, so no sweeper would rescue a lost turn): the
  enforcer publishes the turn it made due at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from game.conftest import ADMIN_KEY, API_KEY
from game.servers import Server, gunicorn

from torres_game.store import PostgresEventStore
from torres_online.lifecycle import parse_time

from .conftest import MIGRATIONS, Worker, worker_env

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(240)]

BOUND = 10.0  # seconds from the passed deadline to the AI's move on the seat, at most
TURN_SECONDS = 3.0
SERVICE = {"X-API-Key": API_KEY}
ADMIN = {"X-Admin-Key": ADMIN_KEY}


@pytest.fixture
def database(throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> Iterator[str]:
    """A database of its own: an in-process driver takes up every due turn it finds, also other tests' ones."""
    with throwaway_database("torres_enforcer_ai") as url:
        store = PostgresEventStore(url, min_size=1, max_size=2, migrations_dir=MIGRATIONS)
        store.migrate()
        store.close()
        yield url


class Enforcer:
    """A ``python -m torres_game enforce`` process, its output in a file."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "torres_game", "enforce"], env=env,
                                     stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while "deadline enforcer on postgres" not in self.log():
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log()
            time.sleep(0.05)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._log.close()
        return self.proc.returncode


def _ai_env(variant: str, url: str, namespace: str) -> dict[str, str]:
    """What the web process and the enforcer are told about AI turns (the same, as an operator would)."""
    if variant == "celery":
        env = worker_env(url, namespace)
        keys = ("CELERY_BROKER_URL", "TORRES_AI_QUEUE", "TORRES_AI_BULK_QUEUE", "TORRES_AI_KEY_PREFIX")
        return {"TORRES_AI_DRIVER": "auto", "REDIS_URL": "", **{k: env[k] for k in keys}}
    return {"TORRES_AI_DRIVER": "auto", "CELERY_BROKER_URL": "", "REDIS_URL": ""}


def _summary(server: Server, gid: str) -> dict[str, Any]:
    response = server.client.get(f"/v1/games/{gid}", headers=SERVICE)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _act(server: Server, gid: str, token: str, tag: str) -> None:
    """The seat to move plays its first legal action with its own token."""
    auth = {"Authorization": f"Bearer {token}"}
    legal = server.client.get(f"/v1/games/{gid}/legal-actions", headers=auth).get_json()
    assert legal["actions"], legal
    body = {"seat": legal["seat"], "action": legal["actions"][0], "expected_version": legal["version"],
            "command_id": f"{tag}-{uuid.uuid4().hex[:6]}"}
    response = server.client.post(f"/v1/games/{gid}/actions", json=body, headers=auth)
    assert response.status_code == 201, response.get_json()


@pytest.mark.redis
@pytest.mark.parametrize("variant", ["in-process", "enforcer-records-only", "celery"])
def test_standalone_enforcer_the_ai_plays_a_timed_out_seat_within_a_bounded_delay(
    variant: str, database: str, redis_namespace: str, purge_queue: None, tmp_path: Path,
) -> None:
    ai_env = _ai_env(variant, database, redis_namespace)
    enforcer_env = {**os.environ, "DATABASE_URL": database, "TORRES_MIGRATIONS_DIR": str(MIGRATIONS),
                    "TORRES_API_KEY": API_KEY, "TORRES_ADMIN_KEY": ADMIN_KEY, "TORRES_ENFORCER_INTERVAL": "0.1",
                    "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1", **ai_env}
    if variant == "enforcer-records-only":
        enforcer_env["TORRES_AI_DRIVER"] = "none"
    worker: Worker | None = None
    enforcer: Enforcer | None = None
    with gunicorn(database, extra_env={"TORRES_ENFORCER_INTERVAL": "0", **ai_env}) as web:
        try:
            if variant == "celery":
                worker = Worker(worker_env(database, redis_namespace), tmp_path / "worker.log", False,
                                tmp_path / "beat")
                deadline = time.monotonic() + 60
                while " ready." not in worker.log():
                    assert worker.proc.poll() is None and time.monotonic() < deadline, worker.log()
                    time.sleep(0.1)
            enforcer = Enforcer(enforcer_env, tmp_path / "enforcer.log")

            seats = [{"kind": "human", "player_id": "p0"}, {"kind": "human", "player_id": "p1"}]
            created = web.client.post("/v1/games", headers=SERVICE, json={
                "seats": seats, "clock": {"turn_seconds": TURN_SECONDS},
                "timeout": {"policy": "ai", "scope": "turn"}})
            assert created.status_code == 201, created.get_json()
            game = created.get_json()
            gid, tokens = game["game_id"], [seat["token"] for seat in game["seats"]]
            first = _summary(web, gid)
            seat, deadline_text = first["to_move"], first["deadline"]
            assert seat is not None and deadline_text is not None
            limit = parse_time(deadline_text).timestamp() + BOUND

            # The human of ``seat`` does nothing. Wait for its turn to be over and the next seat's clock to run.
            while True:
                now = _summary(web, gid)
                if now["to_move"] not in (None, seat) and now["deadline"] is not None:
                    break
                assert datetime.now(UTC).timestamp() < limit, (
                    f"no AI move {BOUND} s after the deadline: {now}\n--- enforcer\n{enforcer.log()}"
                    + (f"\n--- worker\n{worker.log()}" if worker else ""))
                time.sleep(0.05)

            events = web.client.get(f"/v1/games/{gid}/events?limit=1000", headers=ADMIN).get_json()["events"]
            timed_out = next(e for e in events if e["type"] == "timed_out")
            assert timed_out["payload"]["seat"] == seat and timed_out["payload"]["policy"] == "ai"
            ai_moves = [e for e in events if e["type"] == "action_applied" and e["command_id"].startswith("ai:")]
            assert ai_moves and ai_moves[0]["version"] > timed_out["version"]
            assert {e["payload"]["seat"] for e in ai_moves} == {seat}
            passed = parse_time(timed_out["payload"]["deadline"])
            enforced = parse_time(timed_out["created_at"])
            moved = parse_time(ai_moves[0]["created_at"])
            print(f"\n{variant}: timeout appended {(enforced - passed).total_seconds():.3f} s after the deadline, "
                  f"the AI moved {(moved - enforced).total_seconds():.3f} s after the timeout")
            assert (moved - passed).total_seconds() <= BOUND

            # The game goes on: the seat to move is a human again, with a clock, and can act.
            mover = _summary(web, gid)["to_move"]
            _act(web, gid, tokens[mover], "next")
            assert web.client.get(f"/v1/games/{gid}/verify", headers=SERVICE).get_json()["ok"]
        finally:
            codes = {"enforcer": enforcer.stop() if enforcer else 0}
            if worker is not None:
                worker.stop()
    assert codes == {"enforcer": 0}

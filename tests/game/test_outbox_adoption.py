"""The in-process AI drivers take up due outbox rows whoever wrote them.

The process that appends plays the turn it made due; a row another process wrote and left (a standalone enforcer
that only records turns, a process killed after its commit) is adopted once it has stayed due ``adopt_after``
seconds, found through the hub's notices (one process here: SQLite publishes in-process) or, with no notice at all
(SQLite across processes), through the periodic re-read. The PostgreSQL, gunicorn and Celery version of this is
``tests/ai/test_enforcer_ai_turns.py``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from flask import Flask
from polling import wait_until

from torres_game.ai_turns import BackgroundDriver, random_decide
from torres_game.app import create_app
from torres_game.service import GameService
from torres_online.lifecycle import parse_time
from torres_service.wakeups import WakeHub

from .conftest import ADMIN, ADMIN_KEY, API_KEY, MIGRATIONS, bearer, create_game, make_config

AI_FIRST = [{"kind": "ai", "level": "easy"}, {"kind": "human", "player_id": "p"}]


class RecordingBot(BackgroundDriver):
    """The random bot, recording every turn it is handed to play."""

    def __init__(self, **timings: float) -> None:
        super().__init__(random_decide(random.Random(7)))
        for name, value in timings.items():
            setattr(self, name, value)
        self.played: list[tuple[str, int]] = []
        self.gate = threading.Event()
        self.gate.set()

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        self.gate.wait(30)
        self.played.append((game_id, version))
        super().play(service, game_id, seat, version)


def _events(app: Flask, gid: str) -> list[dict[str, Any]]:
    return app.test_client().get(f"/v1/games/{gid}/events?limit=1000", headers=ADMIN).get_json()["events"]


def test_the_hub_tells_its_watchers_of_every_notice_and_of_every_recheck() -> None:
    hub = WakeHub()
    heard: list[tuple[str | None, Any]] = []

    def broken(key: str | None, notice: Any) -> None:
        raise RuntimeError("a watcher's bug")

    hub.watch(broken)
    hub.watch(lambda key, notice: heard.append((key, notice)))
    sub = hub.subscribe("g1")
    hub.publish("g1", "n1")
    hub.publish("g2", "n2")  # nobody waits on g2: the watcher hears it all the same
    hub.recheck_all()
    assert heard == [("g1", "n1"), ("g2", "n2"), (None, None)]  # the broken watcher stopped nobody
    assert sub.latest == "n1" and sub.take_recheck()
    hub.unwatch(broken)
    hub.unwatch(broken)  # idempotent
    hub.publish("g3", "n3")
    assert heard[-1] == ("g3", "n3") and hub.open_count == 1


def test_a_row_another_process_wrote_is_adopted_after_the_grace_and_played_once(tmp_path: Path) -> None:
    """Two services on one database: the writer only records turns (``ai_driver="none"``); the other one's bot
    adopts the row, not before ``adopt_after``, soon after, and exactly once."""
    url = f"sqlite:///{tmp_path / 'adopt.sqlite3'}"
    bot = RecordingBot(adopt_after=0.5)
    writer = create_app(make_config(url, enforcer_interval=0))
    player = create_app(make_config(url, enforcer_interval=0), driver=bot)
    try:
        game = create_game(writer.test_client(), AI_FIRST)
        gid = game["game_id"]
        wait_until(lambda: player.test_client().get(f"/v1/games/{gid}").get_json()["version"] == 2, 10,
                  "the adopted AI turn")
        created, moved = (parse_time(e["created_at"]) for e in _events(player, gid)[:2])
        assert 0.5 <= (moved - created).total_seconds() < 5  # the writer had its grace; then no long wait
        time.sleep(0.7)  # more reads of the outbox: nothing adopted twice
        assert bot.played == [(gid, 1)]
        assert not [t for t in player.extensions["torres_game"].store.pending_ai_turns() if t.game_id == gid]
    finally:
        player.extensions["torres_game"].close()
        writer.extensions["torres_game"].close()


def test_a_process_plays_its_own_turns_once_however_often_it_reads_the_outbox(tmp_path: Path) -> None:
    """A bot that re-reads the outbox all the time (no grace) still plays each of its own turns once: what is
    queued or being played here is never queued again, nor adopted."""
    bot = RecordingBot(adopt_after=0.0, rescan_every=0.01, notice_gap=0.0)
    app = create_app(make_config(f"sqlite:///{tmp_path / 'own.sqlite3'}", enforcer_interval=0), driver=bot)
    client = app.test_client()
    try:
        bot.gate.clear()  # the bot is slow: its turns stay queued while the outbox is read again and again
        game = create_game(client, AI_FIRST)
        gid, token = game["game_id"], game["seats"][1]["token"]
        time.sleep(0.3)
        bot.turn_due(gid, 0, 1)  # told twice
        bot.gate.set()
        rng = random.Random(3)

        def humans_turn() -> bool:
            summary = client.get(f"/v1/games/{gid}").get_json()
            return summary["to_move"] == 1 or summary["status"] == "over"

        for n in range(12):  # the human's turns, and the bot's in between
            wait_until(humans_turn, 10, "the bot's move")
            if client.get(f"/v1/games/{gid}").get_json()["status"] == "over":
                break
            legal = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(token)).get_json()
            body = {"seat": 1, "action": rng.choice(legal["actions"]), "expected_version": legal["version"],
                    "command_id": f"h{n}"}
            assert client.post(f"/v1/games/{gid}/actions", json=body, headers=bearer(token)).status_code == 201
        wait_until(bot.idle, 10, "the bot to finish")
        time.sleep(0.2)
        assert bot.played and len(bot.played) == len(set(bot.played)), bot.played
        ai = [e for e in _events(app, gid) if e["command_id"].startswith("ai:")]
        # every turn handed to it was due, none stale: each started a run of the AI's actions (a whole turn)
        starts = [e["version"] - 1 for e in ai if e["version"] - 1 not in {a["version"] for a in ai}]
        assert starts == [v for _, v in bot.played]
    finally:
        app.extensions["torres_game"].close()


def test_sqlite_enforcer_process_that_only_records_the_service_adopts_the_turn(tmp_path: Path) -> None:
    """Real processes on one SQLite file, which has no notices between processes: an enforcer recording the AI
    turn its timeout makes due, and a service whose bot finds the row by its periodic re-read of the outbox."""
    db = tmp_path / "enforce.sqlite3"
    service_app = create_app(make_config(f"sqlite:///{db}", enforcer_interval=0, ai_driver="thread"))
    driver = service_app.extensions["torres_game"].driver
    assert isinstance(driver, BackgroundDriver)
    bound = driver.adopt_after + driver.rescan_every + driver.notice_gap + 2.0
    client = service_app.test_client()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(DATABASE_URL=f"sqlite:///{db}", TORRES_MIGRATIONS_DIR=str(MIGRATIONS), TORRES_API_KEY=API_KEY,
               TORRES_ADMIN_KEY=ADMIN_KEY, TORRES_ENFORCER_INTERVAL="0.05", TORRES_AI_DRIVER="none",
               LOG_LEVEL="WARNING")
    enforcer = subprocess.Popen([sys.executable, "-m", "torres_game", "enforce"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert enforcer.stdout is not None  # sweeping (its sequencer thread may log a line of its own first)
        assert any("deadline enforcer on sqlite" in enforcer.stdout.readline() for _ in range(5))
        # The creation's own notice has the outbox read at once (nothing is due yet); 1.5 s later the enforcer
        # process appends the timeout, which nothing in this process hears of: the periodic re-read finds it.
        game = create_game(client, clock={"turn_seconds": 1.5}, timeout={"policy": "ai", "scope": "turn"})
        gid = game["game_id"]
        seat = client.get(f"/v1/games/{gid}").get_json()["to_move"]

        def ai_moved() -> bool:
            return any(e["command_id"].startswith("ai:") for e in _events(service_app, gid))

        wait_until(ai_moved, 1.5 + bound + 5, "the AI to play the timed-out seat")
        events = _events(service_app, gid)
        timed_out = next(e for e in events if e["type"] == "timed_out")
        first_ai = next(e for e in events if e["command_id"].startswith("ai:"))
        assert timed_out["payload"]["seat"] == seat and first_ai["payload"]["seat"] == seat
        delay = (parse_time(first_ai["created_at"]) - parse_time(timed_out["created_at"])).total_seconds()
        print(f"\nsqlite: the AI moved {delay:.3f} s after the enforcer process's timeout")
        assert driver.adopt_after <= delay <= bound
    finally:
        enforcer.send_signal(signal.SIGTERM)
        code = enforcer.wait(timeout=20)
        service_app.extensions["torres_game"].close()
    assert code == 0


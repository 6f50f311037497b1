"""Clocks and timeouts, derived from the log and enforced exactly once.

Sub-second limits drive every path. Most tests set the service's clock (``Clock``): the limit runs out
exactly when the test says, however loaded the machine. The races, the restarts and the killed enforcer
processes use the real clock.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from polling import wait_until

import torres_rules as tr
from torres_game import ai_turns
from torres_game.app import create_app
from torres_game.errors import SeatPlayedByAi, TimeUp, VersionConflict
from torres_game.service import GameService
from torres_online.lifecycle import parse_time

from .conftest import ADMIN, ADMIN_KEY, API_KEY, MIGRATIONS, bearer, make_config
from .online_helpers import Clock, act, create, creds, drive, log, types_after

FORFEIT = {"policy": "forfeit"}


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def online(tmp_path: Path, clock: Clock) -> Iterator[Flask]:
    """A service whose clock the test moves, and no enforcer thread: the test sweeps (``enforce_due``)."""
    application = create_app(make_config(f"sqlite:///{tmp_path / 'online.sqlite3'}", enforcer_interval=0))
    application.extensions["torres_game"].clock.now = clock
    yield application
    application.extensions["torres_game"].close()


def svc_of(app: Flask) -> GameService:
    return app.extensions["torres_game"]


def test_the_clock_is_public_and_folded_from_the_log(online: Flask, clock: Clock) -> None:
    client, svc = online.test_client(), svc_of(online)
    game = create(client, clock={"turn_seconds": 5, "bank_seconds": 10, "increment_seconds": 2}, timeout=FORFEIT)
    gid = game["game_id"]
    start = clock()
    first = svc.games.current(gid).to_move
    view = client.get(f"/v1/games/{gid}/view").get_json()["lifecycle"]["clock"]
    assert view["to_move"] == first and view["banks"] == [10.0, 10.0]
    assert parse_time(view["deadline"]) == start + timedelta(seconds=5)  # min(turn limit, bank)
    assert client.get(f"/v1/games/{gid}").get_json()["deadline"] == view["deadline"]

    clock.advance(3)
    view = client.get(f"/v1/games/{gid}/view").get_json()["lifecycle"]["clock"]
    assert view["seconds_left"] == 2.0 and view["banks"][first] == 7.0
    act(svc, game, tr.legal_actions(svc.games.current(gid).state)[0])  # the turn passes (setup: one placement)
    view = client.get(f"/v1/games/{gid}/view").get_json()["lifecycle"]["clock"]
    second = 1 - first
    assert view["to_move"] == second and view["banks"][first] == 10 - 3 + 2  # charged, then the increment
    assert parse_time(view["deadline"]) == clock() + timedelta(seconds=5)

    # A restarted service (nothing cached) folds the same clock from the recorded times.
    cold = GameService(svc.store, svc.config, svc.driver)
    cold.clock.now = clock
    assert cold.queries.view(gid, creds(game, 0))["lifecycle"]["clock"] == view


def test_a_timeout_with_forfeit_ends_a_two_seat_game_ranked(online: Flask, clock: Clock) -> None:
    client, svc = online.test_client(), svc_of(online)
    game = create(client, clock={"turn_seconds": 0.5}, timeout=FORFEIT)
    gid = game["game_id"]
    act(svc, game, tr.legal_actions(svc.games.current(gid).state)[0])
    late = svc.games.current(gid).to_move
    assert late is not None
    clock.advance(0.4)
    assert svc.deadlines.enforce_due() == 0  # not yet
    clock.advance(0.2)
    version = svc.games.current(gid).version
    assert svc.deadlines.enforce_due() == 1 and svc.deadlines.enforce_due() == 0
    assert types_after(svc, game, version) == ["timed_out", "game_ended"]
    ended = log(svc, game)[-1].payload
    assert ended["reason"] == "forfeit" and ended["ranks"][late] == 1 and ended["winner"] == 1 - late
    assert ended["rated"] is True and ended["forfeited"] == [late]
    summary = client.get(f"/v1/games/{gid}").get_json()
    assert summary["status"] == "over" and summary["winner"] == 1 - late and summary["deadline"] is None
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"]


def test_a_forfeited_seat_keeps_its_knights_passes_every_turn_and_ranks_last(online: Flask, clock: Clock) -> None:
    client, svc = online.test_client(), svc_of(online)
    game = create(client, players=3, clock={"turn_seconds": 0.5}, timeout=FORFEIT)
    gid = game["game_id"]
    rng = random.Random(3)
    drive(svc, game, rng, lambda s: s.stage == "turn" and s.round == 2)
    gone = svc.games.current(gid).to_move
    knights = svc.games.current(gid).state.knights.count(gone)
    clock.advance(0.6)
    assert svc.deadlines.enforce_due() == 1
    assert svc.games.current(gid).to_move != gone  # it passed at once
    drive(svc, game, rng, lambda s: tr.is_over(s))
    events = log(svc, game)
    timed_out = next(e for e in events if e.type == "timed_out")
    after = [e for e in events if e.version > timed_out.version and e.type == "action_applied"]
    theirs = [e for e in after if e.payload["seat"] == gone]
    assert theirs and all(e.payload.get("auto") == "forfeit" for e in theirs)
    assert {e.payload["action"]["type"] for e in theirs} <= {"end_turn", "move_king"}
    assert all(e.payload["action"].get("to") is None for e in theirs if e.payload["action"]["type"] == "move_king")
    assert svc.games.current(gid).state.knights.count(gone) == knights  # its knights stay
    ended = events[-1].payload
    others = [rank for s, rank in enumerate(ended["ranks"]) if s != gone]
    assert ended["reason"] == "completed" and ended["ranks"][gone] > max(others) and ended["winner"] != gone
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"]


@pytest.mark.parametrize("scope", ["turn", "game"])
def test_a_timeout_with_the_ai_policy_hands_the_seat_to_the_ai(online: Flask, clock: Clock, scope: str) -> None:
    client, svc = online.test_client(), svc_of(online)
    game = create(client, clock={"turn_seconds": 0.5}, timeout={"policy": "ai", "scope": scope, "level": "hard"})
    gid = game["game_id"]
    seat = svc.games.current(gid).to_move
    assert seat is not None
    clock.advance(0.6)
    assert svc.deadlines.enforce_due() == 1
    folded = svc.games.current(gid)
    assert log(svc, game)[-1].payload == {"seat": seat, "deadline": log(svc, game)[-1].payload["deadline"],
                                          "policy": "ai", "scope": scope, "level": "hard"}
    view = client.get(f"/v1/games/{gid}/view").get_json()["lifecycle"]
    assert view["ai_controlled"] == [seat] and view["clock"]["deadline"] is None  # the AI's time is not counted
    assert svc.queries.ai_seat_level(gid, seat) == "hard"
    assert [(t.game_id, t.seat, t.version) for t in svc.store.pending_ai_turns()] == [(gid, seat, folded.version)]
    # The human cannot move while the AI plays the seat, and sees no legal actions.
    with pytest.raises(SeatPlayedByAi):
        act(svc, game, tr.legal_actions(folded.state)[0])
    token = bearer(game["seats"][seat]["token"])
    assert client.get(f"/v1/games/{gid}/legal-actions", headers=token).get_json()["actions"] == []
    # The AI worker's own turn runner plays it (the real bots, at the policy's level).
    from torres_ai.config import Settings
    from torres_ai.turns import LevelBots

    decide = LevelBots(Settings.from_env()).deciding()
    assert ai_turns.play_turn(svc, gid, seat, folded.version, decide).outcome is ai_turns.Outcome.PLAYED
    while svc.games.current(gid).to_move == seat:  # the rest of the seat's turn
        turn = svc.store.pending_ai_turns()[0]
        assert ai_turns.play_turn(svc, gid, turn.seat, turn.version, decide).outcome is ai_turns.Outcome.PLAYED
    while svc.games.current(gid).to_move != seat:
        act(svc, game, tr.legal_actions(svc.games.current(gid).state)[0])
    back = svc.games.current(gid)
    assert back.life.ai_plays(seat) == (scope == "game")
    if scope == "turn":
        act(svc, game, tr.legal_actions(back.state)[0])  # the human plays its next turn again
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"]


@pytest.mark.parametrize("policy", ["forfeit", "ai"])
@pytest.mark.parametrize("stage", ["keep_card", "move_king"])
def test_a_timeout_in_keep_card_or_move_king(online: Flask, clock: Clock, stage: str, policy: str) -> None:
    client, svc = online.test_client(), svc_of(online)
    game = create(client, players=3, clock={"turn_seconds": 0.5}, timeout={"policy": policy})
    gid = game["game_id"]
    drive(svc, game, random.Random(5), lambda s: s.stage == stage, prefer="buy_card" if stage == "keep_card" else None)
    folded = svc.games.current(gid)
    seat = folded.to_move
    clock.advance(0.6)
    assert svc.deadlines.enforce_due() == 1
    if policy == "forfeit":  # the forfeited seat's pending choice is made for it, and the game goes on
        auto = log(svc, game)[folded.version + 1]
        assert auto.type == "action_applied" and auto.payload["seat"] == seat and auto.payload["auto"] == "forfeit"
        assert auto.payload["action"]["type"] == stage
        if stage == "move_king":
            assert auto.payload["action"]["to"] is None  # the king stays
    else:  # the AI makes the choice
        turn = svc.store.pending_ai_turns()[0]
        assert (turn.seat, svc.games.current(gid).state.stage) == (seat, stage)
        ai_turns.play_turn(svc, gid, turn.seat, turn.version, lambda d: tr.legal_actions(d.state)[0])
        assert svc.games.current(gid).state.stage != stage or svc.games.current(gid).to_move != seat
    assert (not svc.games.current(gid).over and svc.games.current(gid).to_move != seat) \
        or svc.games.current(gid).state.stage == "turn"
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"]


def test_a_move_after_the_deadline_gets_time_up_and_the_timeout_applies(online: Flask, clock: Clock) -> None:
    client, svc = online.test_client(), svc_of(online)
    game = create(client, players=3, clock={"turn_seconds": 0.5}, timeout=FORFEIT)
    gid = game["game_id"]
    folded = svc.games.current(gid)
    seat = folded.to_move
    clock.advance(0.51)  # no enforcer ran yet: the request itself applies the timeout
    response = client.post(f"/v1/games/{gid}/actions", headers=bearer(game["seats"][seat]["token"]), json={
        "seat": seat, "action": tr.legal_actions(folded.state)[0], "expected_version": folded.version,
        "command_id": "late"})
    assert response.status_code == 409 and response.get_json()["code"] == "time_up"
    assert types_after(svc, game, folded.version)[0] == "timed_out"


# -- races: the real append path, two threads ------------------------------------------------------------

def _race(svc: GameService, game: dict[str, Any], clock: Clock) -> tuple[bool, bool]:
    """The seat to move submits stamped 1 ms before its deadline while an enforcer runs stamped 1 ms after."""
    gid = game["game_id"]
    folded = svc.games.current(gid)
    deadline = folded.life.deadline()
    assert deadline is not None
    seat = folded.to_move
    assert seat is not None
    clock.t = deadline - timedelta(milliseconds=1)
    barrier = threading.Barrier(2)
    outcome: dict[str, bool] = {}

    def move() -> None:
        barrier.wait()
        try:
            svc.commands.submit_action(gid, creds(game, seat), seat=seat, action=tr.legal_actions(folded.state)[0],
                              expected_version=folded.version, command_id=f"race{folded.version}")
            outcome["move"] = True
        except (VersionConflict, TimeUp):
            outcome["move"] = False

    def enforce() -> None:
        barrier.wait()
        outcome["timeout"] = svc.deadlines.enforce_deadline(gid, now=deadline + timedelta(milliseconds=1))

    threads = [threading.Thread(target=move), threading.Thread(target=enforce)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcome["move"], outcome["timeout"]


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_move_racing_its_deadline_exactly_one_is_appended(
    backend: str, tmp_path: Path, clock: Clock, request: pytest.FixtureRequest,
) -> None:
    url = request.getfixturevalue("pg_url") if backend == "postgres" else f"sqlite:///{tmp_path / 'race.sqlite3'}"
    application = create_app(make_config(url, enforcer_interval=0))
    svc = svc_of(application)
    svc.clock.now = clock
    try:
        client = application.test_client()
        seen = set()
        for _ in range(8):
            clock.t = clock.t + timedelta(seconds=1)
            game = create(client, players=3, clock={"turn_seconds": 0.5}, timeout=FORFEIT)
            before = svc.games.current(game["game_id"]).version
            moved, timed_out = _race(svc, game, clock)
            assert moved != timed_out  # exactly one of them
            first = svc.store.read(game["game_id"], after=before)[0]
            assert first.type == ("action_applied" if moved else "timed_out")
            assert sum(e.type == "timed_out" for e in log(svc, game)) == int(timed_out)
            assert client.get(f"/v1/games/{game['game_id']}/verify").get_json()["ok"]
            seen.add(moved)
    finally:
        application.extensions["torres_game"].close()


def test_two_enforcers_at_once_append_one_timeout(online: Flask, clock: Clock) -> None:
    client, svc = online.test_client(), svc_of(online)
    twin = GameService(svc.store, svc.config, svc.driver)  # another process's enforcer, on the same database
    twin.clock.now = clock
    def sweep(service: GameService, game_id: str, barrier: threading.Barrier, results: list[int]) -> None:
        barrier.wait()
        results.append(int(service.deadlines.enforce_deadline(game_id)))

    for _ in range(5):
        game = create(client, players=3, clock={"turn_seconds": 0.5}, timeout=FORFEIT)
        clock.advance(0.6)
        barrier = threading.Barrier(2)
        results: list[int] = []
        threads = [threading.Thread(target=sweep, args=(s, game["game_id"], barrier, results)) for s in (svc, twin)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == [0, 1]
        assert sum(e.type == "timed_out" for e in log(svc, game)) == 1


# -- restarts: the service and enforcer processes die mid-turn ----------------------------------------

def _enforcer_process(db: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(DATABASE_URL=f"sqlite:///{db}", TORRES_MIGRATIONS_DIR=str(MIGRATIONS), TORRES_API_KEY=API_KEY,
               TORRES_ADMIN_KEY=ADMIN_KEY, TORRES_ENFORCER_INTERVAL="0.05", LOG_LEVEL="WARNING")
    process = subprocess.Popen([sys.executable, "-m", "torres_game", "enforce"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    # it is sweeping (its sequencer thread may log a line of its own first)
    assert any("deadline enforcer on sqlite" in process.stdout.readline() for _ in range(5))
    return process


def test_restarts_of_the_service_and_of_enforcer_processes_mid_turn(tmp_path: Path) -> None:
    """Real clock, real processes: a service stops mid-turn, an enforcer process is killed (SIGKILL) before
    the deadline, then a restarted service (its enforcer thread) and two enforcer processes all sweep the
    same database after it: exactly one timeout per deadline, and the clock the restarted service shows is
    the one the log implies."""
    db = tmp_path / "restart.sqlite3"
    first = create_app(make_config(f"sqlite:///{db}", enforcer_interval=0))
    client = first.test_client()
    games = [create(client, players=2, clock={"turn_seconds": 6}, timeout=FORFEIT) for _ in range(3)]
    deadlines = [client.get(f"/v1/games/{g['game_id']}").get_json()["deadline"] for g in games]
    svc_of(first).close()  # the service goes away mid-turn

    doomed = _enforcer_process(db)
    time.sleep(0.2)
    doomed.send_signal(signal.SIGKILL)  # killed mid-turn, before any deadline passed
    doomed.wait(timeout=10)

    second = create_app(make_config(f"sqlite:///{db}", enforcer_interval=0.05))
    svc = svc_of(second)
    assert [svc.queries.game_summary(g["game_id"])["deadline"] for g in games] == deadlines  # still running
    others: list[subprocess.Popen[str]] = []
    try:
        for _ in range(2):
            others.append(_enforcer_process(db))
        wait_until(lambda: all(svc.queries.game_summary(g["game_id"])["status"] == "over" for g in games), 20,
                   "every game over")
        time.sleep(0.3)  # let every enforcer sweep again over the settled games
        for game in games:
            events = svc.store.read(game["game_id"])
            assert sum(e.type == "timed_out" for e in events) == 1
            assert svc.queries.verify(game["game_id"])["ok"]
    finally:  # every enforcer started is stopped, also when the test fails half-way (none is left running)
        for process in others:
            process.send_signal(signal.SIGTERM)
        codes = [process.wait(timeout=20) for process in others]
        svc_of(second).close()
    assert codes == [0, 0], [process.stdout.read() if process.stdout else "" for process in others]


def test_admin_reads_the_timeout_in_the_log(online: Flask, clock: Clock) -> None:
    client, svc = online.test_client(), svc_of(online)
    game = create(client, players=3, clock={"bank_seconds": 0.5}, timeout=FORFEIT)
    clock.advance(0.5)
    assert svc.deadlines.enforce_due() == 1
    events = client.get(f"/v1/games/{game['game_id']}/events", headers=ADMIN).get_json()["events"]
    timeout = next(e for e in events if e["type"] == "timed_out")
    assert timeout["payload"]["policy"] == "forfeit" and timeout["command_id"].startswith("timeout:")
    spectator = client.get(f"/v1/games/{game['game_id']}/view").get_json()["lifecycle"]
    assert spectator["forfeited"] == [timeout["payload"]["seat"]]

"""AI opponents at scale, with real Celery workers, a real Redis and PostgreSQL.

* Redis unavailable while a hard bot decides: the decision is retried and the move played is the bot's own.
* A worker SIGKILLed in the middle of a multi-action turn: the turn completes once, no action duplicated.
* Humans first: a turn of a game with a human is served before bot-only turns queued earlier.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
import redis
from private_redis import PrivateRedis

import torres_rules as tr
from torres_ai.bots import LocalPlanMemory
from torres_ai.celery_app import TASK_PLAY, make_app
from torres_ai.config import Settings
from torres_ai.turns import LevelBots, decide_safely
from torres_game.access import Credentials
from torres_game.ai_turns import OutboxOnlyDriver, Outcome, ai_command_id, play_turn
from torres_game.store import PostgresEventStore

from .conftest import REDIS_URL, SERVICE, make_service, wait_until, worker_env

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.timeout(240)]

# A deterministic hard bot: an iteration budget and a time limit it never reaches (see bots.base.Budget).
# A fixed iteration count (not a time budget) makes the hard bot deterministic; enough of them that its first
# decision lasts a few seconds even on the compiled engine, so an outage can be started while it runs.
DETERMINISTIC_HARD = {"TORRES_AI_HARD_ITERATIONS": "10000", "TORRES_AI_HARD_SECONDS": "120"}
RANDOM_FALLBACK = "bot failed; playing a random legal action"


def _ai_actions(store: PostgresEventStore, gid: str, after: int) -> list[tuple[int, str, dict[str, Any]]]:
    """(version the action was decided at, command id, action) of every AI action appended after ``after``."""
    return [(e.version - 1, e.command_id, e.payload["action"]) for e in store.read(gid, after=after)
            if e.type == "action_applied" and e.command_id.startswith("ai:")]


def test_redis_outage_while_a_hard_bot_decides_is_retried_and_the_bot_plays_its_own_move(
    pg_store, pg_url, redis_namespace, start_worker, private_redis: PrivateRedis
) -> None:
    """The broker and the plan memory are a private redis-server; it is killed as soon as the worker has taken
    the hard seat's first turn, and started again (empty) a moment later. The turn the worker appends must be
    exactly the one the same bot computes here from the same views and seeds, with no random fallback."""
    env = worker_env(pg_url, redis_namespace, CELERY_BROKER_URL=private_redis.url, **DETERMINISTIC_HARD)
    worker = start_worker(beat=False, **DETERMINISTIC_HARD, CELERY_BROKER_URL=private_redis.url)
    settings = Settings.from_env(env)
    app = make_app(settings)
    service = make_service(pg_store, pg_url, OutboxOnlyDriver())
    seats = [{"kind": "human", "player_id": "me"}, {"kind": "ai", "level": "hard"}]
    game = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={}, seats=seats)
    gid, me = game["game_id"], Credentials(token=game["seats"][0]["token"])
    assert settings.queue_for(seats) == settings.queue  # a human waits: the high-priority queue

    def play_until_the_hard_seat_starts_a_turn() -> tuple[int, tr.State]:
        published: set[int] = set()
        for _ in range(200):
            version, state = service.games.state_at(gid)
            if state.to_move == 0:
                action = tr.legal_actions(state)[0]
                service.commands.submit_action(gid, me, seat=0, action=action, expected_version=version,
                                      command_id=f"me-{version}")
            elif state.stage == "turn":
                return version, state
            elif version not in published:  # the hard seat's set-up decisions: let the worker play them
                published.add(version)
                app.send_task(TASK_PLAY, args=(gid, 1, version), queue=settings.queue, task_id=f"setup-{version}")
            else:
                time.sleep(0.05)
        raise AssertionError("the hard seat never reached a turn")

    version, state = play_until_the_hard_seat_starts_a_turn()
    app.send_task(TASK_PLAY, args=(gid, 1, version), queue=settings.queue, task_id="the-turn")
    wait_until(lambda: "the-turn" in worker.log_path.read_text(errors="replace"), 30, "the worker to take the turn",
               worker.log)
    private_redis.stop()  # mid-decision: the search is 10 000 iterations, the replayed plan reads Redis too
    wait_until(lambda: bool(worker.records("AI decision hit an infrastructure error; retrying")), 30,
               "the decision to meet the outage", worker.log)
    time.sleep(1.0)
    private_redis.start()
    assert worker.turn_outcome("the-turn", timeout=90) == "played"

    played = _ai_actions(pg_store, gid, after=version)
    assert played and played[0][0] == version
    # The bot's own turn, computed here: same bot, same views, same seeds, a memory of our own.
    bots = LevelBots(Settings.from_env(env), LocalPlanMemory())
    expected: list[dict[str, Any]] = []
    at = version
    while state.to_move == 1 and not tr.is_over(state) and len(expected) < len(played):
        action = decide_safely(bots, "hard", state, 1, random.Random(f"{gid}:{at}"))
        expected.append(action)
        state = tr.apply(state, action)
        at += 1
    assert [a for _, _, a in played] == expected
    assert [c for _, c, _ in played] == [f"ai:{gid}:{v}" for v, _, _ in played]
    assert not worker.records(RANDOM_FALLBACK)
    _, now = service.games.state_at(gid)
    assert now.to_move == 0  # the whole turn was played, the human is to move


def test_a_redelivered_task_resumes_a_turn_under_way(pg_store, pg_url) -> None:
    """What a worker killed mid-turn leaves behind: some actions of the turn appended, the task's message
    unacknowledged. Its redelivery (asking for the turn's first version) continues the turn from where it
    stands, with the plan the first worker made, to the end of the turn."""
    service = make_service(pg_store, pg_url, OutboxOnlyDriver())
    seats = [{"kind": "ai", "level": "medium"}, {"kind": "human", "player_id": "me"}]
    game = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={}, seats=seats)
    gid, me = game["game_id"], Credentials(token=game["seats"][1]["token"])
    bots = LevelBots(Settings(), LocalPlanMemory())  # the plan memory the killed worker shared (Redis in production)
    for _ in range(300):
        version, state = service.games.state_at(gid)
        if state.to_move == 1:
            service.commands.submit_action(gid, me, seat=1, action=tr.legal_actions(state)[-1],
                                           expected_version=version, command_id=f"me-{version}")
        elif state.stage != "turn":
            assert play_turn(service, gid, 0, version, bots.deciding()).outcome is Outcome.PLAYED
        else:
            break
    turn_start, state = service.games.state_at(gid)
    first = decide_safely(bots, "medium", state, 0, random.Random(f"{gid}:{turn_start}"))
    assert first["type"] != "end_turn"
    service.commands.submit_action(gid, SERVICE, seat=0, action=first,  # then the worker died
                                   expected_version=turn_start, command_id=ai_command_id(gid, turn_start))
    result = play_turn(service, gid, 0, turn_start, bots.deciding())  # the redelivered message
    assert (result.outcome, result.version) == (Outcome.PLAYED, turn_start + 1) and result.actions >= 1
    after, state = service.games.state_at(gid)
    assert state.to_move == 1 and after == turn_start + 1 + result.actions
    assert [e.command_id for e in pg_store.read(gid, after=turn_start)] == [
        ai_command_id(gid, v) for v in range(turn_start, after)]
    assert not [t for t in pg_store.pending_ai_turns(limit=1000) if t.game_id == gid]


def test_worker_killed_mid_turn_the_turn_completes_once(
    pg_store, pg_url, redis_namespace, start_worker, purge_queue
) -> None:
    """Two greedy seats; the first worker paces each action (TORRES_AI_DELAY) so that a turn lasts seconds. We
    SIGKILL it (parent and pool) when a seat has played part of a turn, then a second worker (with the
    sweeper) resumes that very turn from where it stands and the game ends with every version appended once."""
    from torres_ai.driver import CeleryDriver

    first = start_worker(beat=False, TORRES_AI_DELAY="0.4")
    driver = CeleryDriver(Settings.from_env(worker_env(pg_url, redis_namespace)))
    service = make_service(pg_store, pg_url, driver)
    seats = [{"kind": "ai", "level": "medium"}, {"kind": "ai", "level": "medium"}]
    try:
        gid = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={},
                                           seats=seats)["game_id"]

        def mid_turn() -> bool:
            events = pg_store.read(gid)
            last = events[-1]
            if last.type != "action_applied" or last.payload["action"]["type"] == "end_turn":
                return False
            _, state = service.games.state_at(gid)
            return state.stage == "turn" and state.to_move == last.payload["seat"] and len(events) > 12

        wait_until(mid_turn, 120, "a seat to be halfway through a turn", first.log)
        first.kill()
        killed_version, state = service.games.state_at(gid)
        seat = state.to_move
        time.sleep(1.0)
        assert service.games.state_at(gid)[0] == killed_version  # the dead worker appends nothing more
        second = start_worker(beat=True)  # the sweeper re-sends the due row after 4 s
        wait_until(lambda: pg_store.get_game(gid).status == "over", 180, "the game to end",  # type: ignore[union-attr]
                   second.log)
    finally:
        driver.close()
    assert service.queries.verify(gid)["ok"]
    actions = _ai_actions(pg_store, gid, after=0)
    commands = [c for _, c, _ in actions]
    assert len(commands) == len(set(commands)), "an AI command was appended twice"
    assert commands == [f"ai:{gid}:{v}" for v, _, _ in actions]  # each decided at the version it was appended at
    resumed = [r for r in second.records("ai turn") if r["from_version"] == killed_version]
    assert resumed and resumed[0]["seat"] == seat and resumed[0]["outcome"] == "played"
    # The interrupted turn: the actions before and after the kill form one turn with exactly one end_turn.
    events = pg_store.read(gid)
    start = max(e.version for e in events if e.version <= killed_version and (
        e.type != "action_applied" or e.payload["seat"] != seat))
    turn = [e.payload["action"]["type"] for e in events if e.version > start and e.type == "action_applied"]
    turn = turn[:next(i for i, t in enumerate(turn) if t == "end_turn") + 1]
    assert turn.count("end_turn") == 1 and len(turn) > killed_version - start


def test_humans_first_a_human_game_turn_is_served_before_queued_bulk_turns(
    pg_store, pg_url, redis_namespace, start_worker, purge_queue
) -> None:
    """Bot-only turns queued first, one human game's turn queued last: one worker process plays the human's
    turn first (the worker consumes the high-priority queue first, kombu ``queue_order_strategy=priority``)."""
    settings = Settings.from_env(worker_env(pg_url, redis_namespace))
    app = make_app(settings)
    service = make_service(pg_store, pg_url, OutboxOnlyDriver())
    bots_only = [{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}]
    with_human = [{"kind": "ai", "level": "easy"}, {"kind": "human", "player_id": "p"}]
    bulk = [service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={},
                                         seats=bots_only)["game_id"]
            for _ in range(3)]
    human = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={},
                                         seats=with_human)["game_id"]
    for gid in bulk:
        app.send_task(TASK_PLAY, args=(gid, 0, 1), queue=settings.queue_for(bots_only), task_id=f"bulk-{gid}")
    app.send_task(TASK_PLAY, args=(human, 0, 1), queue=settings.queue_for(with_human), task_id="human")
    client = redis.Redis.from_url(REDIS_URL)
    assert (client.llen(settings.queue), client.llen(settings.bulk_queue)) == (1, 3)
    worker = start_worker(beat=False)
    worker.turn_outcome("human")
    wait_until(lambda: len(worker.records("ai turn")) >= 4, 60, "every queued turn to be played", worker.log)
    order = [r["task_id"] for r in worker.records("ai turn")]
    assert order[0] == "human", order
    assert {r["queue"] for r in worker.records("ai turn")} == {settings.queue, settings.bulk_queue}

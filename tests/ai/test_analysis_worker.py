"""Post-game analyses on a real Celery worker (Redis broker, PostgreSQL): a request goes to the bulk queue, the worker
computes it in slices, each slice queued again behind whatever humans' AI turns arrived meanwhile. (That slices give
the analysis computed in one go is in ``tests/game/test_analysis_api.py``.)"""

from __future__ import annotations

import random

import pytest
import redis

import torres_rules as tr
from torres_ai.analysis import ENGINE_VERSION
from torres_ai.celery_app import make_app
from torres_ai.config import Settings
from torres_ai.driver import CeleryDriver
from torres_game.access import Credentials

from .conftest import REDIS_URL, SERVICE, make_service, wait_until, worker_env

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.timeout(300)]

HUMANS = [{"kind": "human", "player_id": "a"}, {"kind": "human", "player_id": "b"}]
WITH_HUMAN = [{"kind": "ai", "level": "easy"}, {"kind": "human", "player_id": "p"}]


def test_an_analysis_runs_in_slices_on_the_bulk_queue_behind_the_humans_turns(
        pg_store, pg_url, redis_namespace, start_worker, purge_queue) -> None:
    env = worker_env(pg_url, redis_namespace)
    settings = Settings.from_env(env)
    app = make_app(settings)
    driver = CeleryDriver(settings, synchronous=True, celery=app)
    service = make_service(pg_store, pg_url, driver)
    driver.attach(service)
    try:
        game = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={}, seats=HUMANS)
        gid, rng = game["game_id"], random.Random(7)
        while not tr.is_over(state := service.games.state_at(gid)[1]):
            seat = state.to_move
            version = service.games.state_at(gid)[0]
            service.commands.submit_action(gid, Credentials(token=game["seats"][seat]["token"]), seat=seat,
                                           action=rng.choice(tr.legal_actions(state)), expected_version=version,
                                           command_id=f"c{version}")
        # Quick, in slices of one unit each: two units a turn, over a hundred slices, each folding the game's log
        # again, so the analysis is surely under way when the second human turn comes (deep has over a thousand).
        body, new = service.analyses.request(gid, Credentials(), depth="quick")
        assert new and body["status"] == "pending"

        def human_game() -> str:
            """A game whose AI seat moves first: its creation publishes that turn to the high-priority queue."""
            created = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={},
                                                   seats=WITH_HUMAN)["game_id"]
            return f"ai:{created}:1"  # the turn's task id

        first_turn = human_game()
        client = redis.Redis.from_url(REDIS_URL)
        assert (client.llen(settings.queue), client.llen(settings.bulk_queue)) == (1, 1)

        worker = start_worker(beat=False, TORRES_AI_ANALYSIS_SLICE="0")  # a slice is one unit of work
        wait_until(lambda: len(worker.records("analysis slice")) >= 3, 90, "three slices", worker.log)
        second_turn = human_game()
        before = len(worker.records("analysis slice"))  # slices done when it was queued (or soon after)
        wait_until(lambda: service.store.get_analysis(gid, ENGINE_VERSION, "quick").status == "ready", 200,  # type: ignore[union-attr]
                   "the analysis to be ready", worker.log)

        log = [(r["msg"], r.get("task_id"), r.get("outcome")) for r in worker.records()
               if r.get("msg") in ("ai turn", "analysis slice")]
        assert log[0][:2] == ("ai turn", first_turn)  # queued after the analysis, served first
        slices = [entry for entry in log if entry[0] == "analysis slice"]
        assert len(slices) >= 20 and slices[-1][2] == "done"
        assert all(outcome == "continues" for _, _, outcome in slices[:-1])
        # The human turn sent while the analysis was under way waited at most for the slice then running.
        served = log.index(next(e for e in log if e[1] == second_turn))
        assert before < len(slices) and sum(1 for e in log[:served] if e[0] == "analysis slice") <= before + 1
        assert {r["queue"] for r in worker.records("ai turn")} == {settings.queue}

        row = service.store.get_analysis(gid, ENGINE_VERSION, "quick")
        assert row is not None and row.result is not None and row.cpu_seconds > 0
        assert len(slices) > len(row.result["turns"]) >= 20 and row.result["depth"] == "quick"  # searches, turns
    finally:
        driver.close()  # not the service: it would close the module's shared store

"""Post-game analyses on a real Celery worker (Redis broker, PostgreSQL): a request goes to the bulk queue, the worker
computes it in slices, each slice queued again behind whatever humans' AI turns arrived meanwhile, and the stored
analysis is the one computed in one go."""

from __future__ import annotations

import random

import pytest
import redis

import torres_rules as tr
from torres_ai.analysis import analyse_events
from torres_ai.celery_app import make_app
from torres_ai.config import Settings
from torres_ai.driver import CeleryDriver
from torres_game.access import Credentials

from .conftest import REDIS_URL, SERVICE, make_service, wait_until, worker_env

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.timeout(240)]

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

        worker = start_worker(beat=False, TORRES_AI_ANALYSIS_SLICE="0")  # a slice is one turn
        wait_until(lambda: len(worker.records("analysis slice")) >= 3, 90, "three slices", worker.log)
        second_turn = human_game()
        wait_until(lambda: service.store.get_analysis(gid, "1", "quick").status == "ready", 180,  # type: ignore[union-attr]
                   "the analysis to be ready", worker.log)

        log = [(r["msg"], r.get("task_id"), r.get("outcome")) for r in worker.records()
               if r.get("msg") in ("ai turn", "analysis slice")]
        assert log[0][:2] == ("ai turn", first_turn)  # queued after the analysis, served first
        slices = [entry for entry in log if entry[0] == "analysis slice"]
        assert len(slices) >= 20 and slices[-1][2] == "done"
        assert all(outcome == "continues" for _, _, outcome in slices[:-1])
        # The human turn sent while the analysis was under way was served before its last slice.
        assert log.index(next(e for e in log if e[1] == second_turn)) < log.index(slices[-1])
        assert {r["queue"] for r in worker.records("ai turn")} == {settings.queue}

        row = service.store.get_analysis(gid, "1", "quick")
        secret = service.store.get_secret(gid)
        assert row is not None and secret is not None and row.cpu_seconds > 0
        assert row.result == analyse_events(service.store.read(gid), secret.seed, gid, "quick")
    finally:
        service.close()

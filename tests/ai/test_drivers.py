"""With no broker configured AI seats play in-process with the real bots."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import torres_rules as tr
from torres_ai.config import Settings
from torres_ai.driver import CeleryDriver, from_env, thread_driver
from torres_game.access import Credentials
from torres_game.ai_turns import BackgroundDriver
from torres_game.service import GameService
from torres_game.store import PostgresEventStore, SqliteEventStore

from .conftest import MIGRATIONS, SERVICE, game_config, wait_until


def test_from_env_picks_celery_only_when_a_broker_is_configured() -> None:
    assert type(from_env({})) is BackgroundDriver  # in-process, with the real bots
    celery = from_env({"REDIS_URL": "redis://127.0.0.1:6379/13", "TORRES_AI_QUEUE": "q"})
    assert isinstance(celery, CeleryDriver) and celery.settings.queue == "q"
    assert isinstance(from_env({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/13"}), CeleryDriver)


def test_levels_and_budgets_come_from_the_environment() -> None:
    settings = Settings.from_env({"TORRES_AI_HARD": "greedy", "TORRES_AI_HARD_SECONDS": "0.25",
                                  "TORRES_AI_MEDIUM_ITERATIONS": "7"})
    assert settings.level("hard").bot == "greedy" and settings.level("hard").budget.seconds == 0.25
    assert settings.level("medium").budget.iterations == 7
    assert settings.level("unknown").bot == "random"  # an unknown level plays rather than stalls
    with pytest.raises(ValueError, match="TORRES_AI_EASY"):
        Settings.from_env({"TORRES_AI_EASY": "alphazero"})


@pytest.mark.timeout(120)
def test_thread_driver_plays_ai_seats_in_process_against_a_human(tmp_path: Path) -> None:
    store = SqliteEventStore(tmp_path / "embedded.sqlite3", migrations_dir=MIGRATIONS)
    store.migrate()
    driver = thread_driver(Settings.from_env({"TORRES_AI_HARD_SECONDS": "0.05"}))
    service = GameService(store, game_config(f"sqlite:///{tmp_path / 'embedded.sqlite3'}"), driver)
    service.start()
    try:
        seats = [{"kind": "human", "player_id": "me"}, {"kind": "ai", "level": "medium"},
                 {"kind": "ai", "level": "hard"}]
        game = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={}, seats=seats)
        gid, me = game["game_id"], Credentials(token=game["seats"][0]["token"])
        moves = 0
        while True:
            wait_until(driver.idle, 60, "the AI seats to move")
            version, state = service.games.state_at(gid)
            if tr.is_over(state):
                break
            assert state.to_move == 0, "an AI seat is due but the driver is idle"
            action = tr.legal_actions(state)[-1]  # the human: ends turns quickly, takes the last choice
            started = time.perf_counter()
            service.commands.submit_action(gid, me, seat=0, action=action, expected_version=version,
                                           command_id=f"me-{moves}")
            assert time.perf_counter() - started < 1.0  # the request never waits for the bots
            moves += 1
        assert service.queries.verify(gid)["ok"]
        assert moves > 10
    finally:
        service.close()


def test_celery_reliability_settings() -> None:
    """acks_late, reject on worker loss, prefetch 1, soft/hard limits, retries with exponential backoff, beat."""
    from torres_ai.celery_app import TASK_SWEEP, make_app
    from torres_ai.tasks import backoff, play_turn

    app = make_app(Settings.from_env({"TORRES_AI_SOFT_TIME_LIMIT": "5", "TORRES_AI_TIME_LIMIT": "8"}))
    conf = app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost and conf.worker_prefetch_multiplier == 1
    assert (conf.task_soft_time_limit, conf.task_time_limit) == (5.0, 8.0)
    assert conf.beat_schedule["sweep-ai-outbox"]["task"] == TASK_SWEEP
    assert play_turn.acks_late and play_turn.reject_on_worker_lost and play_turn.max_retries >= 5
    # No stored results; humans first (the high-priority queue is consumed first).
    assert conf.task_ignore_result and play_turn.ignore_result and not conf.result_backend
    assert [q.name for q in conf.task_queues] == ["torres-ai", "torres-ai-bulk"]
    assert conf.broker_transport_options["queue_order_strategy"] == "priority"
    delays = [backoff(n) for n in range(8)]
    assert all(0.5 * min(60, 2**n) <= d <= min(60, 2**n) for n, d in enumerate(delays))


@pytest.mark.postgres
def test_a_worker_opens_its_service_without_a_listener(pg_url: str) -> None:
    """Nobody waits on a game in a worker, so its service holds no LISTEN connection (a web process's
    service on the same database does)."""
    from torres_game.ai_turns import OutboxOnlyDriver, open_service

    config = game_config(pg_url)
    worker = open_service(OutboxOnlyDriver(), config)
    web = GameService(PostgresEventStore(pg_url, min_size=1, max_size=1, migrations_dir=MIGRATIONS), config,
                      OutboxOnlyDriver())
    try:
        assert worker.store.backend == "postgres" and worker.hub.listener is None
        assert web.hub.listener is not None and web.hub is not worker.hub
    finally:
        worker.close()
        web.close()

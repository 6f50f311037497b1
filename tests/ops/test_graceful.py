"""SIGTERM finishes in-flight work: a real gunicorn game service and a real Celery AI worker.

Kubernetes sends SIGTERM and, after terminationGracePeriodSeconds, SIGKILL; compose does the same with
stop_grace_period. These tests send SIGTERM while a request / an AI decision is in flight and check that it
completes, that nothing new is taken, and that the process exits 0 by itself.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from local_cluster import BIN, Cluster, Proc

from .test_metrics import create_game

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.timeout(180)]


def test_gunicorn_game_service_drains_an_in_flight_request_on_sigterm(
    cluster_env: Cluster, start_game: Callable[..., Proc]
) -> None:
    proc = start_game(workers=1)
    base = f"http://127.0.0.1:{proc.port}"
    game = create_game(httpx.Client(base_url=base), cluster_env.api_key)
    answer: list[httpx.Response] = []
    poll = threading.Thread(target=lambda: answer.append(httpx.get(
        f"{base}/v1/games/{game['game_id']}/wait", params={"version": 1, "timeout": 4}, timeout=30)))
    poll.start()
    time.sleep(1.0)  # the long-poll is now held by the worker
    sent = time.monotonic()
    proc.signal(signal.SIGTERM)
    poll.join(timeout=30)
    assert answer and answer[0].status_code == 200, answer
    assert answer[0].json() == {"game_id": game["game_id"], "version": 1, "changed": False}
    assert proc.popen is not None
    assert proc.popen.wait(timeout=40) == 0
    assert time.monotonic() - sent >= 2.0  # it waited for the request instead of cutting it off


def test_celery_worker_finishes_the_running_decision_on_sigterm(cluster_env: Cluster) -> None:
    """Both seats are AI and every decision takes 3 s; SIGTERM mid-decision: the decision is appended
    (exactly once), the next turn is left queued for another worker, and the worker exits 0."""
    from torres_ai.config import Settings
    from torres_ai.driver import CeleryDriver
    from torres_game.access import Credentials
    from torres_game.config import Config
    from torres_game.service import GameService
    from torres_game.store import open_store

    # TORRES_AI_DELAY paces every AI action in the worker: a decision that lasts 3 s whatever the
    # engine's speed (a set-up search by the compiled engine takes milliseconds).
    env = cluster_env.env(TORRES_AI_DELAY="3", TORRES_AI_SWEEP_AFTER="3600")
    worker = Proc("ai-graceful", [str(BIN / "celery"), "-A", "torres_ai.celery_app", "worker", "--loglevel=INFO",
                                  "--pool=prefork", "--concurrency=1",
                                  "-Q", f"{cluster_env.queue},{cluster_env.queue}-bulk",  # a bot-only game: bulk
                                  "-n", f"graceful-{cluster_env.namespace}@%h", "--without-gossip",
                                  "--without-mingle", "--without-heartbeat"], env, cluster_env.run_dir)
    worker.start()
    store = open_store(cluster_env.database_url, migrations_dir=Config().migrations_dir)
    driver = CeleryDriver(Settings.from_env(env))
    service = GameService(store, Config(database_url=cluster_env.database_url, api_key=cluster_env.api_key,
                                        admin_key=cluster_env.admin_key), driver)
    service.start()
    try:
        deadline = time.monotonic() + 60
        while "ready." not in worker.tail(20000):
            assert time.monotonic() < deadline and worker.alive(), worker.tail()
            time.sleep(0.2)
        seats: list[dict[str, Any]] = [{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}]
        game = service.creation.create_game(Credentials(api_key=cluster_env.api_key), edition="rio_grande",
                                            master=False, options={}, seats=seats)
        gid = game["game_id"]
        while f"ai:{gid}:1" not in worker.tail(20000) or "received" not in worker.tail(20000):
            assert time.monotonic() < deadline, worker.tail()
            time.sleep(0.1)
        time.sleep(1.0)  # one second into a three-second decision
        assert store.current_version(gid) == 1
        worker.signal(signal.SIGTERM)
        assert worker.popen is not None and worker.popen.wait(timeout=45) == 0, worker.tail()
        events = store.read(gid)
        assert [e.command_id for e in events[1:]] == [f"ai:{gid}:1"]  # finished, once; nothing more taken
        assert [t.version for t in store.pending_ai_turns(limit=100) if t.game_id == gid] == [2]  # handed on
        assert "Warm shutdown" in worker.tail(20000) or "warm shutdown" in worker.tail(20000).lower()
    finally:
        worker.kill()
        driver.close()
        service.close()


def test_image_healthcheck_probe(cluster_env: Cluster, start_game: Callable[..., Proc]) -> None:
    """The Dockerfile's HEALTHCHECK command: 0 against a live service, 1 against a closed port."""
    import subprocess

    from local_cluster import free_port

    proc = start_game(workers=1)
    probe = [str(BIN / "python"), "-m", "torres_service.healthcheck"]
    ok = subprocess.run(probe, env={**cluster_env.env(), "PORT": str(proc.port)}, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    url = f"http://127.0.0.1:{free_port()}/metrics"
    down = subprocess.run(probe, env={**cluster_env.env(), "HEALTHCHECK_URL": url}, capture_output=True, text=True)
    assert down.returncode == 1 and "unhealthy" in down.stderr

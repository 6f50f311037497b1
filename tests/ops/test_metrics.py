"""/metrics under real gunicorn with two workers: every worker's counts are summed, whichever answers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from local_cluster import Cluster, Proc
from prometheus_client.parser import text_string_to_metric_families

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(180)]


def scrape(client: httpx.Client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples}


def value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def create_game(client: httpx.Client, key: str) -> dict[str, Any]:
    seats = [{"kind": "human", "player_id": "ann"}, {"kind": "human", "player_id": "bob"}]
    answer = client.post("/v1/games", json={"seats": seats}, headers={"X-API-Key": key})
    assert answer.status_code == 201, answer.text
    return answer.json()


def play(client: httpx.Client, game: dict[str, Any], n: int) -> list[tuple[dict[str, Any], str]]:
    """n legal actions by whichever seat is to move; returns each (body, token) submitted."""
    tokens = [s["token"] for s in game["seats"]]
    done = []
    while len(done) < n:
        for seat, token in enumerate(tokens):
            legal = client.get(f"/v1/games/{game['game_id']}/legal-actions",
                               headers={"Authorization": f"Bearer {token}"}).json()
            if legal["actions"]:
                body = {"seat": seat, "action": legal["actions"][0], "expected_version": legal["version"],
                        "command_id": f"c{len(done)}"}
                answer = client.post(f"/v1/games/{game['game_id']}/actions", json=body,
                                     headers={"Authorization": f"Bearer {token}"})
                assert answer.status_code == 201, answer.text
                done.append((body, token))
                break
    return done


def test_game_metrics_are_summed_over_gunicorn_workers(cluster_env: Cluster,
                                                       start_game: Callable[..., Proc]) -> None:
    proc = start_game(workers=2)
    client = httpx.Client(base_url=f"http://127.0.0.1:{proc.port}", timeout=10)
    game = create_game(client, cluster_env.api_key)
    gid = game["game_id"]
    submitted = play(client, game, 6)
    body, token = submitted[-1]
    auth = {"Authorization": f"Bearer {token}"}
    assert client.post(f"/v1/games/{gid}/actions", json=body, headers=auth).status_code == 201  # a replay
    stale = {**body, "command_id": "stale-1"}
    assert client.post(f"/v1/games/{gid}/actions", json=stale, headers=auth).status_code == 409

    past = client.get(f"/v1/games/{gid}/state", params={"version": 4}, headers=auth)  # folds events 1..4
    assert past.status_code == 200, past.text

    route = "/v1/games/<game_id>/actions"
    for _ in range(8):  # the kernel spreads connections over both workers; every answer must be the total
        with httpx.Client(base_url=client.base_url, timeout=10) as fresh:
            samples = scrape(fresh)
        assert value(samples, "torres_game_appends_total", actor="human") == 6
        assert value(samples, "torres_game_events_appended_total") == 6
        assert value(samples, "torres_game_idempotent_replays_total") == 1
        assert value(samples, "torres_game_version_conflicts_total") == 1
        assert value(samples, "torres_http_requests_total", service="game", method="POST", route=route,
                     status="201") == 7
        assert value(samples, "torres_http_requests_total", service="game", method="POST", route=route,
                     status="409") == 1
        assert value(samples, "torres_http_request_duration_seconds_count", service="game", method="POST",
                     route=route, status="201") == 7
        assert value(samples, "torres_game_fold_seconds_count") >= 1
        assert value(samples, "torres_game_fold_events_sum") >= 4
    assert not [labels for _, labels in samples if any(gid in v for _, v in labels)]  # no series per game


def test_open_push_connections_gauge(cluster_env: Cluster, start_game: Callable[..., Proc]) -> None:
    proc = start_game(workers=2)
    client = httpx.Client(base_url=f"http://127.0.0.1:{proc.port}", timeout=10)
    game = create_game(client, cluster_env.api_key)
    results: list[int] = []
    waiter = threading.Thread(target=lambda: results.append(httpx.get(
        f"{client.base_url}/v1/games/{game['game_id']}/wait", params={"version": 1, "timeout": 3}, timeout=10
    ).status_code))
    waiter.start()
    route = "/v1/games/<game_id>/wait"
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline:
        if value(scrape(client), "torres_open_push_connections", service="game", route=route) == 1:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the open long-poll was never counted")
    waiter.join()
    assert results == [200]
    assert value(scrape(client), "torres_open_push_connections", service="game", route=route) == 0

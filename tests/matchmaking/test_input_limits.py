"""The input guard of the matchmaker (torres_service.limits), on the real Redis server.

The same guard as the game service's: each hostile body on ``POST /v1/tickets`` is answered with
its precise 4xx as problem details and no Redis key changes; generated JSON shapes never get a 5xx; every
unsupported method is a 405 with ``Allow``; a request head past the limits is 414 or 431; an ``Authorization``
header that is not a bearer token is 401. The requests are a player's, with their portal's token.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from edge_input import PROBLEM_JSON, body_content_types, check_405s, hostile_bodies, json_shapes
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, event, given, settings
from serving import free_port

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_service.limits import InputLimits

from .conftest import REDIS_URL, as_player

pytestmark = pytest.mark.redis

MAX_BODY = 16 * 1024  # the matchmaker's default (its bodies are small tickets)
LIMITS = InputLimits(max_body_bytes=MAX_BODY)
GOOD = {"player_counts": [2], "edition": "rio_grande"}  # the player is the token's, never the body's


@pytest.fixture
def app(config: Config) -> Iterator[Flask]:
    services = Services.build(config)
    yield create_app(config, services=services)
    services.stop()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """Every request carries the player token of "guard-player" unless it sends its own Authorization."""
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = as_player("guard-player")["Authorization"]
    return client


@pytest.fixture
def raw_redis(redis_client: redis.Redis) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL)
    yield client
    client.close()


def _state(raw: redis.Redis) -> dict[bytes, bytes | None]:
    """Every key and its serialized value: any ticket, queue or rating written shows."""
    return {key: raw.dump(key) for key in sorted(raw.keys("*"))}


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (status, code, response.get_data(as_text=True)[:300])
    assert response.mimetype == PROBLEM_JSON
    body = response.get_json()
    assert body["status"] == status and body["code"] == code and body["type"] == f"urn:torres:problem:{code}"
    return body


def test_each_hostile_body_gets_its_precise_4xx_and_changes_nothing(client: FlaskClient,
                                                                    raw_redis: redis.Redis) -> None:
    for key in GOOD:
        for hostile in hostile_bodies(GOOD, key):
            before = _state(raw_redis)
            response = client.post("/v1/tickets", data=hostile.data, content_type=hostile.content_type)
            assert_problem(response, hostile.status, hostile.code)
            assert _state(raw_redis) == before, (key, hostile.name)
    assert client.post("/v1/tickets", json=GOOD).status_code == 201  # the refusals were the guard's alone


def test_a_body_past_the_size_limit_is_413(client: FlaskClient, raw_redis: redis.Redis) -> None:
    before = _state(raw_redis)
    big = b'{"player_id": "' + b"x" * MAX_BODY + b'", "player_counts": [2]}'
    body = assert_problem(client.post("/v1/tickets", data=big, content_type="application/json"), 413,
                          "payload_too_large")
    assert body["limit"] == MAX_BODY and _state(raw_redis) == before


@settings(max_examples=120, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=json_shapes(["player_id", "player_counts", "edition", "master", "max_wait_seconds", "ttl_seconds"]),
       content_type=body_content_types())
def test_generated_json_shapes_never_get_a_5xx(client: FlaskClient, raw_redis: redis.Redis, text: str,
                                               content_type: str) -> None:
    before = _state(raw_redis)
    response = client.post("/v1/tickets", data=text.encode("utf-8", "surrogatepass"), content_type=content_type)
    assert response.status_code < 500, response.get_data(as_text=True)[:300]
    if response.status_code >= 400:
        assert response.mimetype == PROBLEM_JSON
        event(f"{response.status_code} {response.get_json()['code']}")
        assert _state(raw_redis) == before, text[:200]
    else:
        assert response.status_code == 201  # a well-formed ticket: start again from an empty queue
        raw_redis.flushdb()


def test_every_unsupported_method_is_405_with_allow(app: Flask, client: FlaskClient) -> None:
    def url_of(rule: Any) -> str:
        return rule.build({arg: {"ticket_id": "0" * 32}.get(arg, "x") for arg in rule.arguments},
                          append_unknown=False)[1]

    checked = check_405s(app, client, url_of, assert_problem)
    assert checked > 30, checked


def test_a_long_url_is_414_and_large_headers_431(client: FlaskClient) -> None:
    assert assert_problem(client.get("/v1/leaderboard?pad=" + "x" * LIMITS.max_url_bytes), 414,
                          "uri_too_long")["limit"] == LIMITS.max_url_bytes
    assert_problem(client.get("/v1/tickets/" + "0" * LIMITS.max_url_bytes), 414, "uri_too_long")
    assert_problem(client.get("/v1/queues", headers={"X-Padding": "x" * LIMITS.max_header_bytes}), 431,
                   "headers_too_large")
    assert_problem(client.get("/v1/queues", headers={f"X-Pad-{n}": "x" for n in range(LIMITS.max_headers + 1)}),
                   431, "headers_too_large")
    assert client.get("/v1/queues", headers={"X-Padding": "x" * 7000}).status_code == 200


@pytest.mark.parametrize("authorization", ["Basic dXNlcjpwYXNz", "Bearer", "", "Token abc", "Bearer a b"])
def test_an_authorization_header_that_is_not_a_bearer_token_is_401(client: FlaskClient, raw_redis: redis.Redis,
                                                                  authorization: str) -> None:
    before = _state(raw_redis)
    headers = {"Authorization": authorization}
    for response in (client.post("/v1/tickets", json=GOOD, headers=headers),
                     client.get("/v1/queues", headers=headers)):
        assert_problem(response, 401, "unsupported_authorization")
        assert response.headers["WWW-Authenticate"] == "Bearer"
    assert _state(raw_redis) == before
    # a bearer token gets past the guard, and is then judged as the player token it claims to be
    assert_problem(client.get("/v1/queues", headers={"Authorization": "Bearer abc.def-ghi_jkl"}), 401,
                   "invalid_player_token")


def test_the_matchmakers_body_limit_is_its_own(client: FlaskClient) -> None:
    """16 kB by default, not the game service's 64 kB: its bodies are tickets."""
    body = b'{"edition": "' + b"x" * (MAX_BODY - 100) + b'", "player_counts": [2]}'
    assert_problem(client.post("/v1/tickets", data=body, content_type="application/json"), 400, "validation_failed")


def test_under_the_production_server_the_head_limits_are_problem_json(tmp_path: Path) -> None:
    """gunicorn with infra/gunicorn.conf.py (embedded store: no Redis needed): just past the guard's limits the
    app answers, far past them gunicorn does — problem+json either way (tests/game/test_serve_limits.py has the
    details, on the game service)."""
    root = Path(__file__).resolve().parents[2]
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "REDIS_CLUSTER")}
    env.update({"GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1", "LOG_LEVEL": "WARNING",
                "GUNICORN_LOG_LEVEL": "warning", "GAME_SERVICE_URL": "http://127.0.0.1:9"})
    with (tmp_path / "gunicorn.log").open("wb") as output:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(root / "infra" / "gunicorn.conf.py"),
                                   "torres_matchmaking.wsgi:app"], env=env, cwd=root, stdout=output,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not _healthy(port):
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "gunicorn.log").read_text()
            time.sleep(0.1)
        for pad, limit in ((5000, LIMITS.max_url_bytes), (100_000, None)):
            status, body = _raw_get(port, f"/v1/leaderboard?pad={'x' * pad}")
            assert status == 414 and body["code"] == "uri_too_long" and body.get("limit") == limit
        for pad, limit in ((9000, LIMITS.max_header_bytes), (20_000, None)):
            status, body = _raw_get(port, "/v1/queues", f"X-Padding: {'x' * pad}")
            assert status == 431 and body["code"] == "headers_too_large" and body.get("limit") == limit
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


def _healthy(port: int) -> bool:
    try:
        return _raw_get(port, "/healthz")[0] == 200
    except OSError:
        return False


def _raw_get(port: int, path: str, *headers: str) -> tuple[int, Any]:
    head = "\r\n".join([f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *headers, "Connection: close", "", ""])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(head.encode("latin-1"))
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    payload = rest.partition(b"\r\n\r\n")[2]
    return int(status_line.split()[1]), json.loads(payload) if payload.startswith(b"{") else None

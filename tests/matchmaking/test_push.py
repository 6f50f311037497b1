"""Push for tickets: long-poll and server-sent events on a ticket, and signed callbacks with retries."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.serving import make_server

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_matchmaking.game_client import GameServiceClient
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.store import Redis
from torres_matchmaking.webhooks import CallbackSender

from .conftest import API_KEY, free_port

TICKET = {"player_counts": [2], "edition": "rio_grande", "master": False, "max_wait_seconds": None}
SECRET = "test-webhook-secret"


@pytest.fixture
def api(config: Config) -> FlaskClient:
    config = config.with_(webhook_secret=SECRET)
    return create_app(config, services=Services.build(config)).test_client()


def _match_soon(store: Redis, config: Config, api: FlaskClient, partner: str, delay: float) -> threading.Thread:
    def run() -> None:
        time.sleep(delay)
        assert api.post("/v1/tickets", json={**TICKET, "player_id": partner}).status_code == 201
        matcher = Matcher(store, config, GameServiceClient(config.game_service_url, API_KEY))
        try:
            assert matcher.tick().created == 1
        finally:
            matcher.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_long_poll_returns_at_the_match_or_at_the_timeout(api: FlaskClient, store: Redis, config: Config) -> None:
    ticket = api.post("/v1/tickets", json={**TICKET, "player_id": "poller"}).get_json()
    started = time.monotonic()
    same = api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?status=queued&timeout=0.3").get_json()
    assert same["status"] == "queued" and time.monotonic() - started >= 0.3
    assert api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?timeout=30").get_json()["status"] == "queued"  # at once
    thread = _match_soon(store, config, api, "partner", 0.5)
    matched = api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?status=queued&timeout=30").get_json()
    thread.join()
    assert matched["status"] == "matched" and matched["seat_token"] and matched["game_id"]
    assert api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?status=nonsense").status_code == 400
    assert api.get("/v1/tickets/" + "f" * 32 + "/wait").status_code == 404


def test_sse_opens_at_once_and_sends_each_change(api: FlaskClient, store: Redis, config: Config) -> None:
    ticket = api.post("/v1/tickets", json={**TICKET, "player_id": "streamer"}).get_json()
    response = api.get(f"/v1/tickets/{ticket['ticket_id']}/stream?timeout=30", buffered=False)
    assert response.mimetype == "text/event-stream" and response.headers["Cache-Control"] == "no-cache"
    chunks = iter(response.response)
    assert next(chunks).decode() == ": connected\nretry: 2000\n\n"
    first = next(chunks).decode()
    assert first.startswith("event: ticket\n") and json.loads(first.split("data: ")[1])["status"] == "queued"
    thread = _match_soon(store, config, api, "stream-partner", 0.3)
    rest = [c.decode() for c in chunks]
    thread.join()
    events = [c for c in rest if not c.startswith(":")]
    assert [e.split("\n")[0] for e in events] == ["event: ticket", "event: finished"]
    assert json.loads(events[0].split("data: ")[1])["status"] == "matched"
    idle = api.post("/v1/tickets", json={**TICKET, "player_id": "idle"}).get_json()["ticket_id"]
    short = api.get(f"/v1/tickets/{idle}/stream?timeout=0.2", buffered=False)
    assert b"".join(short.response).decode().endswith("event: timeout\ndata: {}\n\n")


class Receiver:
    """A portal's callback endpoint: fails the first ``failures`` deliveries with 503, records all."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.received: list[tuple[dict[str, str], bytes]] = []
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/hook"
        self._server = make_server("127.0.0.1", port, self._app, threaded=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _app(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
        self.received.append((headers, body))
        ok = len(self.received) > self.failures
        start_response("204 No Content" if ok else "503 Busy", [])
        return []

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def test_callbacks_are_signed_retried_and_delivered_once(api: FlaskClient, store: Redis, config: Config) -> None:
    receiver = Receiver(failures=2)
    config = config.with_(webhook_secret=SECRET)
    sender = CallbackSender(store, config)
    matcher = Matcher(store, config, GameServiceClient(config.game_service_url, API_KEY), callbacks=sender)
    try:
        ids = [api.post("/v1/tickets", json={**TICKET, "player_id": p, "callback_url": receiver.url}).get_json()
               ["ticket_id"] for p in ("hook-a", "hook-b")]
        deadline = time.monotonic() + 20
        while len([r for r in receiver.received if r[0].get("x-torres-delivery")]) < 4:  # 2 failed + 2 delivered
            assert time.monotonic() < deadline, receiver.received
            matcher.tick()
            time.sleep(0.1)
        for _ in range(5):
            matcher.tick()
        assert len(receiver.received) == 4  # nothing more once each was accepted
    finally:
        matcher.close()
        receiver.stop()
    delivered = {}
    for headers, body in receiver.received:
        expected = hmac.new(SECRET.encode(), headers["x-torres-timestamp"].encode() + b"." + body,
                            hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["x-torres-signature"], f"sha256={expected}")
        doc = json.loads(body)
        assert doc["type"] == "ticket.matched"
        assert headers["x-torres-delivery"] == f"{doc['ticket']['ticket_id']}.matched"
        delivered[doc["ticket"]["ticket_id"]] = doc["ticket"]
    assert set(delivered) == set(ids)
    assert {t["game_id"] for t in delivered.values()} == {api.get(f"/v1/tickets/{ids[0]}").get_json()["game_id"]}


def test_a_callback_url_needs_a_secret_and_a_url(config: Config, api: FlaskClient) -> None:
    plain = create_app(config, services=Services.build(config)).test_client()
    refused = plain.post("/v1/tickets", json={**TICKET, "player_id": "nohook", "callback_url": "http://x.test/h"})
    assert refused.status_code == 400 and "callback_url" in refused.get_json()["errors"]
    bad = api.post("/v1/tickets", json={**TICKET, "player_id": "badhook", "callback_url": "ftp://x/h"})
    assert bad.status_code == 400 and "callback_url" in bad.get_json()["errors"]

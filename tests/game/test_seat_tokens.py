"""Seat tokens that expire, are reissued and revoked, and browser stream tickets, attacked over HTTP.

Real gunicorn processes on SQLite and on PostgreSQL (``TORRES_SEAT_TOKEN_GRACE=0``: an ended game's tokens expire
at its end), plus in-process apps where a clock or a second process is needed:

* a revoked, a superseded (reissued) and an expired seat token on every operation a seat token opens: 401
  ``seat_token_revoked`` / ``seat_token_expired`` (problem+json), nothing appended, no token row written;
* revocation and reissue count at once in another process whose game cache is warm (PostgreSQL), and survive a
  restart (SQLite);
* a stream ticket opens one stream: replayed, expired or another game's: 401 ``invalid_stream_ticket``; its
  answer never holds the seat token; the stream it opens (SSE and WebSocket) carries exactly the redacted events
  ``GET /events`` gives the seat. Another tenant's key on the new endpoints: ``test_tenants.py`` (generated).
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import simple_websocket
from flask import Flask
from flask.testing import FlaskClient

from torres_game.app import create_app
from torres_game.store import EventStore
from torres_online.events import SECRET_ACTION_TYPES

from .conftest import ADMIN, SERVICE, bearer, create_game, make_config
from .servers import HttpClient, HttpResponse, gunicorn, side_store
from .sse import parse_sse
from .test_push import open_sse, play_card_first, read_events, ws_connect, ws_messages
from .test_tenants import GAME_OPERATIONS, UPGRADE

pytestmark = pytest.mark.timeout(180)

#: Every operation a seat token opens (the tenant-key-only ones, abandon, spectator tokens and the seat-token
#: endpoints themselves, never look at a bearer token).
SEAT_TOKEN_OPERATIONS = {op: send for op, send in GAME_OPERATIONS.items()
                         if not op[1].endswith(("/abandon", "/spectator-tokens", "/token"))}
HUMANS = [{"kind": "human", "player_id": "p1"}, {"kind": "human", "player_id": "p2"}]


def assert_problem(response: HttpResponse | Any, status: int, code: str, why: str = "") -> None:
    body = response.get_json()
    assert (response.status_code, body and body.get("code")) == (status, code), (why, response.status_code, body)
    assert response.mimetype == "application/problem+json", why


class Served:
    def __init__(self, client: HttpClient, port: int, store: EventStore) -> None:
        self.client, self.port, self.store = client, port, store

    def snapshot(self, game_id: str) -> tuple[list[str], Any]:
        book = self.store.seat_token_book(game_id)
        assert book is not None
        return [e.hash for e in self.store.read(game_id)], book.rows


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp(f"seat-tokens-{request.param}")
    url, store = side_store(request, folder)
    with gunicorn(url, extra_env={"TORRES_SEAT_TOKEN_GRACE": "0"}) as server:
        try:
            yield Served(server.client, server.port, store)
        finally:
            store.close()


def _attack_with(served: Served, game_id: str, token: str, code: str, what: str) -> None:
    before = served.snapshot(game_id)
    for (method, path), send in SEAT_TOKEN_OPERATIONS.items():
        assert_problem(send(served.client, game_id, bearer(token)), 401, code, f"{what}: {method} {path}")
    assert served.snapshot(game_id) == before, what


@pytest.mark.parametrize("visibility", ["unlisted", "private"])
def test_revoked_superseded_and_expired_tokens_are_401_on_every_seat_operation(served: Served,
                                                                                visibility: str) -> None:
    c = served.client
    game = create_game(c, HUMANS, visibility=visibility)  # type: ignore[arg-type]
    gid, first, other = game["game_id"], game["seats"][0]["token"], game["seats"][1]["token"]
    reissued = c.post(f"/v1/games/{gid}/seats/0/token", headers=SERVICE)
    assert reissued.status_code == 201, reissued.get_json()
    body = reissued.get_json()
    assert (body["seat"], body["generation"]) == (0, 1) and body["token"] not in (first, other)
    second = body["token"]
    assert c.get(f"/v1/games/{gid}/view", headers=bearer(second)).get_json()["seat"] == 0
    assert c.get(f"/v1/games/{gid}/view", headers=bearer(other)).status_code == 200  # other seats untouched
    _attack_with(served, gid, first, "seat_token_revoked", "a superseded token")
    revoked = c.delete(f"/v1/games/{gid}/seats/0/token", headers=ADMIN)  # the operator may, too
    assert revoked.status_code == 200 and revoked.get_json() == {"game_id": gid, "seat": 0, "generation": 2,
                                                                 "revoked": True}
    _attack_with(served, gid, second, "seat_token_revoked", "a revoked token")
    _attack_with(served, gid, first, "seat_token_revoked", "a token superseded before a revocation")
    third = c.post(f"/v1/games/{gid}/seats/0/token", headers=SERVICE).get_json()["token"]
    assert c.get(f"/v1/games/{gid}/legal-actions", headers=bearer(third)).status_code == 200
    # The game ends (TORRES_SEAT_TOKEN_GRACE=0 on this server): every token expires with it.
    assert c.post(f"/v1/games/{gid}/abandon", headers=SERVICE, json={"reason": "test"}).status_code == 201
    _attack_with(served, gid, third, "seat_token_expired", "a token of an ended game")
    _attack_with(served, gid, other, "seat_token_expired", "a creation token of an ended game")
    _attack_with(served, gid, second, "seat_token_revoked", "a revoked token of an ended game")


def test_only_the_tenant_or_the_operator_reissues_and_only_human_seats(served: Served) -> None:
    c = served.client
    game = create_game(c, [HUMANS[0], {"kind": "ai", "level": "easy"}])  # type: ignore[arg-type]
    gid, token = game["game_id"], game["seats"][0]["token"]
    before = served.snapshot(gid)
    for method in (c.post, c.delete):
        assert_problem(method(f"/v1/games/{gid}/seats/0/token", headers=bearer(token)), 401, "unauthenticated",
                       "the seat's own token is no key")
        assert_problem(method(f"/v1/games/{gid}/seats/0/token"), 401, "unauthenticated")
        assert_problem(method(f"/v1/games/{gid}/seats/1/token", headers=SERVICE), 409, "seat_has_no_token")
        assert_problem(method(f"/v1/games/{gid}/seats/3/token", headers=SERVICE), 404, "not_found")
        assert_problem(method("/v1/games/no-such-game/seats/0/token", headers=SERVICE), 404, "game_not_found")
    assert served.snapshot(gid) == before
    assert c.get(f"/v1/games/{gid}/view", headers=bearer(token)).status_code == 200


# -- stream tickets --------------------------------------------------------------------------------------------

def _ticket(client: Any, game_id: str, headers: dict[str, str]) -> str:
    response = client.post(f"/v1/games/{game_id}/stream-tickets", headers=headers)
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert set(body) == {"game_id", "stream_ticket", "expires_in", "stream_url"} and body["expires_in"] == 60
    if "Authorization" in headers:  # the ticket is no copy of the token it was obtained with
        assert headers["Authorization"].split()[1] not in response.get_data(as_text=True)
    return str(body["stream_ticket"])


def test_a_stream_ticket_opens_one_stream_of_its_game_only(served: Served) -> None:
    c = served.client
    a = create_game(c, HUMANS, visibility="private")  # type: ignore[arg-type]
    b = create_game(c, HUMANS, visibility="private")  # type: ignore[arg-type]
    seat = bearer(a["seats"][0]["token"])
    ticket = _ticket(c, a["game_id"], seat)
    first = c.get(f"/v1/games/{a['game_id']}/stream?timeout=0&stream_ticket={ticket}")
    assert first.status_code == 200 and first.mimetype == "text/event-stream"
    for path, headers in (("stream?timeout=0&", {}), ("ws?", UPGRADE)):  # replayed, on either channel
        assert_problem(c.get(f"/v1/games/{a['game_id']}/{path}stream_ticket={ticket}", headers=headers), 401,
                       "invalid_stream_ticket", path)
    other = _ticket(c, a["game_id"], seat)
    assert_problem(c.get(f"/v1/games/{b['game_id']}/stream?timeout=0&stream_ticket={other}"), 401,
                   "invalid_stream_ticket", "game A's ticket on game B")
    assert_problem(c.get(f"/v1/games/{a['game_id']}/stream?timeout=0&stream_ticket={other}"), 401,
                   "invalid_stream_ticket", "spent on game B")
    assert_problem(c.get(f"/v1/games/{a['game_id']}/stream?timeout=0&stream_ticket=made-up"), 401,
                   "invalid_stream_ticket")
    both = _ticket(c, a["game_id"], seat)
    assert_problem(c.get(f"/v1/games/{a['game_id']}/stream?timeout=0&stream_ticket={both}", headers=seat), 400,
                   "validation_failed", "a ticket and a bearer token")
    # Who may get one: the same as who may read the game; nobody anonymous on a private game.
    assert_problem(c.post(f"/v1/games/{a['game_id']}/stream-tickets"), 404, "game_not_found")
    assert_problem(c.post(f"/v1/games/{a['game_id']}/stream-tickets", headers=bearer(b["seats"][0]["token"])),
                   404, "game_not_found")
    for headers in (SERVICE, ADMIN):
        _ticket(c, a["game_id"], headers)
    c.delete(f"/v1/games/{a['game_id']}/seats/1/token", headers=SERVICE)
    assert_problem(c.post(f"/v1/games/{a['game_id']}/stream-tickets", headers=bearer(a["seats"][1]["token"])),
                   401, "seat_token_revoked")


def test_a_ticket_stream_carries_exactly_the_seats_redacted_events(served: Served) -> None:
    c = served.client
    game = create_game(c, HUMANS)  # type: ignore[arg-type]  # unlisted: the helper reads who is to move
    gid, seat0 = game["game_id"], bearer(game["seats"][0]["token"])
    stream = open_sse(served.port, f"/v1/games/{gid}/stream?version=0&timeout=60&stream_ticket="
                                   f"{_ticket(c, gid, seat0)}")
    socket = ws_connect(served.port, f"/v1/games/{gid}/ws?version=0&stream_ticket={_ticket(c, gid, seat0)}")
    watcher = c.post(f"/v1/games/{gid}/spectator-tokens", headers=SERVICE, json={}).get_json()["token"]
    spectator = _ticket(c, gid, bearer(watcher))  # a spectator token's ticket: notices only
    try:
        rng, n, others_kept = random.Random(6), 0, 0
        while others_kept < 1:  # until seat 1 has kept a card: a secret action seat 0 must not see
            body = play_card_first(c, game, rng, n)
            n += 1
            assert body["events"][-1]["type"] != "game_ended"
            others_kept += sum(e["payload"]["seat"] == 1 and e["payload"]["action"]["type"] in SECRET_ACTION_TYPES
                               for e in body["events"] if e["type"] == "action_applied")
        now = body["version"]
        sse = [e for e in read_events(stream, lambda e: e.get("id") == str(now)) if e["event"] == "version"]
        ws = ws_messages(socket, lambda m: m["version"] == now)
    finally:
        stream.close()
        with contextlib.suppress(simple_websocket.ConnectionClosed):
            socket.close()
    log = c.get(f"/v1/games/{gid}/events?limit=1000", headers=seat0).get_json()
    assert log["redacted"] is True
    assert [e for m in sse for e in m["data"]["events"]] == log["events"]
    assert [e for m in ws for e in m["events"]] == log["events"]
    assert [m["data"]["version"] for m in sse] == list(range(1, now + 1))
    hidden = [e for e in log["events"] if e["type"] == "action_applied" and e["payload"]["seat"] == 1
              and e["payload"]["action"]["type"] in SECRET_ACTION_TYPES]
    assert hidden and all(set(e["payload"]["action"]) == {"type"} for e in hidden)
    text = c.get(f"/v1/games/{gid}/stream?version=0&timeout=0&stream_ticket={spectator}").get_data(as_text=True)
    assert [set(e["data"]) <= {"version", "status", "to_move"} for e in parse_sse(text)] == [True] * (now + 1)


# -- in process: the clock, two processes, a restart -----------------------------------------------------------

def test_a_token_expires_after_its_lifetime_and_a_reissue_brings_the_seat_back(client: FlaskClient, app: Flask) -> None:
    game = create_game(client)
    gid, token = game["game_id"], game["seats"][0]["token"]
    svc = app.extensions["torres_game"]
    later = svc.clock() + timedelta(seconds=svc.config.seat_token_ttl + 1)
    svc.clock.now = lambda: later
    assert_problem(client.get(f"/v1/games/{gid}/view", headers=bearer(token)), 401, "seat_token_expired")
    fresh = client.post(f"/v1/games/{gid}/seats/0/token", headers=SERVICE).get_json()
    assert client.get(f"/v1/games/{gid}/view", headers=bearer(fresh["token"])).status_code == 200
    ticket = _ticket(client, gid, bearer(fresh["token"]))
    svc.clock.now = lambda: later + timedelta(seconds=61)  # past the ticket's minute
    assert_problem(client.get(f"/v1/games/{gid}/stream?timeout=0&stream_ticket={ticket}"), 401,
                   "invalid_stream_ticket", "an expired ticket")


RECHECK = 0.3  # TORRES_SEAT_TOKEN_RECHECK of the second instance below


@pytest.mark.postgres
def test_a_revocation_counts_in_another_process_within_the_recheck(pg_client: FlaskClient, pg_url: str) -> None:
    """Two app instances (two services, two game caches) on one database: the second one's cache is warm. Its
    reads trust the seat-token rows it read at most ``TORRES_SEAT_TOKEN_RECHECK`` ago (then 401), a token issued
    meanwhile is known at once, and a revocation counts at once in the process that made it."""
    other_app = create_app(make_config(pg_url, pool_max=2, seat_token_recheck=RECHECK))
    try:
        other = other_app.test_client()
        game = create_game(pg_client, visibility="private")
        gid, token = game["game_id"], game["seats"][0]["token"]
        assert other.get(f"/v1/games/{gid}/view", headers=bearer(token)).status_code == 200  # cached there
        assert pg_client.delete(f"/v1/games/{gid}/seats/0/token", headers=SERVICE).status_code == 200
        assert_problem(pg_client.get(f"/v1/games/{gid}/view", headers=bearer(token)), 401, "seat_token_revoked")
        time.sleep(RECHECK + 0.05)
        assert_problem(other.get(f"/v1/games/{gid}/view", headers=bearer(token)), 401, "seat_token_revoked")
        fresh = pg_client.post(f"/v1/games/{gid}/seats/0/token", headers=SERVICE).get_json()["token"]
        assert other.get(f"/v1/games/{gid}/view", headers=bearer(fresh)).status_code == 200
        newer = other.post(f"/v1/games/{gid}/seats/0/token", headers=SERVICE).get_json()["token"]
        assert_problem(other.get(f"/v1/games/{gid}/view", headers=bearer(fresh)), 401, "seat_token_revoked")
        time.sleep(1.05)  # pg_client's app: the default TORRES_SEAT_TOKEN_RECHECK
        assert_problem(pg_client.get(f"/v1/games/{gid}/view", headers=bearer(fresh)), 401, "seat_token_revoked")
        assert pg_client.get(f"/v1/games/{gid}/view", headers=bearer(newer)).status_code == 200
        ticket = _ticket(pg_client, gid, bearer(newer))  # a ticket from one process opens one stream in another
        assert other.get(f"/v1/games/{gid}/stream?timeout=0&stream_ticket={ticket}").status_code == 200
        assert_problem(pg_client.get(f"/v1/games/{gid}/stream?timeout=0&stream_ticket={ticket}"), 401,
                       "invalid_stream_ticket")
    finally:
        other_app.extensions["torres_game"].close()


@pytest.mark.postgres
def test_a_revocation_reaches_every_process_by_its_notice(pg_client: FlaskClient, pg_url: str) -> None:
    """The transaction that writes a seat-token row notifies ``torres_seat_tokens``; each process's listener
    hears it and forgets the game's rows, so a read elsewhere refuses the revoked token without waiting for the
    recheck (here an hour), and accepts a reissued one. Without the notice this test would fail for an hour."""
    other_app = create_app(make_config(pg_url, pool_max=2, seat_token_recheck=3600))
    try:
        other = other_app.test_client()
        listener = other_app.extensions["torres_game"].hub.listener
        assert listener is not None and listener.connected.wait(10)
        game = create_game(pg_client, visibility="private")
        gid, token = game["game_id"], game["seats"][0]["token"]
        assert other.get(f"/v1/games/{gid}/view", headers=bearer(token)).status_code == 200  # cached there
        assert pg_client.delete(f"/v1/games/{gid}/seats/0/token", headers=SERVICE).status_code == 200
        deadline = time.monotonic() + 5
        while other.get(f"/v1/games/{gid}/view", headers=bearer(token)).status_code == 200:
            assert time.monotonic() < deadline, "the revocation never reached the other instance"
            time.sleep(0.02)
        assert_problem(other.get(f"/v1/games/{gid}/view", headers=bearer(token)), 401, "seat_token_revoked")
        fresh = pg_client.post(f"/v1/games/{gid}/seats/0/token", headers=SERVICE).get_json()["token"]
        assert other.get(f"/v1/games/{gid}/view", headers=bearer(fresh)).status_code == 200
    finally:
        other_app.extensions["torres_game"].close()


@pytest.mark.postgres
def test_an_action_with_a_token_revoked_in_another_process_is_refused(pg_client: FlaskClient, pg_url: str) -> None:
    """An action is judged on the seat-token rows its process read last (no read per action); the append itself
    refuses a token revoked since, under its lock, and a refusal of any other kind (an illegal action) is still
    preceded by the token's: 401 ``seat_token_revoked``, nothing appended."""
    other_app = create_app(make_config(pg_url, pool_max=2))
    try:
        other = other_app.test_client()
        game = create_game(pg_client)
        gid, tokens = game["game_id"], [bearer(s["token"]) for s in game["seats"]]
        legal = other.get(f"/v1/games/{gid}/legal-actions", headers=tokens[0]).get_json()
        body = {"seat": 0, "action": legal["actions"][0], "expected_version": legal["version"], "command_id": "one"}
        played = other.post(f"/v1/games/{gid}/actions", json=body, headers=tokens[0])
        assert played.status_code == 201, played.get_json()  # the rows are read, and kept, in ``other``
        mover = 0 if played.get_json()["legal_actions"] else 1
        legal = pg_client.get(f"/v1/games/{gid}/legal-actions", headers=tokens[mover]).get_json()
        assert pg_client.delete(f"/v1/games/{gid}/seats/{mover}/token", headers=SERVICE).status_code == 200
        before = [e.hash for e in other_app.extensions["torres_game"].store.read(gid)]
        for action, command in ((legal["actions"][0], "two"), ({"type": "place_knight", "at": "Z9"}, "three")):
            body = {"seat": mover, "action": action, "expected_version": legal["version"], "command_id": command}
            assert_problem(other.post(f"/v1/games/{gid}/actions", json=body, headers=tokens[mover]), 401,
                           "seat_token_revoked", command)
        assert [e.hash for e in other_app.extensions["torres_game"].store.read(gid)] == before
        fresh = bearer(pg_client.post(f"/v1/games/{gid}/seats/{mover}/token", headers=SERVICE).get_json()["token"])
        body = {"seat": mover, "action": legal["actions"][0], "expected_version": legal["version"],
                "command_id": "four"}
        assert other.post(f"/v1/games/{gid}/actions", json=body, headers=fresh).status_code == 201  # a new token
    finally:
        other_app.extensions["torres_game"].close()


def test_reissues_and_revocations_survive_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    app = create_app(make_config(url))
    client = app.test_client()
    game = create_game(client)
    gid, first = game["game_id"], game["seats"][0]["token"]
    second = client.post(f"/v1/games/{gid}/seats/0/token", headers=SERVICE).get_json()["token"]
    client.delete(f"/v1/games/{gid}/seats/1/token", headers=SERVICE)
    app.extensions["torres_game"].close()
    again = create_app(make_config(url))
    try:
        client = again.test_client()
        assert_problem(client.get(f"/v1/games/{gid}/view", headers=bearer(first)), 401, "seat_token_revoked")
        assert_problem(client.get(f"/v1/games/{gid}/view", headers=bearer(game["seats"][1]["token"])), 401,
                       "seat_token_revoked")
        assert client.get(f"/v1/games/{gid}/view", headers=bearer(second)).get_json()["seat"] == 0
    finally:
        again.extensions["torres_game"].close()


def test_no_log_line_carries_a_stream_ticket_or_a_seat_token(tmp_path: Path) -> None:
    """An operator who turns gunicorn's access log on (``GUNICORN_ACCESS_LOG``), or reads the app's request log,
    finds paths but never a ``?stream_ticket=`` or a token: the access log writes the path without its query
    (``infra/gunicorn.conf.py``), the app's line ``request.path``."""
    access, app_log = tmp_path / "access.log", tmp_path / "app.log"
    env = {"GUNICORN_ACCESS_LOG": str(access), "LOG_LEVEL": "INFO"}
    with app_log.open("wb") as out, gunicorn(f"sqlite:///{tmp_path / 'games.sqlite3'}", extra_env=env,
                                             stdout=out) as server:
        c = server.client
        game = create_game(c, HUMANS)  # type: ignore[arg-type]
        gid, seat0 = game["game_id"], bearer(game["seats"][0]["token"])
        tickets = [_ticket(c, gid, seat0) for _ in range(2)]
        assert c.get(f"/v1/games/{gid}/stream?timeout=0&stream_ticket={tickets[0]}").status_code == 200
        socket = ws_connect(server.port, f"/v1/games/{gid}/ws?version=0&stream_ticket={tickets[1]}")
        socket.close()
        assert c.get(f"/v1/games/{gid}/view", headers=seat0).status_code == 200
    logged = access.read_text() + app_log.read_text()
    # Both logs were written and are read here (gunicorn writes no access line for a connection it handed over
    # to the WebSocket; the app's request log has one).
    assert f"/v1/games/{gid}/stream" in access.read_text()
    assert f"/v1/games/{gid}/stream" in app_log.read_text() and f"/v1/games/{gid}/ws" in app_log.read_text()
    for secret in [*tickets, *(seat["token"] for seat in game["seats"])]:
        assert secret not in logged

"""Tenants and visibility, attacked over HTTP: real gunicorn processes on SQLite and on PostgreSQL,
two tenants (``alpha``, ``beta``) and the internal services, all from a tenants file the keys CLI wrote.

Every attempt gets the documented answer and changes nothing (alpha's games and their event logs are compared
before and after):

* another tenant's key, on every operation of every alpha game (public, unlisted, private): 404 game_not_found,
  exactly as a game that does not exist;
* no credentials, a spectator token of another game, an expired or forged one, a seat token of another game,
  on a private game: 404;
* a key nobody holds: 401 invalid_credentials, whether the game exists or not (checked before the look-up);
* a key of the right tenant without the scope: 403 insufficient_scope.

The operations come from the service's own ``/openapi.json``: a new endpoint without an attacker case here fails
:func:`test_every_operation_has_an_attacker_case`.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jwt
import pytest

from torres_audit import merkle
from torres_audit.note import Signer
from torres_audit.record import parse
from torres_game.access import Access
from torres_game.store import EventStore
from torres_game.store.base import GameFilter, GameRecord

from .conftest import ADMIN, bearer, make_config
from .servers import HttpClient, HttpResponse, gunicorn, side_store
from .tenant_helpers import cli, two_tenants

Request = Callable[[HttpClient, str, dict[str, str]], HttpResponse]
#: A WebSocket opening handshake (RFC 6455 4.1): refusals come back as plain HTTP answers before the upgrade.
UPGRADE = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}

#: One request per operation on a game, as an attacker would send it (``{game_id}`` filled in). Bodies are valid,
#: so that a refusal is about who asks, never about what is asked.
GAME_OPERATIONS: dict[tuple[str, str], Request] = {
    ("get", "/v1/games/{game_id}"): lambda c, g, h: c.get(f"/v1/games/{g}", headers=h),
    ("get", "/v1/games/{game_id}/view"): lambda c, g, h: c.get(f"/v1/games/{g}/view", headers=h),
    ("get", "/v1/games/{game_id}/legal-actions"): lambda c, g, h: c.get(f"/v1/games/{g}/legal-actions?seat=1",
                                                                        headers=h),
    ("get", "/v1/games/{game_id}/events"): lambda c, g, h: c.get(f"/v1/games/{g}/events", headers=h),
    ("get", "/v1/games/{game_id}/state"): lambda c, g, h: c.get(f"/v1/games/{g}/state", headers=h),
    ("get", "/v1/games/{game_id}/verify"): lambda c, g, h: c.get(f"/v1/games/{g}/verify", headers=h),
    ("post", "/v1/games/{game_id}/actions"): lambda c, g, h: c.post(
        f"/v1/games/{g}/actions", headers=h,
        json={"seat": 1, "action": {"type": "end_turn"}, "expected_version": 1, "command_id": "attack"}),
    ("get", "/v1/games/{game_id}/wait"): lambda c, g, h: c.get(f"/v1/games/{g}/wait?version=0&timeout=0",
                                                               headers=h),
    ("get", "/v1/games/{game_id}/stream"): lambda c, g, h: c.get(f"/v1/games/{g}/stream?version=0&timeout=0",
                                                                 headers=h),
    ("get", "/v1/games/{game_id}/ws"): lambda c, g, h: c.get(f"/v1/games/{g}/ws?version=0",
                                                             headers={**h, **UPGRADE}),
    ("get", "/v1/games/{game_id}/record"): lambda c, g, h: c.get(f"/v1/games/{g}/record", headers=h),
    ("post", "/v1/games/{game_id}/resign"): lambda c, g, h: c.post(f"/v1/games/{g}/resign", headers=h,
                                                                   json={"seat": 0}),
    ("post", "/v1/games/{game_id}/abandon"): lambda c, g, h: c.post(f"/v1/games/{g}/abandon", headers=h,
                                                                    json={"reason": "attack"}),
    ("post", "/v1/games/{game_id}/undo"): lambda c, g, h: c.post(
        f"/v1/games/{g}/undo", headers=h, json={"seat": 0, "expected_version": 1, "command_id": "attack-undo"}),
    ("post", "/v1/games/{game_id}/spectator-tokens"): lambda c, g, h: c.post(f"/v1/games/{g}/spectator-tokens",
                                                                             headers=h, json={}),
    ("post", "/v1/games/{game_id}/seats/{seat}/token"): lambda c, g, h: c.post(f"/v1/games/{g}/seats/0/token",
                                                                               headers=h),
    ("delete", "/v1/games/{game_id}/seats/{seat}/token"): lambda c, g, h: c.delete(f"/v1/games/{g}/seats/0/token",
                                                                                   headers=h),
    ("post", "/v1/games/{game_id}/stream-tickets"): lambda c, g, h: c.post(f"/v1/games/{g}/stream-tickets",
                                                                           headers=h),
    ("get", "/v1/games/{game_id}/analysis"): lambda c, g, h: c.get(f"/v1/games/{g}/analysis?depth=quick", headers=h),
    ("post", "/v1/games/{game_id}/analysis"): lambda c, g, h: c.post(f"/v1/games/{g}/analysis", headers=h,
                                                                     json={"depth": "quick"}),
}
#: The operations that would change what the other tests use (end the game, replace its seat-0 token).
CHANGES_THE_GAME = ("/abandon", "/resign", "/token")
#: The operations on collections, each with its own test below (create, list, notifications; the webhook deliveries'
#: tenant scoping: tests/game/test_webhooks.py, their refusals here), and the ones that
#: are deliberately open (health, readiness, metrics: no game data; the transparency log: hashes only, no answer
#: names a game, and a game's proof by id is its record's, behind the game's gate: test_the_log_names_no_game).
COLLECTION_OPERATIONS = {("post", "/v1/games"), ("get", "/v1/games"), ("get", "/v1/notifications"),
                         ("get", "/v1/webhooks/deliveries")}
OPEN_OPERATIONS = {("get", "/healthz"), ("get", "/readyz"), ("get", "/metrics"),
                   ("get", "/v1/audit/checkpoint"), ("get", "/v1/audit/proof/inclusion"),
                   ("get", "/v1/audit/proof/consistency"), ("get", "/.well-known/torres-audit-key")}
READS = [op for op in GAME_OPERATIONS if op[0] == "get"]
SEATS = [{"kind": "human", "player_id": "p1"}, {"kind": "ai", "level": "easy"}]
#: The deployment's configured key (on PostgreSQL a process with a generated one runs no sequencer).
LOG_SIGNER = Signer.generate("tenants.test/log")


@dataclass
class World:
    """One served deployment with two tenants: its client, a store on the same database, the keys, and alpha's
    games by visibility (``public``, ``unlisted``, ``private``, ``other``: a second private one) and beta's."""

    client: HttpClient
    store: EventStore
    keys: dict[str, str]
    games: dict[str, dict[str, Any]]
    backend: str

    def key(self, role: str) -> dict[str, str]:
        return {"X-API-Key": self.keys[role]}

    def create(self, role: str, **body: Any) -> dict[str, Any]:
        response = self.client.post("/v1/games", headers=self.key(role), json={"seats": SEATS, **body})
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def spectator_token(self, game: str, role: str = "a", **body: Any) -> str:
        response = self.client.post(f"/v1/games/{self.games[game]['game_id']}/spectator-tokens",
                                    headers=self.key(role), json=body)
        assert response.status_code == 201, response.get_json()
        return response.get_json()["token"]

    def snapshot(self) -> dict[str, Any]:
        """Alpha's games, every event and every reissued or revoked seat token of each: what no attack may
        change."""
        records: list[GameRecord] = self.store.list_games(GameFilter(tenant="alpha"), limit=100_000)
        return {"games": [(g.game_id, g.version, g.status, g.summary) for g in records],
                "logs": {g.game_id: [e.hash for e in self.store.read(g.game_id)] for g in records},
                "seat_tokens": {g.game_id: self.store.seat_token_book(g.game_id).rows  # type: ignore[union-attr]
                                for g in records}}


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp(f"tenants-{request.param}")
    tenants = folder / "tenants.json"
    keys = two_tenants(tenants)
    revoked = cli(tenants, "add-key", "alpha", "--scopes", "games,admin,ai,matchmaking")
    cli(tenants, "revoke-key", "alpha", revoked["key_id"])
    keys["revoked"] = revoked["key"]  # alpha's, no longer valid
    keys["a_admin"] = cli(tenants, "add-key", "alpha", "--scopes", "admin")["key"]
    url, store = side_store(request, folder)
    env = {"TORRES_TENANTS_FILE": str(tenants), "TORRES_LOG_SIGNING_KEY": LOG_SIGNER.skey(),
           "TORRES_LOG_INTERVAL": "0.1"}
    with gunicorn(url, extra_env=env) as server:
        world = World(server.client, store, keys, {}, request.param)
        for visibility in ("public", "unlisted", "private"):
            world.games[visibility] = world.create("a", visibility=visibility)
        world.games["other"] = world.create("a", visibility="private")
        world.games["beta"] = world.create("b", visibility="private")
        try:
            yield world
        finally:
            store.close()


def assert_problem(response: HttpResponse, status: int, code: str, why: str = "") -> None:
    body = response.get_json()
    assert (response.status_code, body and body.get("code")) == (status, code), (why, response.status_code, body)
    assert response.mimetype == "application/problem+json", why


def test_every_operation_has_an_attacker_case(world: World) -> None:
    """The list above is the document's list: an endpoint added without an attacker case fails here."""
    spec = world.client.get("/openapi.json").get_json()
    documented = {(method, path) for path, item in spec["paths"].items() for method in item
                  if method in ("get", "post", "put", "patch", "delete")}
    covered = set(GAME_OPERATIONS) | COLLECTION_OPERATIONS | OPEN_OPERATIONS
    assert documented - covered == set(), f"operations without an attacker case: {sorted(documented - covered)}"
    assert covered - documented == set(), f"attacker cases of no documented operation: {sorted(covered - documented)}"


def test_the_owners_requests_are_not_refused_as_the_attackers_are(world: World) -> None:
    """The attacks below are not vacuous: the same requests by alpha's key reach the game (never 401/404)."""
    for visibility in ("public", "unlisted", "private"):
        game_id = world.games[visibility]["game_id"]
        for (method, path), send in GAME_OPERATIONS.items():
            if path.endswith(CHANGES_THE_GAME):
                continue  # they would succeed, and end the game (or replace the token) the other tests use
            response = send(world.client, game_id, world.key("a"))
            assert response.status_code not in (401, 404), (method, path, visibility, response.get_json())


def test_another_tenants_key_gets_404_on_every_operation_and_changes_nothing(world: World) -> None:
    before = world.snapshot()
    for visibility in ("public", "unlisted", "private"):
        game = world.games[visibility]
        token = game["seats"][0]["token"]
        for (method, path), send in GAME_OPERATIONS.items():
            why = f"beta's key: {method} {path} on alpha's {visibility} game"
            assert_problem(send(world.client, game["game_id"], world.key("b")), 404, "game_not_found", why)
            # beta's key beside a seat token of the game: the key scopes the request to beta, still 404
            both = {**world.key("b"), **bearer(token)}
            assert_problem(send(world.client, game["game_id"], both), 404, "game_not_found", why + " + seat token")
    assert world.snapshot() == before


def _expired_spectator_token(world: World) -> str:
    """A token the service itself signed, for the private game, that expired an hour ago."""
    access = Access(make_config("sqlite:///:memory:"))  # the same admin key, hence the same signing key
    info = type("Info", (), {"record": world.store.get_game(world.games["private"]["game_id"])})()
    token, _ = access.issue_spectator_token(info, 60, now=time.time() - 3600)  # type: ignore[arg-type]
    return token


def _forged_spectator_token(world: World) -> str:
    """The right claims, signed with a key that is not the deployment's."""
    now = int(time.time())
    claims = {"iss": "torres-game", "aud": "torres-spectator", "sub": world.games["private"]["game_id"],
              "ten": "alpha", "iat": now, "exp": now + 600}
    return jwt.encode(claims, b"not the deployment's key, 32 bytes!", algorithm="HS256")


def _unsigned_spectator_token(world: World) -> str:
    """The right claims with ``alg: none`` and no signature: PyJWT is told HS256 only, so it must refuse it."""
    header = base64.urlsafe_b64encode(b'{"alg":"none","typ":"JWT"}').rstrip(b"=").decode()
    now = int(time.time())
    claims = json.dumps({"iss": "torres-game", "aud": "torres-spectator", "sub": world.games["private"]["game_id"],
                         "ten": "alpha", "iat": now, "exp": now + 600}).encode()
    return f"{header}.{base64.urlsafe_b64encode(claims).rstrip(b'=').decode()}."


def test_a_private_game_is_404_without_a_credential_for_it(world: World) -> None:
    """Anonymous callers, spectator tokens of other games, expired, forged or unsigned ones, seat tokens of another
    game: every operation on a private game answers as if it did not exist."""
    strangers = {
        "no credentials": {},
        "a spectator token of alpha's unlisted game": bearer(world.spectator_token("unlisted")),
        "a spectator token of alpha's other private game": bearer(world.spectator_token("other")),
        "a spectator token beta issued for its game": bearer(world.spectator_token("beta", "b")),
        "an expired spectator token of this game": bearer(_expired_spectator_token(world)),
        "a forged spectator token of this game": bearer(_forged_spectator_token(world)),
        "an unsigned token (alg none)": bearer(_unsigned_spectator_token(world)),
        "a seat token of alpha's other private game": bearer(world.games["other"]["seats"][0]["token"]),
        "a random bearer token": bearer("ZmFrZS1zZWF0LXRva2VuLW9mLW5vYm9keQ"),
    }
    before = world.snapshot()
    game_id = world.games["private"]["game_id"]
    for who, headers in strangers.items():
        for (method, path), send in GAME_OPERATIONS.items():
            assert_problem(send(world.client, game_id, headers), 404, "game_not_found", f"{who}: {method} {path}")
    assert world.snapshot() == before


def test_a_key_nobody_holds_is_401_whether_the_game_exists_or_not(world: World) -> None:
    before = world.snapshot()
    unknown = {"X-API-Key": "trs_" + "x" * 43}
    for game_id in (world.games["private"]["game_id"], str(uuid.uuid4())):
        for (method, path), send in GAME_OPERATIONS.items():
            assert_problem(send(world.client, game_id, unknown), 401, "invalid_credentials", f"{method} {path}")
    assert_problem(world.client.post("/v1/games", headers=unknown, json={"seats": SEATS}), 401, "invalid_credentials")
    assert_problem(world.client.get("/v1/games", headers=unknown), 401, "invalid_credentials")
    assert_problem(world.client.get("/v1/notifications", headers=unknown), 401, "invalid_credentials")
    assert_problem(world.client.get("/v1/webhooks/deliveries", headers=unknown), 401, "invalid_credentials")
    assert world.snapshot() == before


def test_a_key_without_the_scope_is_403_insufficient_scope_and_changes_nothing(world: World) -> None:
    before = world.snapshot()
    private, public = world.games["private"]["game_id"], world.games["public"]["game_id"]
    no_scope = world.key("a_mm")  # alpha's, matchmaking only: no game scope at all
    assert_problem(world.client.post("/v1/games", headers=no_scope, json={"seats": SEATS}), 403,
                   "insufficient_scope")
    assert_problem(world.client.get("/v1/games", headers=no_scope), 403, "insufficient_scope")
    assert_problem(world.client.get("/v1/notifications", headers=no_scope), 403, "insufficient_scope")
    assert_problem(world.client.get("/v1/webhooks/deliveries", headers=no_scope), 403, "insufficient_scope")
    for op in (("post", "/v1/games/{game_id}/abandon"), ("post", "/v1/games/{game_id}/spectator-tokens"),
               ("post", "/v1/games/{game_id}/seats/{seat}/token"),
               ("delete", "/v1/games/{game_id}/seats/{seat}/token"), ("post", "/v1/games/{game_id}/stream-tickets"),
               ("post", "/v1/games/{game_id}/actions"), ("get", "/v1/games/{game_id}/legal-actions"), *READS):
        assert_problem(GAME_OPERATIONS[op](world.client, private, no_scope), 403, "insufficient_scope", str(op))
    for role, op in (("a_games", ("post", "/v1/games/{game_id}/actions")),  # an AI seat needs 'ai'
                     ("a_games", ("get", "/v1/games/{game_id}/legal-actions")),
                     ("a_ai", ("post", "/v1/games/{game_id}/abandon")),  # ending a game needs 'games'
                     ("a_ai", ("post", "/v1/games/{game_id}/spectator-tokens")),
                     ("a_ai", ("post", "/v1/games/{game_id}/seats/{seat}/token")),  # so does a seat's token
                     ("a_ai", ("delete", "/v1/games/{game_id}/seats/{seat}/token"))):
        assert_problem(GAME_OPERATIONS[op](world.client, public, world.key(role)), 403, "insufficient_scope",
                       f"{role}: {op}")
    # the internal services hold only their own scopes
    assert_problem(world.client.post("/v1/games", headers=world.key("ratings"), json={"seats": SEATS, "tenant":
                                                                                        "alpha"}),
                   403, "insufficient_scope")
    assert_problem(world.client.get("/v1/notifications", headers=world.key("matcher")), 403, "insufficient_scope")
    assert_problem(world.client.get("/v1/webhooks/deliveries", headers=world.key("ratings")), 403,
                   "insufficient_scope")  # webhooks are tenants': no internal key reads them
    assert_problem(GAME_OPERATIONS[("post", "/v1/games/{game_id}/actions")](world.client, public,
                                                                           world.key("matcher")),
                   403, "insufficient_scope")
    assert world.snapshot() == before


def test_lists_show_the_callers_tenants_games_only(world: World) -> None:
    def listed(headers: dict[str, str], query: str = "") -> set[str]:
        response = world.client.get(f"/v1/games?limit=500{query}", headers=headers)
        assert response.status_code == 200, response.get_json()
        return {g["game_id"] for g in response.get_json()["games"]}

    alpha = {world.games[v]["game_id"] for v in ("public", "unlisted", "private", "other")}
    beta = world.games["beta"]["game_id"]
    assert alpha <= listed(world.key("a")) and beta not in listed(world.key("a"))  # every visibility, to the owner
    assert not alpha & listed(world.key("b")) and beta in listed(world.key("b"))
    assert alpha & listed(world.key("a"), "&visibility=public") == {world.games["public"]["game_id"]}
    assert world.games["unlisted"]["game_id"] not in listed(world.key("a"), "&visibility=public")
    assert alpha | {beta} <= listed(ADMIN)  # the operator
    assert_problem(world.client.get("/v1/games"), 401, "unauthenticated")  # never anonymous
    assert_problem(world.client.get("/v1/games", headers=world.key("matcher")), 403, "forbidden")
    assert listed(world.key("a"), "&player_id=p1") >= alpha and listed(world.key("a"), "&player_id=p2") == set()
    assert beta in listed(world.key("b"), "&player_id=p1") and not alpha & listed(world.key("b"), "&player_id=p1")


def test_notifications_are_the_tenants_own(world: World) -> None:
    def games_in(headers: dict[str, str]) -> set[str]:
        seen: set[str] = set()
        after = 0
        while True:
            page = world.client.get(f"/v1/notifications?after={after}&limit=1000", headers=headers).get_json()
            seen |= {n["game_id"] for n in page["notifications"]}
            if not page["notifications"]:
                return seen
            after = page["next_after"]

    alpha = {world.games[v]["game_id"] for v in ("public", "unlisted", "private", "other")}
    beta = world.games["beta"]["game_id"]
    a_sees, b_sees, ratings_sees = games_in(world.key("a")), games_in(world.key("b")), games_in(world.key("ratings"))
    assert alpha <= a_sees and beta not in a_sees
    assert beta in b_sees and not alpha & b_sees
    assert alpha | {beta} <= ratings_sees  # the ratings consumer (internal 'notifications') reads every tenant's


def test_creation_names_the_tenant_only_from_an_internal_key(world: World) -> None:
    before = world.snapshot()
    body = {"seats": SEATS}
    assert_problem(world.client.post("/v1/games", headers=world.key("b"), json={**body, "tenant": "alpha"}), 403,
                   "forbidden")  # beta cannot plant games in alpha's list
    assert_problem(world.client.post("/v1/games", headers=world.key("matcher"), json=body), 400,
                   "validation_failed")  # the matcher must say whose game it is
    assert_problem(world.client.post("/v1/games", headers=world.key("matcher"), json={**body, "tenant": "gamma"}),
                   400, "validation_failed")
    assert world.snapshot() == before
    made = world.client.post("/v1/games", headers=world.key("matcher"), json={**body, "tenant": "alpha"}).get_json()
    assert made["visibility"] == "unlisted"
    listed = world.client.get("/v1/games?limit=500", headers=world.key("a")).get_json()["games"]
    assert made["game_id"] in {g["game_id"] for g in listed}
    aborted = world.client.post(f"/v1/games/{made['game_id']}/abandon", headers=world.key("matcher"),
                                json={"reason": "nobody came"})
    assert aborted.status_code == 201  # the matcher ends the games it made, whichever tenant's


def test_a_leaked_matcher_key_hands_out_no_seat_and_opens_no_private_game(world: World) -> None:
    """The matcher's internal key creates games for any tenant and may end them, but the game's seats and its
    spectators are the tenant's to grant: with it, no seat token is reissued or revoked and no spectator token
    issued, on any tenant's game, and nothing changes."""
    before = world.snapshot()
    for name in ("private", "public", "beta"):
        gid = world.games[name]["game_id"]
        for response in (world.client.post(f"/v1/games/{gid}/seats/0/token", headers=world.key("matcher")),
                         world.client.delete(f"/v1/games/{gid}/seats/0/token", headers=world.key("matcher")),
                         world.client.post(f"/v1/games/{gid}/spectator-tokens", headers=world.key("matcher"),
                                           json={})):
            assert_problem(response, 403, "forbidden", name)
    assert world.snapshot() == before


def test_the_same_idempotency_key_makes_each_tenant_its_own_game(world: World) -> None:
    """Creation keys are per tenant: beta replaying alpha's key gets a game of its own, never alpha's tokens."""
    headers = {"Idempotency-Key": f"shared-{uuid.uuid4().hex[:8]}"}
    body = {"seats": [{"kind": "human", "player_id": "p1"}, {"kind": "human", "player_id": "p2"}]}
    a = world.client.post("/v1/games", headers={**headers, **world.key("a")}, json=body)
    b = world.client.post("/v1/games", headers={**headers, **world.key("b")}, json=body)
    assert a.status_code == b.status_code == 201 and "Idempotent-Replayed" not in b.headers
    assert a.get_json()["game_id"] != b.get_json()["game_id"]
    assert {s["token"] for s in a.get_json()["seats"]}.isdisjoint(s["token"] for s in b.get_json()["seats"])
    again = world.client.post("/v1/games", headers={**headers, **world.key("a")}, json=body)
    assert again.get_json() == a.get_json() and again.headers["Idempotent-Replayed"] == "true"


def test_a_stream_ticket_opens_no_stream_beside_a_credential_that_does_not_verify(world: World) -> None:
    """A valid ticket does not make the headers beside it count for nothing: a revoked key is 401, another
    tenant's key 404 (as on every request of it), a wrong admin key 403, on the event stream and the WebSocket
    alike; and the refused request leaves the ticket to its holder."""
    refusals = [(world.key("revoked"), 401, "invalid_credentials"), (world.key("b"), 404, "game_not_found"),
                ({"X-Admin-Key": "not-the-admin-key"}, 403, "forbidden"),
                ({**world.key("a"), "X-Admin-Key": "not-the-admin-key"}, 403, "forbidden")]
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": base64.b64encode(b"0123456789abcdef").decode()}
    for name in ("public", "private"):
        game_id = world.games[name]["game_id"]
        for headers, status, code in refusals:
            ticket = world.client.post(f"/v1/games/{game_id}/stream-tickets", headers=world.key("a")).get_json()
            for path, extra in ((f"/v1/games/{game_id}/stream", {}), (f"/v1/games/{game_id}/ws", upgrade)):
                response = world.client.get(f"{path}?stream_ticket={ticket['stream_ticket']}&timeout=0.5",
                                            headers={**headers, **extra})
                assert_problem(response, status, code, f"{name} {path} {headers}")
            opened = world.client.get(f"/v1/games/{game_id}/stream?stream_ticket={ticket['stream_ticket']}"
                                      "&timeout=0.5")
            assert opened.status_code == 200, (name, headers, opened.get_data(as_text=True)[:300])


def test_a_replay_answers_only_the_principal_that_made_the_request(world: World) -> None:
    """The matcher's internal key sending alpha's Idempotency-Key and body (naming alpha) gets a game of its own,
    never alpha's seat tokens; another body gets a game too, not a 409 that would say alpha's exists; alpha's
    external_id is refused to it exactly as an unused one. Alpha's other key replays alpha's creation."""
    key = f"portal-{uuid.uuid4().hex[:8]}"
    body = {"seats": [{"kind": "human", "player_id": "p1"}, {"kind": "human", "player_id": "p2"}],
            "visibility": "private"}
    alpha = world.client.post("/v1/games", headers={"Idempotency-Key": key, **world.key("a")}, json=body)
    assert alpha.status_code == 201
    alpha_tokens = {s["token"] for s in alpha.get_json()["seats"]}
    matcher = world.client.post("/v1/games", headers={"Idempotency-Key": key, **world.key("matcher")},
                                json={**body, "tenant": "alpha"})
    assert matcher.status_code == 201 and "Idempotent-Replayed" not in matcher.headers, matcher.get_json()
    assert matcher.get_json()["game_id"] != alpha.get_json()["game_id"]
    assert alpha_tokens.isdisjoint(s["token"] for s in matcher.get_json()["seats"])
    again = world.client.post("/v1/games", headers={"Idempotency-Key": key, **world.key("matcher")},
                              json={**body, "tenant": "alpha"})
    assert again.get_json() == matcher.get_json() and again.headers["Idempotent-Replayed"] == "true"
    other_key = f"portal-{uuid.uuid4().hex[:8]}"
    world.client.post("/v1/games", headers={"Idempotency-Key": other_key, **world.key("a")}, json=body)
    other = world.client.post("/v1/games", headers={"Idempotency-Key": other_key, **world.key("matcher")},
                              json={**body, "tenant": "alpha", "labels": ["different"]})
    assert other.status_code == 201 and "Idempotent-Replayed" not in other.headers, other.get_json()
    used, unused = f"ext-{uuid.uuid4().hex[:8]}", f"ext-{uuid.uuid4().hex[:8]}"
    assert world.client.post("/v1/games", headers=world.key("a"), json={**body, "external_id": used}).status_code \
        == 201
    answers = [world.client.post("/v1/games", headers=world.key("matcher"),
                                 json={**body, "tenant": "alpha", "external_id": ext, **extra})
               for ext in (used, unused) for extra in ({}, {"labels": ["different"]})]
    for answer in answers:
        assert_problem(answer, 400, "validation_failed")
    assert len({json.dumps(a.get_json()["errors"], sort_keys=True) for a in answers}) == 1
    replay = world.client.post("/v1/games", headers={"Idempotency-Key": key, **world.key("a_games")}, json=body)
    assert replay.get_json() == alpha.get_json() and replay.headers["Idempotent-Replayed"] == "true"


def test_notifications_need_games_and_admin_only_unredacts_them(world: World) -> None:
    """What docs/security.md's key table says: an ``admin``-only key reads whole logs of its games, but the
    notifications need ``games`` (403 ``insufficient_scope``); with both they are unredacted."""
    assert_problem(world.client.get("/v1/notifications", headers=world.key("a_admin")), 403, "insufficient_scope")
    game_id = world.games["private"]["game_id"]
    assert world.client.get(f"/v1/games/{game_id}/events", headers=world.key("a_admin")).status_code == 200
    for role in ("a", "a_games"):
        assert world.client.get("/v1/notifications", headers=world.key(role)).status_code == 200, role


def test_a_spectator_token_reads_a_private_game_and_nothing_else(world: World) -> None:
    game_id = world.games["private"]["game_id"]
    issued = world.client.post(f"/v1/games/{game_id}/spectator-tokens", headers=world.key("a"),
                               json={"ttl_seconds": 300}).get_json()
    assert issued["game_id"] == game_id and issued["expires_at"] > "2000"
    watcher = bearer(issued["token"])
    for op in READS:
        if op[1].endswith(("/ws", "/legal-actions")):
            continue  # the WebSocket needs an upgrade; legal actions need a seat
        response = GAME_OPERATIONS[op](world.client, game_id, watcher)
        if op[1].endswith("/analysis"):  # through the gate; the game is running, so there is no analysis to read
            assert_problem(response, 409, "game_running", str(op))
            continue
        assert response.status_code == 200, (op, response.get_json())
    view = world.client.get(f"/v1/games/{game_id}/view", headers=watcher).get_json()
    assert view["seat"] is None and view["view"]["hand"] is None  # a spectator's view
    assert world.client.get(f"/v1/games/{game_id}/events", headers=watcher).get_json()["redacted"] is True
    before = world.snapshot()
    for op in (("post", "/v1/games/{game_id}/actions"), ("post", "/v1/games/{game_id}/resign"),
               ("post", "/v1/games/{game_id}/undo")):
        assert_problem(GAME_OPERATIONS[op](world.client, game_id, watcher), 403, "forbidden", str(op))
    assert_problem(world.client.post(f"/v1/games/{game_id}/spectator-tokens", headers=watcher, json={}), 404,
                   "game_not_found")  # a watcher cannot mint more
    assert world.snapshot() == before
    assert world.client.post(f"/v1/games/{game_id}/spectator-tokens", headers=ADMIN, json={}).status_code == 201
    for ttl in (0, 59, 7 * 86400 + 1):
        assert_problem(world.client.post(f"/v1/games/{game_id}/spectator-tokens", headers=world.key("a"),
                                         json={"ttl_seconds": ttl}), 400, "validation_failed")


def test_who_reads_a_private_game(world: World) -> None:
    game = world.games["private"]
    path = f"/v1/games/{game['game_id']}"
    for who, headers in {"its seat": bearer(game["seats"][0]["token"]), "its tenant's key": world.key("a"),
                         "its tenant's ai key": world.key("a_ai"), "the operator": ADMIN,
                         "the AI workers' internal key": world.key("ai")}.items():
        response = world.client.get(path, headers=headers)
        assert response.status_code == 200 and response.get_json()["visibility"] == "private", who
    assert_problem(world.client.get(path, headers=world.key("matcher")), 404, "game_not_found")
    full = world.client.get(f"{path}/events", headers=world.key("a")).get_json()  # 'admin' scope: the whole log
    assert full["redacted"] is False
    assert world.client.get(f"{path}/events", headers=world.key("a_games")).get_json()["redacted"] is True


def test_the_log_names_no_game(world: World) -> None:
    """The transparency log's endpoints are open and answer in hashes: a finished private game's inclusion proof,
    asked by its leaf hash, names no game; asked by game id alone, it is refused (400: leaf_hash is required),
    so no public endpoint turns a private game's id into anything. The game's proof by id is its record's
    ``inclusion``, behind the game's read gate (404 to a stranger). Asked by leaf hash with a game id beside it,
    the id is ignored like any unknown query parameter."""
    game_id = world.create("a", visibility="private")["game_id"]
    ended = world.client.post(f"/v1/games/{game_id}/abandon", headers=world.key("a"), json={"reason": "log test"})
    assert ended.status_code < 300, ended.get_json()
    deadline = time.monotonic() + 30
    while (record := world.client.get(f"/v1/games/{game_id}/record", headers=world.key("a")).get_json()
           )["inclusion"] is None:
        assert time.monotonic() < deadline, "the sequencer did not integrate the finished game"
        time.sleep(0.1)
    leaf = merkle.leaf_hash(parse(record).head_text().encode()).hex()
    size = record["inclusion"]["tree_size"]
    answers = {
        "inclusion": world.client.get(f"/v1/audit/proof/inclusion?leaf_hash={leaf}"),
        "checkpoint": world.client.get("/v1/audit/checkpoint"),
        "consistency": world.client.get(f"/v1/audit/proof/consistency?first=1&second={size}"),
        "keys": world.client.get("/.well-known/torres-audit-key"),
    }
    for name, response in answers.items():
        assert response.status_code == 200, (name, response.status_code)
        assert game_id not in response.get_data(as_text=True), name
    assert set(answers["inclusion"].get_json()) == {"leaf_index", "tree_size", "leaf_hash", "proof"}
    assert answers["keys"].get_data(as_text=True).startswith(LOG_SIGNER.verifier().vkey())
    by_id = world.client.get(f"/v1/audit/proof/inclusion?game_id={game_id}")  # leaf_hash is required
    assert by_id.status_code == 400 and game_id not in by_id.get_data(as_text=True)
    # an unknown query parameter is ignored (as everywhere): the same answer, naming no game
    both = world.client.get(f"/v1/audit/proof/inclusion?leaf_hash={leaf}&game_id={game_id}")
    assert both.status_code == 200 and both.get_json() == answers["inclusion"].get_json()
    assert_problem(world.client.get(f"/v1/games/{game_id}/record"), 404, "game_not_found")

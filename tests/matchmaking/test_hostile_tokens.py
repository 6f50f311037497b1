"""Bearer JWTs an attacker builds by hand, with headers and claims of every JSON type, on both services: whatever
they hold, the answer is a 4xx problem (401 for a token that does not verify), never a 5xx, and no traceback
reaches a log.

The matchmaker verifies them as player tokens of an HS256 tenant and of a tenant signing with its own keys (a
JWKS on a loopback server of the test's own), and the game service as spectator tokens. Each token is correctly
signed with the key its header or issuer points at, so the hostile values reach the claim checks behind the
signature, where a well-formed token would be accepted.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1
from cryptography.hazmat.primitives.asymmetric.ec import generate_private_key as ec_key
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key as rsa_key
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import served

from torres_game.app import create_app as create_game_app
from torres_game.config import Config as GameConfig
from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_service import keys as keys_cli

from .conftest import MIGRATIONS

ADMIN_KEY = "hostile-tokens-admin-key"
JWKS_ISSUER = "https://portal-j.example"

#: Any JSON value, nested a little: what a hand-made header or claim may hold.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed(header: dict[str, Any], claims: dict[str, Any], sign: Any) -> str:
    """A JWT put together by hand, as an attacker does (PyJWT would refuse to encode most of these headers)."""
    signing = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
    return f"{signing}.{b64(sign(signing.encode()))}"


def hs256(secret: bytes) -> Any:
    return lambda message: hmac.new(secret, message, hashlib.sha256).digest()


@st.composite
def hostile(draw: st.DrawFn, good: dict[str, Any], header_values: dict[str, list[Any]]) -> tuple[dict, dict]:
    """A header and claims: each field left good, replaced by a nearby plausible value, by any JSON value, or
    dropped; and a few fields nobody expects."""
    claims: dict[str, Any] = {}
    for name, value in good.items():
        choice = draw(st.sampled_from(["keep", "keep", "json", "drop"]))
        if choice == "keep":
            claims[name] = value
        elif choice == "json":
            claims[name] = draw(JSON)
    claims.update(draw(st.dictionaries(st.sampled_from(["nbf", "name", "jti", "x"]), JSON, max_size=2)))
    header: dict[str, Any] = {}
    for name, values in header_values.items():
        header[name] = draw(st.sampled_from(values) | JSON)
    header.update(draw(st.dictionaries(st.sampled_from(["crit", "jku", "x5u", "b64", "cty"]), JSON, max_size=2)))
    return header, claims


def good_claims(issuer: str, audience: str, sub: str) -> dict[str, Any]:
    now = int(time.time())
    return {"iss": issuer, "aud": audience, "sub": sub, "iat": now, "exp": now + 300}


def refused_cleanly(response: Any) -> None:
    assert response.status_code < 500, (response.status_code, response.get_data(as_text=True)[:500])
    if response.status_code >= 400:
        assert response.mimetype == "application/problem+json", response.get_data(as_text=True)[:300]


@pytest.fixture(autouse=True)
def service_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """The services' own loggers do not propagate to the root (they write JSON lines of their own): their records
    reach ``caplog`` through its handler on each of them."""
    loggers = [logging.getLogger(name) for name in ("torres_game", "torres_matchmaking", "torres_service")]
    for logger in loggers:
        logger.addHandler(caplog.handler)
    yield
    for logger in loggers:
        logger.removeHandler(caplog.handler)


def no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    logged = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not logged, [(r.name, r.getMessage()) for r in logged]


# -- the matchmaker: player tokens of an HS256 tenant and of a JWKS tenant ---------------------------------------

@pytest.fixture(scope="module")
def portal_keys() -> dict[str, Any]:
    """The JWKS tenant's keys: RSA (kid "rs"), EC P-256 ("ec") and Ed25519 ("ed")."""
    return {"rs": rsa_key(public_exponent=65537, key_size=2048), "ec": ec_key(SECP256R1()),
            "ed": Ed25519PrivateKey.generate()}


@pytest.fixture(scope="module")
def jwks_url(portal_keys: dict[str, Any]) -> Iterator[str]:
    keys = []
    for kid, alg in (("rs", "RS256"), ("ec", "ES256"), ("ed", "EdDSA")):
        jwk = json.loads(jwt.get_algorithm_by_name(alg).to_jwk(portal_keys[kid].public_key()))
        keys.append({**jwk, "kid": kid, "use": "sig"})
    body = json.dumps({"keys": keys}).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    with served(http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        yield f"{url}/.well-known/jwks.json"


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory, jwks_url: str) -> tuple[Path, dict[str, Any]]:
    path = tmp_path_factory.mktemp("hostile") / "tenants.json"

    def cli(*args: str) -> dict[str, Any]:
        return keys_cli.run(keys_cli.parser().parse_args(["--file", str(path), *args]))

    made = {"hs": cli("add-tenant", "portal-h"),
            "jwks": cli("add-tenant", "portal-j", "--issuer", JWKS_ISSUER, "--jwks-url", jwks_url)}
    made["key"] = cli("add-key", "portal-h", "--scopes", "games,matchmaking")["key"]
    return path, made


@pytest.fixture
def matchmaker(config: Config, tenants: tuple[Path, dict[str, Any]]) -> Iterator[Flask]:
    config = config.with_(tenants_file=str(tenants[0]))
    services = Services.build(config)
    yield create_app(config, services=services)
    services.stop()


def matchmaker_calls(app: Flask, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    client = app.test_client()
    for response in (client.post("/v1/tickets", json={"player_counts": [2]}, headers=headers),
                     client.get("/v1/tickets/00000000-0000-4000-8000-000000000000", headers=headers),
                     client.get("/v1/tickets/00000000-0000-4000-8000-000000000000/stream?timeout=0.1",
                                headers=headers)):
        refused_cleanly(response)
        response.close()


SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@SETTINGS
@given(data=st.data())
def test_hs256_player_tokens_of_any_shape_are_refused_with_a_4xx(
        data: st.DataObject, matchmaker: Flask, tenants: tuple[Path, dict[str, Any]],
        caplog: pytest.LogCaptureFixture) -> None:
    made = tenants[1]["hs"]
    good = good_claims(made["issuer"], made["audience"], "ann")
    header, claims = data.draw(hostile(good, {"alg": ["HS256", "none", "RS256"], "typ": ["JWT"],
                                              "kid": ["k1"]}))
    caplog.clear()
    matchmaker_calls(matchmaker, signed(header, claims, hs256(made["hs256_secret"].encode())))
    no_traceback(caplog)


@SETTINGS
@given(data=st.data())
def test_jwks_player_tokens_of_any_shape_are_refused_with_a_4xx(
        data: st.DataObject, matchmaker: Flask, portal_keys: dict[str, Any],
        caplog: pytest.LogCaptureFixture) -> None:
    good = good_claims(JWKS_ISSUER, "torres", "jo")
    header, claims = data.draw(hostile(good, {"alg": ["RS256", "ES256", "EdDSA", "HS256", "none"],
                                              "typ": ["JWT"], "kid": ["rs", "ec", "ed", "zz"]}))
    # Signed with the key the header names (or the RSA key), by that key's own algorithm: the header may claim
    # any other one for it.
    kid = header["kid"] if isinstance(header.get("kid"), str) and header["kid"] in portal_keys else "rs"
    alg = {"rs": "RS256", "ec": "ES256", "ed": "EdDSA"}[kid]
    algorithm = jwt.get_algorithm_by_name(alg)
    caplog.clear()
    matchmaker_calls(matchmaker, signed(header, claims,
                                        lambda message: algorithm.sign(message, portal_keys[kid])))
    no_traceback(caplog)


@pytest.mark.parametrize("claims", [{"iss": [JWKS_ISSUER]}, {"iss": {"a": 1}}])
def test_an_issuer_that_is_no_string_is_a_401(matchmaker: Flask, tenants: tuple[Path, dict[str, Any]],
                                              claims: dict[str, Any]) -> None:
    made = tenants[1]["hs"]
    token = signed({"alg": "HS256", "typ": "JWT"}, {**good_claims(made["issuer"], made["audience"], "ann"),
                                                    **claims}, hs256(made["hs256_secret"].encode()))
    response = matchmaker.test_client().post("/v1/tickets", json={"player_counts": [2]},
                                             headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401 and response.get_json()["code"] == "invalid_player_token"


@pytest.mark.parametrize(("kid", "alg"), [("rs", "ES256"), ("rs", "EdDSA"), ("ec", "RS256"), ("ed", "ES256")])
def test_a_header_claiming_another_algorithm_for_a_portal_key_is_a_401(
        matchmaker: Flask, portal_keys: dict[str, Any], kid: str, alg: str) -> None:
    own = {"rs": "RS256", "ec": "ES256", "ed": "EdDSA"}[kid]
    token = signed({"alg": alg, "typ": "JWT", "kid": kid}, good_claims(JWKS_ISSUER, "torres", "jo"),
                   lambda message: jwt.get_algorithm_by_name(own).sign(message, portal_keys[kid]))
    response = matchmaker.test_client().post("/v1/tickets", json={"player_counts": [2]},
                                             headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401 and response.get_json()["code"] == "invalid_player_token"


# -- the game service: the bearer JWTs it verifies are spectator tokens -------------------------------------------

@pytest.fixture
def game_service(tmp_path: Path, tenants: tuple[Path, dict[str, Any]]) -> Iterator[tuple[Flask, str, str]]:
    """The game service on the same tenants file, with one private and one public game of portal-h."""
    config = GameConfig(database_url=f"sqlite:///{tmp_path / 'games.sqlite3'}", api_key="unused-single-key",
                        admin_key=ADMIN_KEY, ai_driver="none", migrations_dir=MIGRATIONS, log_level="WARNING",
                        log_interval=0, tenants_file=str(tenants[0]))
    app = create_game_app(config)
    client = app.test_client()
    games = []
    for visibility in ("private", "public"):
        created = client.post("/v1/games", headers={"X-API-Key": tenants[1]["key"]}, json={
            "edition": "rio_grande", "master": False, "options": {}, "visibility": visibility,
            "seats": [{"kind": "human", "player_id": "ann"}, {"kind": "human", "player_id": "bob"}]})
        assert created.status_code == 201, created.get_data(as_text=True)
        games.append(created.get_json()["game_id"])
    yield app, games[0], games[1]
    app.extensions["torres_game"].close()


@SETTINGS
@given(data=st.data())
def test_bearer_jwts_of_any_shape_are_refused_by_the_game_service_with_a_4xx(
        data: st.DataObject, game_service: tuple[Flask, str, str], tenants: tuple[Path, dict[str, Any]],
        caplog: pytest.LogCaptureFixture) -> None:
    app, private, public = game_service
    game = data.draw(st.sampled_from([private, public]))
    good = {**good_claims("torres-game", "torres-spectator", game), "ten": "portal-h"}
    header, claims = data.draw(hostile(good, {"alg": ["HS256", "none", "RS256"], "typ": ["JWT"], "kid": ["k1"]}))
    spectator_key = hmac.new(ADMIN_KEY.encode(), b"torres spectator tokens v1", hashlib.sha256).digest()
    secret = data.draw(st.sampled_from([spectator_key, tenants[1]["hs"]["hs256_secret"].encode()]))
    headers = {"Authorization": f"Bearer {signed(header, claims, hs256(secret))}"}
    client = app.test_client()
    caplog.clear()
    for response in (client.get(f"/v1/games/{game}", headers=headers),
                     client.get(f"/v1/games/{game}/events", headers=headers),
                     client.post(f"/v1/games/{game}/stream-tickets", headers=headers),
                     client.post(f"/v1/games/{game}/actions", headers=headers,
                                 json={"seat": 0, "expected_version": 1, "action": {"type": "pass"}})):
        refused_cleanly(response)
    no_traceback(caplog)

"""Tenants, their keys and their players' tokens (torres_service.principals), as an attacker tries them.

The key file is written by the real CLI (`python -m torres_service.keys` in a subprocess); the JWKS is served by
a real HTTP server on loopback; tokens are forged with PyJWT the way an attacker would.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from serving import served

from torres_service import keys
from torres_service.principals import (
    INTERNAL_SCOPES,
    TENANT_SCOPES,
    InvalidCredentials,
    InvalidPlayerToken,
    MissingScope,
    PlayerTokens,
    Registries,
    Registry,
    issue_player_token,
)


def keys_cli(path: Path, *args: str) -> dict[str, Any]:
    """One keys CLI command on the tenants file, in this process (an interpreter start each cost seconds):
    what it prints."""
    return keys.run(keys.parser().parse_args(["--file", str(path), *args]))


@pytest.fixture
def tenants_file(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    path = tmp_path / "tenants.json"
    made = {"a": keys_cli(path, "add-tenant", "portal-a"), "b": keys_cli(path, "add-tenant", "portal-b")}
    made["a_key"] = keys_cli(path, "add-key", "portal-a", "--scopes", "games,matchmaking")
    made["b_key"] = keys_cli(path, "add-key", "portal-b", "--scopes", "games")
    made["ai_key"] = keys_cli(path, "add-key", "ai-worker", "--internal", "--scopes", "ai")
    return path, made


def test_the_cli_stores_digests_only_and_lists_no_secret(tenants_file: tuple[Path, dict[str, Any]]) -> None:
    path, made = tenants_file
    text = path.read_text()
    for key in (made["a_key"]["key"], made["b_key"]["key"], made["ai_key"]["key"]):
        assert key.startswith("trs_") and key not in text
    listed = keys_cli(path, "list")
    assert made["a"]["hs256_secret"] not in json.dumps(listed)
    assert listed["tenants"]["portal-a"]["keys"][0]["scopes"] == ["games", "matchmaking"]
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_each_key_names_its_holder_and_scopes(tenants_file: tuple[Path, dict[str, Any]]) -> None:
    path, made = tenants_file
    registry = Registries(path=str(path))
    a = registry.principal(made["a_key"]["key"])
    assert (a.tenant, a.key_id, a.internal) == ("portal-a", "k1", False) and a.may("matchmaking")
    b = registry.principal(made["b_key"]["key"])
    assert b.tenant == "portal-b" and not b.may("matchmaking")
    with pytest.raises(MissingScope):
        b.require("matchmaking")
    ai = registry.principal(made["ai_key"]["key"])
    assert ai.internal and ai.tenant is None and ai.scopes == {"ai"}
    for wrong in ("", made["a_key"]["key"] + "x", made["a_key"]["key"][:-1], "trs_" + "A" * 43):
        with pytest.raises(InvalidCredentials):
            registry.principal(wrong)


def test_rotation_adds_then_revokes_without_a_restart(tenants_file: tuple[Path, dict[str, Any]]) -> None:
    path, made = tenants_file
    registry = Registries(path=str(path), reload=0.0)
    old = made["a_key"]["key"]
    assert registry.principal(old).key_id == "k1"
    new = keys_cli(path, "add-key", "portal-a", "--scopes", "games,matchmaking")
    assert registry.principal(new["key"]).key_id == "k2" and registry.principal(old).key_id == "k1"
    keys_cli(path, "revoke-key", "portal-a", "k1")
    with pytest.raises(InvalidCredentials):
        registry.principal(old)
    assert registry.principal(new["key"]).tenant == "portal-a"


def test_a_broken_file_keeps_the_last_good_reading(tenants_file: tuple[Path, dict[str, Any]]) -> None:
    path, made = tenants_file
    registry = Registries(path=str(path), reload=0.0)
    path.write_text('{"tenants": {"x": {"keys": [{"id": "k1", "sha256": "00", "scopes": ["root"]}]}}}')
    assert registry.principal(made["a_key"]["key"]).tenant == "portal-a"  # unknown scope: the file is refused


def test_unknown_scopes_are_refused_when_the_file_is_read() -> None:
    with pytest.raises(ValueError, match="unknown scopes"):
        Registry.from_json({"internal": {"x": [{"id": "k", "sha256": "0", "scopes": ["matchmaking"]}]}})
    assert "matchmaking" in TENANT_SCOPES and "notifications" in INTERNAL_SCOPES


# -- player tokens --------------------------------------------------------------------------------------------

def tokens_of(made: dict[str, Any], tenant: str) -> PlayerTokens:
    return PlayerTokens(made[tenant]["issuer"], made[tenant]["audience"], hs256_secret=made[tenant]["hs256_secret"])


def test_a_player_is_who_the_tenants_token_names(tenants_file: tuple[Path, dict[str, Any]]) -> None:
    path, made = tenants_file
    registry = Registries(path=str(path))
    player = registry.verify_player(issue_player_token(tokens_of(made, "a"), "alice"))
    assert (player.tenant, player.player_id) == ("portal-a", "alice")
    assert registry.verify_player(issue_player_token(tokens_of(made, "b"), "alice")).tenant == "portal-b"


def forged(made: dict[str, Any]) -> dict[str, str]:
    """Every token an attacker might try against portal-a, by what is wrong with it."""
    a = tokens_of(made, "a")
    now = int(time.time())
    good = {"iss": a.issuer, "aud": a.audience, "sub": "alice", "iat": now, "exp": now + 600}

    def sign(claims: dict[str, Any], key: str | None = None, **kw: Any) -> str:
        return jwt.encode(claims, key or made["a"]["hs256_secret"], algorithm="HS256", **kw)

    unsigned_header = base64.urlsafe_b64encode(b'{"alg":"none","typ":"JWT"}').rstrip(b"=").decode()
    body = base64.urlsafe_b64encode(json.dumps(good).encode()).rstrip(b"=").decode()
    return {
        "another tenant's secret": sign(good, made["b"]["hs256_secret"]),
        "a guessed secret": sign(good, "x" * 48),
        "expired": sign({**good, "iat": now - 700, "exp": now - 100}),
        "wrong audience": sign({**good, "aud": "someone-else"}),
        "unknown issuer": sign({**good, "iss": "evil"}),
        "no expiry": sign({k: v for k, v in good.items() if k != "exp"}),
        "no subject": sign({k: v for k, v in good.items() if k != "sub"}),
        "too long-lived": sign({**good, "exp": now + 30 * 86400}),
        "a subject that is no player id": sign({**good, "sub": "a\nb"}),
        "a name longer than a display name": sign({**good, "name": "n" * 65}),
        "a name with a bidirectional override": sign({**good, "name": "ann\u202e"}),
        "a name that is no string": sign({**good, "name": ["ann"]}),
        "alg none": f"{unsigned_header}.{body}.",
        "tampered payload": sign(good).rsplit(".", 2)[0] + "." + base64.urlsafe_b64encode(
            json.dumps({**good, "sub": "mallory"}).encode()).rstrip(b"=").decode() + "." + sign(good).rsplit(".", 1)[1],
        "not a jwt": "hello",
    }


def test_every_forged_player_token_is_refused(tenants_file: tuple[Path, dict[str, Any]]) -> None:
    path, made = tenants_file
    registry = Registries(path=str(path))
    for why, token in forged(made).items():
        with pytest.raises(InvalidPlayerToken) as caught:
            registry.verify_player(token)
        assert caught.value.status == 401, why


def test_a_tokens_name_claim_names_the_player(tenants_file: tuple[Path, dict[str, Any]]) -> None:
    """The name claim (OpenID Connect's) is what the matchmaker shows on the player's seats; without one, none."""
    path, made = tenants_file
    registry = Registries(path=str(path))
    assert registry.verify_player(issue_player_token(tokens_of(made, "a"), "ann", name="Ann Arbor")).name == "Ann Arbor"
    assert registry.verify_player(issue_player_token(tokens_of(made, "a"), "ann")).name is None


# -- a portal that signs with its own keys (JWKS) --------------------------------------------------------------

@pytest.fixture
def jwks_server() -> Iterator[tuple[str, Any, Any]]:
    """A portal's key set on a real loopback HTTP server: one Ed25519 key (kid "ed") and one RSA key ("rs")."""
    ed = Ed25519PrivateKey.generate()
    rs = generate_private_key(public_exponent=65537, key_size=2048)
    keys = []
    for kid, private, alg in (("ed", ed, "EdDSA"), ("rs", rs, "RS256")):
        jwk = json.loads(jwt.get_algorithm_by_name(alg).to_jwk(private.public_key()))
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
        yield f"{url}/.well-known/jwks.json", ed, rs


def hs256_by_hand(header: dict[str, Any], claims: dict[str, Any], key: bytes) -> str:
    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    signing = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
    return f"{signing}.{b64(hmac.new(key, signing.encode(), hashlib.sha256).digest())}"


def test_tokens_signed_with_the_portals_own_keys(tmp_path: Path, jwks_server: tuple[str, Any, Any]) -> None:
    url, ed, rs = jwks_server
    path = tmp_path / "tenants.json"
    keys_cli(path, "add-tenant", "portal-j", "--issuer", "https://portal-j.example", "--jwks-url", url)
    registry = Registries(path=str(path))
    now = int(time.time())
    claims = {"iss": "https://portal-j.example", "aud": "torres", "sub": "jo", "iat": now, "exp": now + 300}
    assert registry.verify_player(jwt.encode(claims, ed, algorithm="EdDSA", headers={"kid": "ed"})).player_id == "jo"
    assert registry.verify_player(jwt.encode(claims, rs, algorithm="RS256", headers={"kid": "rs"})).tenant == "portal-j"
    other = Ed25519PrivateKey.generate()
    attempts = {
        "a key not in the set": jwt.encode(claims, other, algorithm="EdDSA", headers={"kid": "ed"}),
        "an unknown kid": jwt.encode(claims, other, algorithm="EdDSA", headers={"kid": "zz"}),
        # algorithm confusion: HS256 keyed with the published public key (PyJWT will not sign this; an
        # attacker does it by hand)
        "HS256 with the public key": hs256_by_hand({"alg": "HS256", "typ": "JWT", "kid": "rs"}, claims,
                                                   rs.public_key().public_bytes(Encoding.PEM,
                                                                                PublicFormat.SubjectPublicKeyInfo)),
    }
    for why, token in attempts.items():
        with pytest.raises(InvalidPlayerToken):
            registry.verify_player(token)
        assert why


def test_the_single_key_default_is_one_tenant_with_the_dev_issuer() -> None:
    registries = Registries.from_env({"TORRES_PLAYER_TOKEN_SECRET": "s" * 40}, api_key="the-key")
    principal = registries.principal("the-key")
    assert principal.tenant == "default" and principal.may("games") and principal.may("ai")
    assert not principal.may("admin")  # hidden cards stay the operator admin key's
    tokens = registries.current.tenant("default").player_tokens
    assert registries.verify_player(issue_player_token(tokens, "me")).player_id == "me"


def test_a_player_token_secret_rotates_without_a_refusal(tenants_file: tuple[Path, dict[str, Any]]) -> None:
    """``rotate-secret``: tokens signed with the old secret and with the new one both verify (the portal
    switches over at its own pace); ``drop-old-secrets``: the old secret's tokens are refused, the new one's not.
    No secret is listed, and a tenant that signs with its own keys (JWKS) has no secret to rotate."""
    path, made = tenants_file
    registries = Registries(path=str(path), reload=0)
    old = registries.current.tenant("portal-a").player_tokens  # type: ignore[union-attr]
    assert old is not None
    signed_old = issue_player_token(old, "alice")
    rotated = keys_cli(path, "rotate-secret", "portal-a")
    assert rotated["previous_secrets"] == 1 and rotated["hs256_secret"] != made["a"]["hs256_secret"]
    new = registries.current.tenant("portal-a").player_tokens  # type: ignore[union-attr]
    assert new is not None and new.hs256_secret == rotated["hs256_secret"]
    signed_new = issue_player_token(new, "alice")
    assert registries.verify_player(signed_old).player_id == registries.verify_player(signed_new).player_id == "alice"
    listed = json.dumps(keys_cli(path, "list"))
    assert made["a"]["hs256_secret"] not in listed and rotated["hs256_secret"] not in listed
    assert keys_cli(path, "drop-old-secrets", "portal-a")["dropped_secrets"] == 1
    with pytest.raises(InvalidPlayerToken, match="does not verify"):
        registries.verify_player(signed_old)
    assert registries.verify_player(signed_new).tenant == "portal-a"
    forged = issue_player_token(replace(new, hs256_secret="x" * 48), "alice")  # a secret it never had
    with pytest.raises(InvalidPlayerToken, match="does not verify"):
        registries.verify_player(forged)

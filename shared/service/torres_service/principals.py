"""Who is calling: tenants (portals) with their API keys, internal services with theirs, and players named by
their portal in a signed token. One model for the game service and the matchmaker.

* A **tenant** is a portal. It holds any number of API keys at once, so a key is rotated without a window of
  401s: add the new key, switch the portal over, revoke the old one. Keys are stored as SHA-256 digests only
  (a key is 256 random bits, so a plain digest is enough: nothing to brute-force); each carries scopes.
* An **internal** principal is one of our own processes (the matcher, the AI workers, the ratings consumer):
  its own key and scopes, belonging to no tenant, so a leaked portal key never acts as the system.
* A **player** is whoever the tenant's signed token names (``sub``): a JWT signed with the tenant's HS256 secret
  or with a key from its JWKS URL, with issuer, audience, expiry and a bounded lifetime, checked by PyJWT.
  A request body never says who the player is.

Where it comes from: ``TORRES_TENANTS_FILE``, a JSON document (mounted from a Secret in production, written by
``python -m torres_service.keys``), re-read within ``TORRES_TENANTS_RELOAD`` seconds of a change, so keys are
added and revoked without a restart. Without it the single-key variables make one tenant, ``default``, with
every scope (``TORRES_API_KEY``) and the dev player-token secret (``TORRES_PLAYER_TOKEN_SECRET``): the
embedded default that keeps ``make run`` one command.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jwt

from .errors import ServiceError
from .fields import DISPLAY_NAME, PLAYER_ID
from .settings import Setting

log = logging.getLogger(__name__)

#: What a tenant's key may be allowed: create and end its games and read their lists and notifications
#: (``games``), read its games' whole logs before the end (``admin``), act for its games' AI seats (``ai``), use
#: the matchmaker's portal endpoints (``matchmaking``).
TENANT_SCOPES = frozenset({"games", "admin", "ai", "matchmaking"})
#: What an internal principal may be allowed, across every tenant: act for AI seats (``ai``), create games for a
#: tenant's matched players (``games``), read every tenant's notifications (``notifications``).
INTERNAL_SCOPES = frozenset({"ai", "games", "notifications"})
DEFAULT_TENANT = "default"
DEV_ISSUER = "torres-dev"
DEFAULT_AUDIENCE = "torres"
#: Asymmetric algorithms a JWKS may use; ``none`` and HS256-with-a-public-key confusion are never accepted.
JWKS_ALGORITHMS = ("EdDSA", "RS256", "ES256")


class InvalidCredentials(ServiceError):
    """An API key that no tenant or internal service holds (or holds no more)."""

    status, code, title = 401, "invalid_credentials", "The credentials are not valid"
    headers = (("WWW-Authenticate", 'Bearer realm="torres"'),)


class InvalidPlayerToken(ServiceError):
    """A player token that does not verify: bad signature, unknown issuer, wrong audience, expired, too long-lived,
    or naming no valid player. ``detail`` says which, so a portal developer can fix their issuer."""

    status, code, title = 401, "invalid_player_token", "The player token is not valid"
    headers = (("WWW-Authenticate", 'Bearer realm="torres", error="invalid_token"'),)


class MissingScope(ServiceError):
    status, code, title = 403, "insufficient_scope", "The key does not grant this operation"


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    """A fresh API key: 256 random bits, prefixed so a leaked one is recognisable in a secret scanner."""
    return "trs_" + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Principal:
    """Who presented a key: a tenant (``tenant`` set) or an internal service (``tenant`` None)."""

    name: str
    key_id: str
    scopes: frozenset[str]
    internal: bool = False

    @property
    def tenant(self) -> str | None:
        return None if self.internal else self.name

    def may(self, scope: str) -> bool:
        return scope in self.scopes

    def require(self, scope: str) -> None:
        if scope not in self.scopes:
            raise MissingScope(f"this key lacks the scope {scope!r}", scope=scope)


@dataclass(frozen=True)
class Player:
    """A player as the portal's token names them, within that portal."""

    tenant: str
    player_id: str
    expires_at: int
    #: The token's ``name`` claim (OpenID Connect's): what the portal calls the player, shown on their seats.
    name: str | None = None


@dataclass(frozen=True)
class PlayerTokens:
    """How a tenant signs its player tokens: an HS256 secret, or the keys at a JWKS URL."""

    issuer: str
    audience: str = DEFAULT_AUDIENCE
    hs256_secret: str | None = None
    jwks_url: str | None = None
    max_lifetime: int = 3600  # seconds from iat to exp: "short-lived" as a checked number
    leeway: int = 30  # clock skew allowed on exp/iat/nbf
    #: Secrets replaced by a rotation, still accepted until the portal has switched over and they are dropped
    #: (``python -m torres_service.keys rotate-secret`` / ``drop-old-secrets``): rotation without refusals.
    previous_hs256_secrets: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayerTokens:
        tokens = cls(issuer=data["issuer"], audience=data.get("audience", DEFAULT_AUDIENCE),
                     hs256_secret=data.get("hs256_secret"), jwks_url=data.get("jwks_url"),
                     max_lifetime=int(data.get("max_lifetime_seconds", 3600)),
                     leeway=int(data.get("leeway_seconds", 30)),
                     previous_hs256_secrets=tuple(data.get("previous_hs256_secrets", ())))
        if (tokens.hs256_secret is None) == (tokens.jwks_url is None):
            raise ValueError(f"issuer {tokens.issuer!r}: give exactly one of hs256_secret and jwks_url")
        if tokens.previous_hs256_secrets and tokens.hs256_secret is None:
            raise ValueError(f"issuer {tokens.issuer!r}: previous_hs256_secrets without an hs256_secret")
        for secret in (tokens.hs256_secret, *tokens.previous_hs256_secrets):
            if secret is not None and len(secret.encode()) < 32:
                raise ValueError(f"issuer {tokens.issuer!r}: an HS256 secret needs at least 32 bytes (RFC 7518 3.2)")
        return tokens

    def to_json(self) -> dict[str, Any]:
        data = {"issuer": self.issuer, "audience": self.audience, "hs256_secret": self.hs256_secret,
                "jwks_url": self.jwks_url, "max_lifetime_seconds": self.max_lifetime, "leeway_seconds": self.leeway,
                "previous_hs256_secrets": list(self.previous_hs256_secrets) or None}
        return {k: v for k, v in data.items() if v is not None}


@dataclass(frozen=True)
class ApiKey:
    id: str
    digest: str
    scopes: frozenset[str]

    @classmethod
    def from_json(cls, data: Mapping[str, Any], allowed: frozenset[str]) -> ApiKey:
        scopes = frozenset(data["scopes"])
        if not scopes <= allowed:
            raise ValueError(f"key {data['id']!r}: unknown scopes {sorted(scopes - allowed)}")
        return cls(id=data["id"], digest=data["sha256"], scopes=scopes)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "sha256": self.digest, "scopes": sorted(self.scopes)}


@dataclass(frozen=True)
class Webhook:
    """Where the game service posts a tenant's game webhooks, and the secret it signs them with: the
    portal chose the secret and verifies with it, so it is stored as given (``torres_service.webhooks.verify``)."""

    url: str
    secret: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Webhook:
        webhook = cls(url=data["url"], secret=data["secret"])
        if not webhook.url.startswith(("https://", "http://")):
            raise ValueError(f"webhook url {webhook.url!r}: an http(s) URL")
        if len(webhook.secret.encode()) < 16:
            raise ValueError("a webhook secret needs at least 16 bytes")
        return webhook

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "secret": self.secret}


@dataclass(frozen=True)
class Tenant:
    name: str
    keys: tuple[ApiKey, ...] = ()
    player_tokens: PlayerTokens | None = None
    shared_pool: bool = False  # matchmaking: pair this tenant's players with other opted-in tenants' players
    webhook: Webhook | None = None  # the game service's webhooks for this tenant's games


@dataclass(frozen=True)
class Registry:
    """One reading of the tenants document: every key by its digest, every tenant by its token issuer."""

    tenants: Mapping[str, Tenant]
    internal: Mapping[str, tuple[ApiKey, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        by_digest: dict[str, Principal] = {}
        for tenant in self.tenants.values():
            for key in tenant.keys:
                by_digest[key.digest] = Principal(tenant.name, key.id, key.scopes)
        for name, keys in self.internal.items():
            for key in keys:
                by_digest[key.digest] = Principal(name, key.id, key.scopes, internal=True)
        issuers = [t.player_tokens.issuer for t in self.tenants.values() if t.player_tokens is not None]
        if len(set(issuers)) != len(issuers):
            raise ValueError("two tenants share a player-token issuer")
        object.__setattr__(self, "_by_digest", by_digest)
        object.__setattr__(self, "_by_issuer", {t.player_tokens.issuer: t for t in self.tenants.values()
                                                if t.player_tokens is not None})

    # -- reading and writing the document --------------------------------------------------------------

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Registry:
        tenants = {
            name: Tenant(name, tuple(ApiKey.from_json(k, TENANT_SCOPES) for k in t.get("keys", [])),
                         PlayerTokens.from_json(t["player_tokens"]) if t.get("player_tokens") else None,
                         bool(t.get("shared_pool", False)),
                         Webhook.from_json(t["webhook"]) if t.get("webhook") else None)
            for name, t in data.get("tenants", {}).items()
        }
        internal = {name: tuple(ApiKey.from_json(k, INTERNAL_SCOPES) for k in keys)
                    for name, keys in data.get("internal", {}).items()}
        return cls(tenants, internal)

    def to_json(self) -> dict[str, Any]:
        return {
            "tenants": {
                t.name: {"keys": [k.to_json() for k in t.keys],
                         **({"player_tokens": t.player_tokens.to_json()} if t.player_tokens else {}),
                         **({"shared_pool": True} if t.shared_pool else {}),
                         **({"webhook": t.webhook.to_json()} if t.webhook else {})}
                for t in self.tenants.values()
            },
            "internal": {name: [k.to_json() for k in keys] for name, keys in self.internal.items()},
        }

    @classmethod
    def single_key(cls, api_key: str, player_token_secret: str | None = None,
                   webhook: Webhook | None = None) -> Registry:
        """The embedded default: one tenant whose one key may do what a key did before tenants, tenant and
        internal scopes alike (the matcher and the AI workers present the same key), and the dev issuer's secret.
        Not ``admin``: reading hidden information before the end stays the operator's admin key's alone, as it
        was, because this key also sits in portals' lobbies (``make run`` hands it to the browser). ``webhook``:
        where its game webhooks go (``TORRES_WEBHOOK_URL``), if anywhere."""
        key = ApiKey("env", key_digest(api_key), (TENANT_SCOPES - {"admin"}) | INTERNAL_SCOPES)
        tokens = PlayerTokens(DEV_ISSUER, hs256_secret=player_token_secret) if player_token_secret else None
        return cls({DEFAULT_TENANT: Tenant(DEFAULT_TENANT, (key,), tokens, webhook=webhook)})

    # -- questions -------------------------------------------------------------------------------------

    def principal(self, api_key: str) -> Principal:
        """The holder of ``api_key``, or InvalidCredentials. Looked up by digest: the comparison is of
        SHA-256 values an attacker cannot steer, so a dictionary look-up leaks nothing usable."""
        found: Principal | None = self._by_digest.get(key_digest(api_key))  # type: ignore[attr-defined]
        if found is None:
            raise InvalidCredentials("no tenant or service holds this key (unknown or revoked)")
        return found

    def tenant(self, name: str) -> Tenant | None:
        return self.tenants.get(name)

    def verify_player(self, token: str) -> Player:
        """The player a tenant's token names, after PyJWT checked signature, issuer, audience, expiry and
        issue time; the lifetime (exp - iat) is bounded so a portal cannot mint tokens that never end."""
        try:
            claimed = jwt.decode(token, options={"verify_signature": False})
        except jwt.InvalidTokenError as exc:
            raise InvalidPlayerToken(f"not a JWT: {exc}") from None
        issuer = claimed.get("iss")
        # Only a string names an issuer; any other JSON value (a list or an object is unhashable) names none.
        tenant = self._by_issuer.get(issuer) if isinstance(issuer, str) else None  # type: ignore[attr-defined]
        if tenant is None:
            raise InvalidPlayerToken("no tenant issues player tokens as this token's issuer (iss)")
        config: PlayerTokens = tenant.player_tokens
        try:
            if config.hs256_secret is not None:
                keys: list[Any] = [config.hs256_secret, *config.previous_hs256_secrets]
                algorithms = ["HS256"]
            else:
                # The key the header's ``kid`` names decides the algorithm (its JWK ``alg``, else its type and
                # curve): a header that claims another algorithm for it is refused, not handed to a key of the
                # wrong kind.
                found = _jwks_client(config.jwks_url).get_signing_key_from_jwt(token)  # type: ignore[arg-type]
                if found.algorithm_name not in JWKS_ALGORITHMS:
                    raise InvalidPlayerToken(f"the portal's key {found.key_id!r} is for {found.algorithm_name}, "
                                             f"not one of {', '.join(JWKS_ALGORITHMS)}")
                keys = [found.key]
                algorithms = [found.algorithm_name]
            for n, key in enumerate(keys):  # the current secret, then those a rotation replaced
                try:
                    claims = jwt.decode(token, key, algorithms=algorithms, audience=config.audience,
                                        issuer=config.issuer, leeway=config.leeway,
                                        options={"require": ["exp", "iat", "iss", "aud", "sub"]})
                    break
                except jwt.InvalidSignatureError:
                    if n == len(keys) - 1:
                        raise
        except jwt.ExpiredSignatureError:
            raise InvalidPlayerToken("the player token has expired") from None
        except jwt.InvalidAudienceError:
            raise InvalidPlayerToken(f"the player token's audience (aud) must be {config.audience!r}") from None
        except jwt.PyJWTError as exc:  # every refusal of PyJWT's, key and key-set errors too
            raise InvalidPlayerToken(f"the player token does not verify: {exc}") from None
        if not isinstance(claims["exp"], int | float) or not isinstance(claims["iat"], int | float) \
                or claims["exp"] - claims["iat"] > config.max_lifetime:
            raise InvalidPlayerToken(f"a player token may live at most {config.max_lifetime} s (exp - iat)")
        if not PLAYER_ID.accepts(claims["sub"]):
            raise InvalidPlayerToken(f"the token's subject (sub) is not a player id: {PLAYER_ID.message}")
        name = claims.get("name")
        if name is not None and not DISPLAY_NAME.accepts(name):
            raise InvalidPlayerToken(f"the token's name claim is not a display name: {DISPLAY_NAME.message}")
        return Player(tenant.name, claims["sub"], int(claims["exp"]), name)


_JWKS: dict[str, jwt.PyJWKClient] = {}
_JWKS_LOCK = threading.Lock()


def _jwks_client(url: str) -> jwt.PyJWKClient:
    """One caching JWKS client per URL per process (PyJWKClient caches the key set and refetches on an unknown
    ``kid``), so verifying a token costs no request in the common case."""
    with _JWKS_LOCK:
        client = _JWKS.get(url)
        if client is None:
            client = _JWKS[url] = jwt.PyJWKClient(url, cache_keys=True, lifespan=300, timeout=5)
        return client


def issue_player_token(tokens: PlayerTokens, player_id: str, *, lifetime: int = 900, now: float | None = None,
                       **claims: Any) -> str:
    """A player token signed with a tenant's HS256 secret: what a portal's server does (docs/security.md shows
    it in ten lines), and what the embedded dev issuer does for ``make run`` and the tests."""
    if tokens.hs256_secret is None:
        raise ValueError("this tenant's tokens are signed by the portal's own keys (JWKS), not here")
    issued = int(time.time() if now is None else now)
    payload = {"iss": tokens.issuer, "aud": tokens.audience, "sub": player_id, "iat": issued,
               "exp": issued + lifetime, **claims}
    return jwt.encode(payload, tokens.hs256_secret, algorithm="HS256")


#: Who is calling (docs/security.md): the settings every HTTP service reads, declared once here.
TENANTS_FILE = Setting("TORRES_TENANTS_FILE", "the tenants file `python -m torres_service.keys` writes: portals' "
                       "and internal services' keys (hashes), scopes and player-token issuers; unset: "
                       "`TORRES_API_KEY` is the one tenant's key (`python -m torres_service.keys` without `--file`: "
                       "`tenants.json`)", default="")
TENANTS_RELOAD = Setting("TORRES_TENANTS_RELOAD", "seconds within which a changed tenants file is re-read (keys "
                         "added or revoked take effect without a restart)", default=1.0)
API_KEY = Setting("TORRES_API_KEY", "without a tenants file, the one API key (`X-API-Key`), of tenant `default` "
                  "with every scope but `admin`; generated and logged at start when unset (under gunicorn set it: "
                  "each worker would generate its own)", default="")
WEBHOOK_URL = Setting("TORRES_WEBHOOK_URL", "without a tenants file, where the game service posts tenant "
                      "`default`'s game webhooks (docs/integration.md); unset: none are written", default="")
WEBHOOK_SECRET = Setting("TORRES_WEBHOOK_SECRET", "without a tenants file, the secret (at least 16 bytes) tenant "
                         "`default`'s webhooks are signed with (`TORRES_WEBHOOK_URL` needs it)", default="")
PLAYER_TOKEN_SECRET = Setting("TORRES_PLAYER_TOKEN_SECRET", "without a tenants file, the HS256 secret (at least 32 "
                              "bytes) tenant `default`'s player tokens are signed with; unset: none verifies",
                              default="")


class Registries:
    """The current registry, re-read from its file within ``reload`` seconds of a change (a key added or
    revoked takes effect without a restart); a file that does not parse is logged and the last good reading
    stays. Without a file, a fixed registry."""

    def __init__(self, fixed: Registry | None = None, path: str | None = None, reload: float = 1.0) -> None:
        if (fixed is None) == (path is None):
            raise ValueError("a fixed registry or a file, not both")
        self.path = path
        self.reload = reload
        self._lock = threading.Lock()
        self._checked = 0.0
        self._stamp: tuple[int, int, int] | None = None
        self._current = fixed if fixed is not None else self._read()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, api_key: str = "") -> Registries:
        """``TORRES_TENANTS_FILE`` when set, else the single-key default built from ``api_key`` (the service's
        own setting, generated when unset), ``TORRES_PLAYER_TOKEN_SECRET`` and ``TORRES_WEBHOOK_URL`` with
        ``TORRES_WEBHOOK_SECRET``."""
        env = os.environ if env is None else env
        path = TENANTS_FILE.read(env)
        if path:
            return cls(path=path, reload=TENANTS_RELOAD.read(env))
        url = WEBHOOK_URL.read(env)
        webhook = Webhook.from_json({"url": url, "secret": WEBHOOK_SECRET.read(env)}) if url else None
        return cls(Registry.single_key(api_key, PLAYER_TOKEN_SECRET.read(env) or None, webhook))

    def _read(self) -> Registry:
        assert self.path is not None
        stat = os.stat(self.path)
        with open(self.path, encoding="utf-8") as fh:
            registry = Registry.from_json(json.load(fh))
        self._stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        return registry

    @property
    def current(self) -> Registry:
        if self.path is None or time.monotonic() - self._checked < self.reload:
            return self._current
        with self._lock:
            self._checked = time.monotonic()
            try:
                stat = os.stat(self.path)
                if (stat.st_ino, stat.st_mtime_ns, stat.st_size) != self._stamp:
                    self._current = self._read()
                    log.info("tenants file re-read", extra={"path": self.path})
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.error("tenants file unreadable; keeping the last good one",
                          extra={"path": self.path, "error": f"{type(exc).__name__}: {exc}"})
        return self._current

    def principal(self, api_key: str) -> Principal:
        return self.current.principal(api_key)

    def verify_player(self, token: str) -> Player:
        return self.current.verify_player(token)

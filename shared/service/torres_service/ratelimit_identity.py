"""Rate limits, settings and identity: what the limits and caps are (:class:`Settings`, from the environment),
and who a request is counted as (:class:`Identity`: its address, its tenant, its player). The counting is
:mod:`.ratelimit_counts`; the guard that applies both to every request is :mod:`.ratelimits`."""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from limits import parse_many

from .principals import TENANT_SCOPES, InvalidCredentials, InvalidPlayerToken, Registries
from .redis_urls import limits_storage
from .settings import Setting, values

#: The identity classes, in the order their limits are reported.
CLASSES = ("address", "tenant", "player")

#: Each setting's variable and meaning (docs/settings.md; docs/security.md, "Rate limits and stream caps"); the
#: defaults are the fields'.
VARIABLES = {
    "enabled": Setting("TORRES_RATELIMIT_ENABLED", "`0` turns rate limits and stream caps off"),
    "address": Setting("TORRES_RATELIMIT_ADDRESS", "requests per client address (flask-limiter's notation; "
                       "`off`: none); past it 429 `rate_limited` with `Retry-After`"),
    "tenant": Setting("TORRES_RATELIMIT_TENANT", "requests per tenant (all its API keys)"),
    "player": Setting("TORRES_RATELIMIT_PLAYER", "requests per seat, spectator or player token"),
    "exempt": Setting("TORRES_RATELIMIT_EXEMPT", "addresses and networks never limited (empty: none)"),
    "storage_uri": Setting("TORRES_RATELIMIT_STORAGE_URI", "where requests are counted (a Redis is shared by "
                           "workers and replicas; while it fails, counted in memory)",
                           shown="the service's Redis (game: `CELERY_BROKER_URL`, matchmaking: `REDIS_URL`), "
                           "else `memory://`"),
    "strategy": Setting("TORRES_RATELIMIT_STRATEGY", "flask-limiter's strategy"),
    "shared": Setting("TORRES_RATELIMIT_SHARED", "the classes counted in that storage; the others per process "
                      "(no Redis round trip, a budget per worker and replica); `tenant` keeps a player's request "
                      "off Redis"),
    "trusted_proxies": Setting("TORRES_TRUSTED_PROXIES", "proxies in front that append to `X-Forwarded-For` (an "
                               "ingress: `1`): the client's address is the last trusted one's entry; `0`: the "
                               "header is not believed"),
    "streams_per_address": Setting("TORRES_MAX_STREAMS_PER_ADDRESS", "open waits and streams per address in one "
                                   "process; past it 429 `too_many_streams_for_client`; `0`: no cap"),
    "streams_per_tenant": Setting("TORRES_MAX_STREAMS_PER_TENANT", "open waits and streams per tenant in one "
                                  "process"),
    "streams_per_player": Setting("TORRES_MAX_STREAMS_PER_PLAYER", "open waits and streams per token or player "
                                  "in one process"),
}
#: The environment variable of each setting, named in the errors.
SETTINGS = {name: s.var for name, s in VARIABLES.items()}


# -- settings ---------------------------------------------------------------------------------------------------

def _off(value: str) -> bool:
    return value.strip().lower() in ("", "0", "off", "false", "no", "none")


@dataclass(frozen=True)
class Settings:
    """What the limits are. The defaults are far above what a person playing does (a few requests a second, one
    or two streams) and bound what a script may: a player 30 requests a second, an address 60, a portal's
    server 600; a player 8 open streams per process, an address 256, a tenant 5 000 (of the process's 10 000).
    A limit is flask-limiter's notation (``"300 per 10 seconds"``, ``"20/second;600/minute"``); empty or
    ``off`` turns that class off, as a cap of 0 does."""

    enabled: bool = True
    address: str = "600 per 10 seconds"
    tenant: str = "6000 per 10 seconds"
    player: str = "300 per 10 seconds"
    exempt: tuple[str, ...] = ("127.0.0.0/8", "::1/128")
    storage_uri: str = "memory://"
    strategy: str = "fixed-window"
    trusted_proxies: int = 0
    streams_per_address: int = 256
    streams_per_tenant: int = 5000
    streams_per_player: int = 8
    shared: tuple[str, ...] = CLASSES
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = field(init=False, repr=False,
                                                                                compare=False)

    def __post_init__(self) -> None:
        for name in CLASSES:
            value = getattr(self, name)
            if not _off(value):
                try:
                    parse_many(value)
                except ValueError:
                    raise ValueError(f"{SETTINGS[name]}={value!r} is no rate limit (e.g. '300 per 10 seconds', "
                                     f"or 'off')") from None
        if not set(self.shared) <= set(CLASSES):
            raise ValueError(f"{SETTINGS['shared']}={','.join(self.shared)!r}: a comma-separated subset of "
                             f"{','.join(CLASSES)}")
        for name in ("trusted_proxies", "streams_per_address", "streams_per_tenant", "streams_per_player"):
            if getattr(self, name) < 0:
                raise ValueError(f"{SETTINGS[name]} must not be negative")
        try:
            networks = tuple(ipaddress.ip_network(item.strip(), strict=False) for item in self.exempt if item.strip())
        except ValueError as exc:
            raise ValueError(f"{SETTINGS['exempt']}: {exc}") from None
        object.__setattr__(self, "networks", networks)

    def limit(self, name: str) -> str | None:
        value: str = getattr(self, name)
        return None if _off(value) else value

    def cap(self, name: str) -> int:
        return int(getattr(self, f"streams_per_{name}"))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, storage_uri: str = "memory://") -> Settings:
        """The settings from ``TORRES_*`` variables, read when the app is built; ``storage_uri`` is the service's
        default storage (its Redis in the scale-out configuration), which ``TORRES_RATELIMIT_STORAGE_URI``
        overrides."""
        read = values(cls, env, VARIABLES)
        return cls(**{**read, "storage_uri": read.get("storage_uri") or storage_uri})

def redis_storage_uri(url: str, *, cluster: bool = False) -> str:
    """flask-limiter's storage URI for a service's Redis URL (``redis+cluster://`` for a cluster); ``memory://``
    without one (the embedded default, one process)."""
    if not url:
        return "memory://"
    if cluster and url.startswith(("redis://", "rediss://")):
        return "redis+cluster://" + url.split("://", 1)[1]
    return limits_storage(url)


# -- who is calling -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Identity:
    """The request's identities, one per class; None where the request has none (or is not limited in it)."""

    exempt: bool
    address: str
    tenant: str | None
    player: str | None

    def of(self, name: str) -> str | None:
        return None if self.exempt else getattr(self, name)


#: How a service names the player of a request's bearer token (None: none, or not one it can verify).
PlayerOf = Callable[[str], str | None]


def token_digest(token: str) -> str | None:
    """The game service's player identity: the bearer token's SHA-256 digest (a seat or a spectator token).
    Safe unverified: only whoever holds the token can spend its budget."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


class VerifiedPlayers:
    """The matchmaker's player identity: the tenant and player id of a token the registry verifies, else None.

    Verifying a JWT costs tens of microseconds (and for a JWKS tenant a key look-up), so a verified token is
    remembered until it expires, for the registry it was verified against (a re-read registry verifies again).
    A token that does not verify is not remembered: its requests are counted by address."""

    def __init__(self, registries: Registries, size: int = 4096) -> None:
        self.registries = registries
        self.size = size
        self._known: dict[str, tuple[object, str, int]] = {}

    def __call__(self, token: str) -> str | None:
        registry = self.registries.current
        known = self._known.get(token)
        now = time.time()
        if known is not None and known[0] is registry and known[2] > now:
            return known[1]
        try:
            player = registry.verify_player(token)
        except InvalidPlayerToken:
            return None
        if len(self._known) >= self.size:
            self._known.clear()  # a crude bound; a player's next request verifies once more
        name = f"{player.tenant}/{player.player_id}"
        self._known[token] = (registry, name, player.expires_at)
        return name


#: What :func:`key_holder` says of a key that belongs to our own services.
SYSTEM = "<system>"


def key_holder(registries: Registries | None, api_key: str) -> str | None:
    """Who holds an API key: its tenant, :data:`SYSTEM` for our own services' keys -- internal principals, and a key
    with scopes no tenant may hold (the single-key default's, which the matcher presents too) -- or None for a key
    nobody holds (or without a registry)."""
    if registries is None:
        return None
    try:
        principal = registries.principal(api_key)
    except InvalidCredentials:
        return None
    if principal.internal or not principal.scopes <= TENANT_SCOPES:
        return SYSTEM
    return principal.tenant


def tenant_of(registries: Registries | None, api_key: str) -> str | None:
    """The tenant an API key counts for: None for a key nobody holds and for our own services' keys."""
    holder = key_holder(registries, api_key)
    return None if holder == SYSTEM else holder


@functools.lru_cache(maxsize=4096)
def address_exempt(address: str, networks: tuple[Any, ...]) -> bool:
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in networks)


def bearer(header: str | None) -> str | None:
    """The token of ``Bearer <token>``, else None (a malformed header is the input guard's 401, after this)."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token and " " not in token else None



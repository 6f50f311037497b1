"""Configuration from environment variables, with defaults that run on a bare machine.

``REDIS_URL`` unset means "embedded": the very same code talks to an in-process fakeredis server
(with Lua), so there is one matching implementation whether or not a real Redis is around.
Nothing reads the environment at import time; entry points call :meth:`Config.from_env`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

EDITIONS = ("rio_grande", "ravensburger", "yucata")
PLAYER_COUNTS = (2, 3, 4)
#: Tickets only ever meet tickets of the same pool; a pool is the unit of partitioning (one Redis Cluster
#: hash slot, one matcher lease). Its index is a ticket id's first hex digit, so an id finds its pool.
POOLS = tuple((e, m) for e in EDITIONS for m in (False, True))


def _flag(value: str) -> bool:
    return value.strip().lower() not in ("0", "false", "no", "")


@dataclass(frozen=True)
class Config:
    """Everything the API and the matcher need. Immutable; use ``with_()`` for variants."""

    redis_url: str = ""  # "" → in-process fakeredis
    redis_cluster: bool = False  # REDIS_URL names one node of a Redis Cluster
    key_prefix: str = "mm:"
    game_service_url: str = "http://127.0.0.1:8000"
    game_service_api_key: str = ""
    game_service_timeout: float = 5.0
    ticket_ttl: float = 300.0  # an unmatched ticket expires after this many seconds
    default_max_wait: float = 60.0  # seconds before AI seats may fill, when the ticket does not say
    result_ttl: int = 3600  # how long a finished ticket (matched/cancelled/expired) stays readable
    window_base: float = 3.0  # rating window (openskill mu units) at zero wait
    window_growth: float = 0.5  # ... widening per second of waiting
    window_max: float = 25.0
    tick_seconds: float = 0.2
    claim_timeout: float = 60.0  # a group stuck this long may be left by a cancel (see TicketService.cancel)
    #: Rating bands (mu) dividing each pool into units of work: edges between bands (default 4 bands, about the
    #: quartiles of a N(25, 6) player base). A matcher reads its bands plus ``band_margin`` above them, so
    #: groups across a band edge still form; a group belongs to the band of its lowest rating.
    band_edges: tuple[float, ...] = (21.0, 25.0, 29.0)
    band_margin: float = 3.0
    chore_seconds: float = 1.0  # how often a pool's expiry sweep, due groups and orphans are looked at
    lease_seconds: float = 3.0  # a matcher's hold on a pool lapses this long after its last renewal
    retry_delay: float = 1.0  # first back-off after the game service failed (doubles, capped)
    retry_delay_max: float = 15.0
    create_concurrency: int = 8
    ratings_poll_seconds: float = 1.0
    webhook_secret: str = ""  # signs ticket callbacks (X-Torres-Signature); "" = callbacks refused
    webhook_timeout: float = 5.0
    webhook_attempts: int = 8  # deliveries of one callback before giving up (back-off doubles from 1 s)
    max_streams: int = 10_000  # open ticket waits and streams per API process (beyond: 503 too_many_streams)
    # Who is calling (issue 26, torres_service.principals): the tenants file, or else the single-key default --
    # tenant "default" holding ``api_key`` (TORRES_API_KEY; generated when unset, so no empty key ever passes) and
    # signing its players' tokens with ``player_token_secret`` (TORRES_PLAYER_TOKEN_SECRET, >= 32 bytes; unset:
    # no player token verifies, so no ticket can be made).
    tenants_file: str = ""
    tenants_reload: float = 1.0
    api_key: str = field(default="", repr=False)
    player_token_secret: str = field(default="", repr=False)
    dev_issuer: bool = False  # POST /v1/dev/player-tokens (TORRES_DEV_ISSUER=1): `make run` only
    dev_token_lifetime: int = 900  # seconds a dev-issued player token lives
    stream_ticket_ttl: float = 60.0  # seconds a browser's single-use stream ticket stays valid
    log_level: str = "INFO"
    json_logs: bool = True

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Config:
        e = dict(os.environ if env is None else env)
        d = cls()
        return cls(
            redis_url=e.get("REDIS_URL", ""),
            redis_cluster=_flag(e.get("REDIS_CLUSTER", "0")),
            key_prefix=e.get("MM_KEY_PREFIX", d.key_prefix),
            game_service_url=e.get("GAME_SERVICE_URL", d.game_service_url).rstrip("/"),
            game_service_api_key=e.get("GAME_SERVICE_API_KEY", e.get("TORRES_API_KEY", "")),
            game_service_timeout=float(e.get("GAME_SERVICE_TIMEOUT", d.game_service_timeout)),
            ticket_ttl=float(e.get("MM_TICKET_TTL", d.ticket_ttl)),
            default_max_wait=float(e.get("MM_DEFAULT_MAX_WAIT", d.default_max_wait)),
            result_ttl=int(e.get("MM_RESULT_TTL", d.result_ttl)),
            window_base=float(e.get("MM_WINDOW_BASE", d.window_base)),
            window_growth=float(e.get("MM_WINDOW_GROWTH", d.window_growth)),
            window_max=float(e.get("MM_WINDOW_MAX", d.window_max)),
            tick_seconds=float(e.get("MM_TICK_SECONDS", d.tick_seconds)),
            claim_timeout=float(e.get("MM_CLAIM_TIMEOUT", d.claim_timeout)),
            band_edges=tuple(sorted(float(x) for x in e["MM_BAND_EDGES"].split(",") if x.strip()))
            if "MM_BAND_EDGES" in e else d.band_edges,
            band_margin=float(e.get("MM_BAND_MARGIN", d.band_margin)),
            chore_seconds=float(e.get("MM_CHORE_SECONDS", d.chore_seconds)),
            lease_seconds=float(e.get("MM_LEASE_SECONDS", d.lease_seconds)),
            retry_delay=float(e.get("MM_RETRY_DELAY", d.retry_delay)),
            retry_delay_max=float(e.get("MM_RETRY_DELAY_MAX", d.retry_delay_max)),
            create_concurrency=int(e.get("MM_CREATE_CONCURRENCY", d.create_concurrency)),
            ratings_poll_seconds=float(e.get("MM_RATINGS_POLL_SECONDS", d.ratings_poll_seconds)),
            webhook_secret=e.get("MM_WEBHOOK_SECRET", ""),
            webhook_timeout=float(e.get("MM_WEBHOOK_TIMEOUT", d.webhook_timeout)),
            webhook_attempts=int(e.get("MM_WEBHOOK_ATTEMPTS", d.webhook_attempts)),
            max_streams=int(e.get("MM_MAX_STREAMS", d.max_streams)),
            tenants_file=e.get("TORRES_TENANTS_FILE", ""),
            tenants_reload=float(e.get("TORRES_TENANTS_RELOAD", d.tenants_reload)),
            api_key=e.get("TORRES_API_KEY", ""),
            player_token_secret=e.get("TORRES_PLAYER_TOKEN_SECRET", ""),
            dev_issuer=_flag(e.get("TORRES_DEV_ISSUER", "0")),
            dev_token_lifetime=int(e.get("TORRES_DEV_TOKEN_LIFETIME", d.dev_token_lifetime)),
            stream_ticket_ttl=float(e.get("MM_STREAM_TICKET_TTL", d.stream_ticket_ttl)),
            log_level=e.get("LOG_LEVEL", d.log_level),
            json_logs=_flag(e.get("MM_JSON_LOGS", "1")),
        )

    def with_(self, **changes: object) -> Config:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def placement_window(self) -> float:
        """How long a matcher may take to place a group it took (two creation attempts, and a second) before
        another may take it over: a dead matcher's players wait this long, not the whole claim timeout. A
        takeover of a live matcher's group is harmless — both ask for the same game."""
        return min(self.claim_timeout, 2 * self.game_service_timeout + 1.0)

    @property
    def embedded(self) -> bool:
        return not self.redis_url

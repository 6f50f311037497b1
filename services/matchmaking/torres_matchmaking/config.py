"""Configuration from environment variables, with defaults that run on a bare machine.

``REDIS_URL`` unset means "embedded": the very same code talks to an in-process fakeredis server
(with Lua), so there is one matching implementation whether or not a real Redis is around.
Nothing reads the environment at import time; entry points call :meth:`Config.from_env`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from torres_rules.editions import EDITIONS
from torres_service.http_settings import HTTP_SETTINGS
from torres_service.logs import LOG_LEVEL
from torres_service.principals import API_KEY, PLAYER_TOKEN_SECRET, TENANTS_FILE, TENANTS_RELOAD
from torres_service.settings import Process, Setting, items, setting, values
from torres_service.webhooks import ALLOW_NETWORKS

PLAYER_COUNTS = (2, 3, 4)
#: Tickets only ever meet tickets of the same pool; a pool is the unit of partitioning (one Redis Cluster
#: hash slot, one matcher lease). Its index is a ticket id's first hex digit, so an id finds its pool.
POOLS = tuple((e, m) for e in EDITIONS for m in (False, True))


def _band_edges(raw: str) -> tuple[float, ...]:
    try:
        return tuple(sorted(float(item) for item in items(raw)))
    except ValueError:
        raise ValueError("is not a comma-separated list of numbers") from None


def _url(raw: str) -> str:
    return raw.rstrip("/")


@dataclass(frozen=True)
class Config:
    """Everything the API and the matcher need. Immutable; use ``with_()`` for variants. Each field that is a
    setting declares its variable and meaning here, once (docs/settings.md is generated from them)."""

    redis_url: str = field(default="", metadata=setting(
        "REDIS_URL", "the Redis that keeps tickets, groups and ratings (`redis://…`, or a master watched by Redis "
        "Sentinel: `redis+sentinel://sentinel1:26379,sentinel2:26379/<master>[?db=N]`); unset: an in-process "
        "fakeredis (one process: `serve` runs the matcher and the ratings consumer in threads)"))
    redis_cluster: bool = field(default=False, metadata=setting(
        "REDIS_CLUSTER", "`REDIS_URL` names one node of a Redis Cluster"))
    redis_wait_replicas: int = field(default=0, metadata=setting(
        "MM_REDIS_WAIT_REPLICAS", "replicas that must hold each write (`WAIT`) before it counts: a ticket "
        "acknowledged then survives a Sentinel failover; 1 with Sentinel and two replicas (docs/operations.md, "
        "Failover); 0: none waited for"))
    redis_wait_timeout: float = field(default=1.0, metadata=setting(
        "MM_REDIS_WAIT_TIMEOUT", "seconds a write waits for `MM_REDIS_WAIT_REPLICAS`; then 503 `store_unavailable`"))
    key_prefix: str = field(default="mm:", metadata=setting("MM_KEY_PREFIX", "the prefix of every Redis key"))
    game_service_url: str = field(default="http://127.0.0.1:8000", metadata=setting(
        "GAME_SERVICE_URL", "the game service the matcher creates games in", parse=_url))
    game_service_api_key: str = field(default="", metadata=setting(
        "GAME_SERVICE_API_KEY", "this process's key in the game service (with a tenants file: the matcher's "
        "internal key with scope `games`, the ratings consumer's with `notifications`)", also=("TORRES_API_KEY",)))
    game_service_timeout: float = field(default=5.0, metadata=setting(
        "GAME_SERVICE_TIMEOUT", "seconds a call to the game service may take"))
    ticket_ttl: float = field(default=300.0, metadata=setting(
        "MM_TICKET_TTL", "seconds after which an unmatched ticket expires"))
    default_max_wait: float = field(default=60.0, metadata=setting(
        "MM_DEFAULT_MAX_WAIT", "seconds before AI seats may fill a group, when the ticket does not say"))
    result_ttl: int = field(default=3600, metadata=setting(
        "MM_RESULT_TTL", "seconds a finished ticket (matched, cancelled, expired) stays readable"))
    window_base: float = field(default=3.0, metadata=setting(
        "MM_WINDOW_BASE", "rating window (openskill mu) at zero wait"))
    window_growth: float = field(default=0.5, metadata=setting(
        "MM_WINDOW_GROWTH", "widening of the rating window per second of waiting (mu)"))
    window_max: float = field(default=25.0, metadata=setting("MM_WINDOW_MAX", "the widest rating window (mu)"))
    tick_seconds: float = field(default=0.2, metadata=setting("MM_TICK_SECONDS", "seconds between two matcher passes"))
    claim_timeout: float = field(default=60.0, metadata=setting(
        "MM_CLAIM_TIMEOUT", "seconds after which a player of a stuck group may cancel; a group not placed within "
        "min(this, 2 × `GAME_SERVICE_TIMEOUT` + 1 s) is taken over by another matcher"))
    #: Rating bands (mu) dividing each pool into units of work: edges between bands (default 4 bands, about the
    #: quartiles of a N(25, 6) player base). A matcher reads its bands plus ``band_margin`` above them, so
    #: groups across a band edge still form; a group belongs to the band of its lowest rating.
    band_edges: tuple[float, ...] = field(default=(21.0, 25.0, 29.0), metadata=setting(
        "MM_BAND_EDGES", "edges (mu) between the rating bands that divide each pool into units of work "
        "(docs/matchmaking.md, Partitioning)", parse=_band_edges))
    band_margin: float = field(default=3.0, metadata=setting(
        "MM_BAND_MARGIN", "mu a matcher reads above its bands, so groups across a band edge still form"))
    chore_seconds: float = field(default=1.0, metadata=setting(
        "MM_CHORE_SECONDS", "how often a pool's expiry sweep, due groups and orphans are looked at"))
    lease_seconds: float = field(default=3.0, metadata=setting(
        "MM_LEASE_SECONDS", "a matcher's hold on a pool lapses this many seconds after its last renewal"))
    retry_delay: float = field(default=1.0, metadata=setting(
        "MM_RETRY_DELAY", "first back-off (seconds) after the game service failed; doubles"))
    retry_delay_max: float = field(default=15.0, metadata=setting("MM_RETRY_DELAY_MAX", "the longest back-off"))
    create_concurrency: int = field(default=8, metadata=setting(
        "MM_CREATE_CONCURRENCY", "games a matcher creates at once"))
    ratings_poll_seconds: float = field(default=1.0, metadata=setting(
        "MM_RATINGS_POLL_SECONDS", "how often the ratings consumer reads the game service's notifications"))
    webhook_secret: str = field(default="", metadata=setting(
        "MM_WEBHOOK_SECRET", "signs ticket callbacks (`X-Torres-Signature`); unset: callbacks refused"))
    webhook_timeout: float = field(default=5.0, metadata=setting(
        "MM_WEBHOOK_TIMEOUT", "seconds a callback delivery may take"))
    webhook_attempts: int = field(default=8, metadata=setting(
        "MM_WEBHOOK_ATTEMPTS", "deliveries of one callback before giving up (back-off doubles from 1 s)"))
    max_streams: int = field(default=10_000, metadata=setting(
        "MM_MAX_STREAMS", "open ticket waits and streams per API process; past it 503 `too_many_streams`"))
    # Who is calling (torres_service.principals): the tenants file, or else the single-key default --
    # tenant "default" holding ``api_key`` (TORRES_API_KEY; generated when unset, so no empty key ever passes) and
    # signing its players' tokens with ``player_token_secret`` (TORRES_PLAYER_TOKEN_SECRET, >= 32 bytes; unset:
    # no player token verifies, so no ticket can be made).
    tenants_file: str = TENANTS_FILE.field()
    tenants_reload: float = TENANTS_RELOAD.field()
    api_key: str = API_KEY.field(repr=False)
    player_token_secret: str = PLAYER_TOKEN_SECRET.field(repr=False)
    dev_issuer: bool = field(default=False, metadata=setting(
        "TORRES_DEV_ISSUER", "`POST /v1/dev/player-tokens` issues player tokens (`make run` only)"))
    dev_token_lifetime: int = field(default=900, metadata=setting(
        "TORRES_DEV_TOKEN_LIFETIME", "seconds a dev-issued player token lives"))
    stream_ticket_ttl: float = field(default=60.0, metadata=setting(
        "MM_STREAM_TICKET_TTL", "seconds a browser's single-use stream ticket stays valid"))
    log_level: str = LOG_LEVEL.field()
    json_logs: bool = field(default=True, metadata=setting("MM_JSON_LOGS", "one JSON object per log line"))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read the settings (docs/settings.md)."""
        return cls(**values(cls, env))

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


#: The matcher process's own metrics endpoint (the API serves /metrics on its HTTP port).
METRICS_PORT = Setting("MM_METRICS_PORT", "`matcher`: the port Prometheus scrapes (and probes) it on; `0`: none",
                       default=0)
METRICS_HOST = Setting("MM_METRICS_HOST", "`matcher`: the address of that port", default="0.0.0.0")
METRICS = (METRICS_PORT, METRICS_HOST)

#: What the matchmaker's processes read of their environment, declared to the settings table (docs/settings.md) by
#: this package's entry point in the ``torres_service.settings`` group.
PROCESS = Process("its API and matchers", (Config, METRICS, ALLOW_NETWORKS, *HTTP_SETTINGS))

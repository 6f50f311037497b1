"""Configuration from environment variables, with defaults that run on a bare machine.

Nothing here reads the environment at import time: ``Config.from_env()`` is called by the entry
points (``wsgi.py``, ``__main__.py``) and tests build ``Config`` objects directly, so an app
factory never depends on hidden global state.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from torres_service.http_settings import HTTP_SETTINGS
from torres_service.logs import LOG_LEVEL
from torres_service.principals import API_KEY, TENANTS_FILE, TENANTS_RELOAD, WEBHOOK_SECRET, WEBHOOK_URL
from torres_service.settings import Process, Setting, items, setting, values
from torres_service.shared_settings import AI_DELAY, BROKER_URL
from torres_service.webhooks import ALLOW_NETWORKS

from .store.postgres import CONNECT_OPTIONS, CONNECT_TIMEOUT, POOL_TIMEOUT, TCP_USER_TIMEOUT

log = logging.getLogger(__name__)

_REPO_MIGRATIONS = Path(__file__).resolve().parents[3] / "infra" / "migrations"
#: The key name of a generated signing key (TORRES_SIGNING_KEY unset): .invalid says no real service uses it.
DEV_SIGNER_NAME = "torres.invalid/dev-game"
DEV_LOG_SIGNER_NAME = "torres.invalid/dev-log"
_REPO_WEB = Path(__file__).resolve().parents[3] / "clients" / "web"


#: Where the embedded SQLite database lives when no DATABASE_URL is set.
DATA_DIR = Setting("TORRES_DATA_DIR", "where the embedded SQLite database lives when `DATABASE_URL` is unset",
                   kind=Path, shown="`./data`")
#: ``python -m torres_game webhooks``: its own metrics endpoint (the service processes' threads count in /metrics).
METRICS_PORT = Setting("TORRES_WEBHOOK_METRICS_PORT", "`python -m torres_game webhooks`: the port Prometheus "
                       "scrapes it on; `0`: none", default=0)
METRICS_HOST = Setting("TORRES_WEBHOOK_METRICS_HOST", "`python -m torres_game webhooks`: the address of that port",
                       default="0.0.0.0")


#: An origin as CSP's frame-ancestors takes it: scheme, host (a leading `*.` allowed), optional port; nothing that
#: could end the directive (`;`, quotes, spaces).
_ORIGIN = re.compile(r"https?://(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?")


def frame_origins(raw: str) -> tuple[str, ...]:
    """``TORRES_FRAME_ANCESTORS``'s origins; anything that is not a plain origin is refused at start."""
    listed = tuple(origin.rstrip("/") for origin in items(raw))
    bad = [origin for origin in listed if not _ORIGIN.fullmatch(origin)]
    if bad:
        raise ValueError(f"holds {', '.join(bad)}: not an origin (scheme://host[:port])")
    return listed


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the embedded SQLite database lives when no DATABASE_URL is set (``./data`` by default)."""
    return DATA_DIR.read(env) or Path.cwd() / "data"


@dataclass(frozen=True)
class Config:
    """Everything the service needs to start. Immutable; use ``with_()`` for variants. Each field that is a
    setting declares its variable and meaning here, once (docs/settings.md is generated from them)."""

    database_url: str = field(default="", metadata=setting(
        "DATABASE_URL", "`postgresql://…`: the event store in PostgreSQL (psycopg 3 pool); unset: embedded SQLite",
        shown="`sqlite:///$TORRES_DATA_DIR/torres.sqlite3`"))
    api_key: str = API_KEY.field()
    admin_key: str = field(default="", metadata=setting(
        "TORRES_ADMIN_KEY", "the operator's admin key (`X-Admin-Key`), one per deployment: full events and "
        "positions of every tenant's games, every list; spectator tokens are signed with a key derived from it; "
        "generated and logged at start when unset"))
    # Tenants and their keys (docs/security.md): the file `python -m torres_service.keys` writes, re-read within
    # `tenants_reload` seconds of a change. Unset: `api_key` alone, as the tenant "default" with every scope.
    tenants_file: str = TENANTS_FILE.field()
    tenants_reload: float = TENANTS_RELOAD.field()
    snapshot_every: int = field(default=50, metadata=setting(
        "SNAPSHOT_EVERY", "snapshot a game's position every N events (`0`: never)"))
    ai_driver: str = field(default="auto", metadata=setting(
        "TORRES_AI_DRIVER", "`auto`: the AI worker's drivers when it is installed (its entry point "
        "`torres_game.ai_drivers: auto`; Celery with a broker URL, else its bots in-process), otherwise the random "
        "bot; `thread`: in-process random bot; `none`: outbox only (external worker); `package.module:factory`: "
        "any driver"))
    ai_delay: float = AI_DELAY.field()
    broker_url: str = BROKER_URL.field()
    migrations_dir: Path = field(default=_REPO_MIGRATIONS, metadata=setting(
        "TORRES_MIGRATIONS_DIR", "the SQL migrations", shown="`infra/migrations` of the checkout"))
    auto_migrate: bool = field(default=True, metadata=setting(
        "TORRES_AUTO_MIGRATE", "apply pending migrations at start"))
    pool_min: int = field(default=1, metadata=setting("DB_POOL_MIN", "psycopg pool size per process, at least"))
    # Under gevent one worker serves many requests at once: with too few connections reads queue behind appends,
    # and each hand-over costs the pool's (gevent) locks, so a larger pool serves more actions/s (docs/performance.md,
    # "Game service"); 16 keeps two replicas within PostgreSQL's default 100
    # connections (docs/performance.md and docs/operations.md: replicas x WEB_CONCURRENCY x (this + 2)
    # < max_connections).
    pool_max: int = field(default=16, metadata=setting(
        "DB_POOL_MAX", "psycopg pool size per process, at most (waits and streams hold no connection; the pool "
        "grows only while requests wait for one); each process also holds one listening connection and one that "
        "sends its notices: budget replicas × `WEB_CONCURRENCY` × (this + 2) below PostgreSQL's `max_connections`"))
    # What makes a failover a bounded 503 rather than a hang (docs/operations.md, "Failover").
    pool_timeout: float = field(default=POOL_TIMEOUT, metadata=setting(
        "DB_POOL_TIMEOUT", "seconds a request waits for a pooled database connection before it is answered 503 "
        "`store_unavailable` with `Retry-After` (while no primary takes connections, during a failover)"))
    db_connect_timeout: int = field(default=CONNECT_TIMEOUT, metadata=setting(
        "DB_CONNECT_TIMEOUT", "seconds a new database connection may take to open (libpq `connect_timeout`; "
        "a `connect_timeout` in `DATABASE_URL` wins)"))
    db_tcp_user_timeout: float = field(default=TCP_USER_TIMEOUT, metadata=setting(
        "DB_TCP_USER_TIMEOUT", "seconds the database may leave a request's data unacknowledged before its "
        "connection counts as dead (libpq `tcp_user_timeout`; idle connections are probed by keepalives every 2 s "
        "after 5 s idle): a primary cut off by the network fails its requests after this long"))
    state_cache_size: int = 2048
    max_streams: int = field(default=10_000, metadata=setting(
        "TORRES_MAX_STREAMS", "open waits + SSE streams + WebSockets per process; past it 503 `too_many_streams`"))
    stream_heartbeat: float = field(default=15.0, metadata=setting(
        "TORRES_STREAM_HEARTBEAT", "seconds between SSE keep-alive comments and WebSocket pings (proxies close "
        "idle connections)"))
    send_timeout: float = field(default=10.0, metadata=setting(
        "TORRES_SEND_TIMEOUT", "a stream whose client cannot take a write for this many seconds is dropped"))
    stream_send_buffer: int = field(default=65_536, metadata=setting(
        "TORRES_STREAM_SEND_BUFFER", "bytes the kernel may hold for one stream's client (`SO_SNDBUF`; Linux "
        "doubles it); `0`: the kernel's autotuning (up to 4 MiB per connection)"))
    enforcer_interval: float = field(default=1.0, metadata=setting(
        "TORRES_ENFORCER_INTERVAL", "seconds between the deadline sweeps (timeouts of timed games) of the "
        "enforcer thread every process runs; `0`: none, for deployments that run `python -m torres_game enforce` "
        "(which sweeps at this interval, 1 s when `0`)"))
    log_level: str = LOG_LEVEL.field()
    json_logs: bool = field(default=True, metadata=setting("TORRES_JSON_LOGS", "one JSON object per log line"))
    web_dir: Path = field(default=_REPO_WEB, metadata=setting(
        "TORRES_WEB_DIR", "the web client's files, served at `/play/` (absent directory: no `/play/`)",
        shown="`clients/web` of the checkout"))
    matchmaking_url: str = field(default="", metadata=setting(
        "TORRES_MATCHMAKING_URL", "the matchmaker's public address, told to the web client in "
        "`/play/config.json` (`make run` sets it; empty: no matchmaking in its lobby)"))
    # The embeddable client: the portals whose pages may show `/play/` in an iframe. Every `/play/`
    # response says `Content-Security-Policy: frame-ancestors 'self' <these>`; with none listed it adds
    # `X-Frame-Options: SAMEORIGIN` too (browsers without CSP level 2), so nobody else can frame the game.
    frame_ancestors: tuple[str, ...] = field(default=(), metadata=setting(
        "TORRES_FRAME_ANCESTORS", "portal origins whose pages may embed `/play/` in an iframe "
        "(`https://portal.example.org`, comma-separated; unset: only the game service's own origin)",
        parse=frame_origins))
    # The Ed25519 key that signs game records (docs/audit.md): an skey, PRIVATE+KEY+<name>+<id>+<base64>, as
    # `python -m torres_audit keygen <name>` makes one. Empty: each process generates its own (named DEV_SIGNER_NAME),
    # fine for a dev server, useless for auditors (nobody can pin a key that changes at every start).
    signing_key: str = field(default="", metadata=setting(
        "TORRES_SIGNING_KEY", "the Ed25519 skey that signs game records (`python -m torres_audit keygen NAME`); "
        "unset: each process generates its own, fine for a dev server only"))
    # The transparency log (docs/audit.md section 9). Its checkpoints are signed with this skey, whose name is the
    # log's origin: a key of its own, never the record key above (a verifier refuses a checkpoint signed by the key
    # that signed the head, or whoever holds the record key could sign a one-leaf "log" of any head); it can live
    # only where the sequencer runs. Empty: each process generates one (named DEV_LOG_SIGNER_NAME). Extra vkeys
    # are published beside it at /.well-known/torres-audit-key during a rotation. Every `log_interval` seconds
    # each process's sequencer thread integrates the queued heads (one at a time across replicas); 0: this process
    # runs none (`python -m torres_game sequence` does).
    log_signing_key: str = field(default="", metadata=setting(
        "TORRES_LOG_SIGNING_KEY", "the skey that signs the transparency log's checkpoints, a key of its own (not "
        "`TORRES_SIGNING_KEY`'s); unset: each process generates one, fine for a dev server only"))
    log_published_keys: tuple[str, ...] = field(default=(), metadata=setting(
        "TORRES_LOG_PUBLISHED_KEYS", "older vkeys still published at `/.well-known/torres-audit-key` during a "
        "rotation"))
    # Key custody: the skey above lives in the sequencer process only; every other process is given the log's
    # public key instead, serves checkpoints and proofs, and cannot sign (docs/audit.md, "Key custody").
    log_key: str = field(default="", metadata=setting(
        "TORRES_LOG_KEY", "the log's vkey, for processes that serve the log without its signing key (the web "
        "processes when `python -m torres_game sequence` runs apart)"))
    # Witnesses (c2sp.org/tlog-witness): the sequencer asks each for a cosignature of every new checkpoint, and
    # the latest checkpoint served is the latest a quorum of them cosigned.
    log_witnesses: tuple[str, ...] = field(default=(), metadata=setting(
        "TORRES_LOG_WITNESSES", "the witnesses, `<witness vkey>@<URL>` each, comma-separated; empty: none, the "
        "log's own signature alone"))
    log_witness_quorum: int = field(default=0, metadata=setting(
        "TORRES_LOG_WITNESS_QUORUM", "cosignatures a checkpoint needs before it is served; `0`: a majority of "
        "`TORRES_LOG_WITNESSES`"))
    log_witness_timeout: float = field(default=2.0, metadata=setting(
        "TORRES_LOG_WITNESS_TIMEOUT", "seconds the sequencer waits for the witnesses' answers to one checkpoint; a "
        "witness that fails is asked again after a back-off doubling from this up to a minute"))
    log_interval: float = field(default=0.25, metadata=setting(
        "TORRES_LOG_INTERVAL", "seconds between sequencer runs in each process; `0`: none (run `python -m "
        "torres_game sequence`)"))
    log_batch: int = field(default=1000, metadata=setting(
        "TORRES_LOG_BATCH", "leaves the sequencer integrates per batch"))
    # Seat tokens (docs/security.md): a token is valid for this many seconds after it was issued (creation or reissue),
    # and never longer than its game's end plus the grace; then 401 seat_token_expired (the tenant reissues one).
    # 30 days: a turn-based game may run for weeks; a leaked token is worth nothing after it.
    seat_token_ttl: float = field(default=30 * 86400, metadata=setting(
        "TORRES_SEAT_TOKEN_TTL", "seconds a seat token is valid after it was issued (30 days); then 401 "
        "`seat_token_expired`"))
    seat_token_grace: float = field(default=86400, metadata=setting(
        "TORRES_SEAT_TOKEN_GRACE", "seconds a seat token stays valid after its game ended (to read the full log "
        "and the record), whatever is left of its lifetime"))
    # A read trusts the seat-token rows this process read until a notice says they changed (a reissue, a
    # revocation, the game's end); while the PostgreSQL listener is down, at most this long.
    seat_token_recheck: float = field(default=1.0, metadata=setting(
        "TORRES_SEAT_TOKEN_RECHECK", "seconds a read trusts the seat-token rows its process read while no notice "
        "can reach it (the PostgreSQL listener reconnecting; a revocation counts for reads at once otherwise, "
        "for actions always)"))
    stream_ticket_ttl: float = field(default=60, metadata=setting(
        "TORRES_STREAM_TICKET_TTL", "seconds a stream ticket may wait before it opens its one stream"))
    # Webhooks (docs/integration.md): each tenant's endpoint and secret are in the tenants file (`python -m
    # torres_service.keys set-webhook`); without one, these two give tenant "default" its endpoint. The rows are
    # written to the outbox with the events that cause them; a delivery worker (a thread of each process every
    # `webhook_interval` seconds, or `python -m torres_game webhooks`) posts them, at least once.
    webhook_url: str = WEBHOOK_URL.field()
    webhook_secret: str = WEBHOOK_SECRET.field()
    webhook_interval: float = field(default=0.2, metadata=setting(
        "TORRES_WEBHOOK_INTERVAL", "seconds between the webhook delivery worker's looks at the outbox in each "
        "process (it is also woken by this process's own appends); `0`: none, for deployments that run `python -m "
        "torres_game webhooks`"))
    webhook_timeout: float = field(default=5.0, metadata=setting(
        "TORRES_WEBHOOK_TIMEOUT", "seconds one webhook attempt may take in all (resolving, connecting, TLS, sending "
        "and the whole answer) before it counts as failed"))
    webhook_attempts: int = field(default=12, metadata=setting(
        "TORRES_WEBHOOK_ATTEMPTS", "attempts of one webhook delivery (1 s, 2 s, 4 s … up to 300 s apart) before "
        "it is marked `failed` (still re-readable from `GET /v1/webhooks/deliveries`)"))
    webhook_batch: int = field(default=100, metadata=setting(
        "TORRES_WEBHOOK_BATCH", "webhook deliveries a worker claims at most in one look (never more than its free "
        "slots)"))
    webhook_concurrency: int = field(default=8, metadata=setting(
        "TORRES_WEBHOOK_CONCURRENCY", "webhook deliveries a worker has in flight at once, all endpoints together"))
    webhook_endpoint_concurrency: int = field(default=2, metadata=setting(
        "TORRES_WEBHOOK_ENDPOINT_CONCURRENCY", "webhook deliveries a worker has in flight at once to one tenant's "
        "endpoint: an endpoint that hangs holds no more of the worker's slots than this"))
    webhook_circuit: int = field(default=5, metadata=setting(
        "TORRES_WEBHOOK_CIRCUIT", "failed attempts in a row after which a worker holds a tenant's endpoint back as "
        "a whole (its webhooks wait, unattempted) for 1 s, 2 s, 4 s … up to 300 s, then probes it with one; `0`: "
        "never"))
    webhook_lease: float = field(default=60.0, metadata=setting(
        "TORRES_WEBHOOK_LEASE", "seconds a claimed webhook delivery is a worker's: no other claims it meanwhile, and "
        "a worker that died leaves it to the next after this long; more than `TORRES_WEBHOOK_TIMEOUT`"))
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read the settings (docs/settings.md); the database defaults to SQLite in ``TORRES_DATA_DIR``; keys
        that are unset are generated and logged."""
        env = os.environ if env is None else env
        cfg = cls(**values(cls, env))
        if not cfg.database_url:
            cfg = replace(cfg, database_url=f"sqlite:///{default_data_dir(env) / 'torres.sqlite3'}")
        return cfg.with_generated_keys()

    def with_(self, **changes: object) -> Config:
        return replace(self, **changes)  # type: ignore[arg-type]

    def with_generated_keys(self) -> Config:
        """Fill missing keys with random ones and log them once, so a dev server is usable at once.

        Random keys (rather than fixed defaults) mean a forgotten variable in production locks
        everyone out instead of opening the service with a well-known key.
        """
        changes: dict[str, str] = {}
        if not self.api_key:
            changes["api_key"] = secrets.token_urlsafe(24)
            if not self.tenants_file:  # with a tenants file the keys are there; this one opens nothing
                log.warning("TORRES_API_KEY unset; generated one", extra={"api_key": changes["api_key"]})
        if not self.admin_key:
            changes["admin_key"] = secrets.token_urlsafe(24)
            log.warning("TORRES_ADMIN_KEY unset; generated one", extra={"admin_key": changes["admin_key"]})
        return replace(self, **changes) if changes else self

    def db_connect_options(self) -> dict[str, object]:
        """The libpq options of every database connection the service opens (the URL's own win)."""
        return {**CONNECT_OPTIONS, "connect_timeout": self.db_connect_timeout,
                "tcp_user_timeout": int(self.db_tcp_user_timeout * 1000)}

    @property
    def backend(self) -> str:
        return "postgres" if self.database_url.startswith(("postgres://", "postgresql://")) else "sqlite"


#: What the game service's processes read of their environment, declared to the settings table (docs/settings.md)
#: by this package's entry point in the ``torres_service.settings`` group.
PROCESS = Process("`python -m torres_game`, `torres_game.wsgi`",
                  (Config, DATA_DIR, METRICS_PORT, METRICS_HOST, ALLOW_NETWORKS, *HTTP_SETTINGS))

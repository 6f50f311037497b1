"""Configuration from environment variables, with defaults that run on a bare machine.

Nothing here reads the environment at import time: ``Config.from_env()`` is called by the entry
points (``wsgi.py``, ``__main__.py``) and tests build ``Config`` objects directly, so an app
factory never depends on hidden global state.
"""

from __future__ import annotations

import logging
import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path

log = logging.getLogger(__name__)

_REPO_MIGRATIONS = Path(__file__).resolve().parents[3] / "infra" / "migrations"
#: The key name of a generated signing key (TORRES_SIGNING_KEY unset): .invalid says no real service uses it.
DEV_SIGNER_NAME = "torres.invalid/dev-game"
_REPO_WEB = Path(__file__).resolve().parents[3] / "clients" / "web"


def default_data_dir(env: dict[str, str] | None = None) -> Path:
    """Where the embedded SQLite database lives when no DATABASE_URL is set (``./data`` by default)."""
    env = os.environ if env is None else env
    return Path(env.get("TORRES_DATA_DIR", str(Path.cwd() / "data")))


@dataclass(frozen=True)
class Config:
    """Everything the service needs to start. Immutable; use ``with_()`` for variants."""

    database_url: str = ""
    api_key: str = ""
    admin_key: str = ""
    # Tenants and their keys (issue 26): the file `python -m torres_service.keys` writes, re-read within
    # `tenants_reload` seconds of a change. Unset: `api_key` alone, as the tenant "default" with every scope.
    tenants_file: str = ""
    tenants_reload: float = 1.0
    snapshot_every: int = 50
    ai_driver: str = "auto"  # "auto" (AI worker's drivers if installed), "thread" (random bot), "none", "mod:fn"
    ai_delay: float = 0.0  # seconds the in-process bot waits before moving (demo pacing)
    migrations_dir: Path = _REPO_MIGRATIONS
    auto_migrate: bool = True
    pool_min: int = 1
    # Under gevent one worker serves many requests at once: with 8 connections, reads queued behind appends (then
    # waiting for the global events lock that migration 0006 removed), and each hand-over cost the pool's (gevent)
    # locks. 25 against 8 gave +10-16 % actions/s; 16 keeps two replicas within PostgreSQL's default 100
    # connections (docs/performance.md, issue 11, and docs/operations.md: replicas x WEB_CONCURRENCY x (this + 1)
    # < max_connections).
    pool_max: int = 16
    state_cache_size: int = 2048
    max_streams: int = 10_000  # open waits + SSE streams + WebSockets per process; past it: 503 too_many_streams
    stream_heartbeat: float = 15.0  # seconds between SSE keep-alive comments (proxies close idle connections)
    send_timeout: float = 10.0  # a stream whose client takes longer than this to accept a write is dropped
    stream_send_buffer: int = 65_536  # bytes the kernel may hold for one stream's client (SO_SNDBUF); 0 = its own
    enforcer_interval: float = 1.0  # seconds between deadline sweeps of the in-process enforcer; 0 = off
    log_level: str = "INFO"
    json_logs: bool = True
    web_dir: Path = _REPO_WEB  # the web client's files, served at /play/ (absent directory: no /play/)
    matchmaking_url: str = ""  # the matchmaker's public address, told to the web client (empty: no matchmaking)
    # The Ed25519 key that signs game records (docs/audit.md): an skey, PRIVATE+KEY+<name>+<id>+<base64>, as
    # `python -m torres_audit keygen <name>` makes one. Empty: each process generates its own (named DEV_SIGNER_NAME),
    # fine for a dev server, useless for auditors (nobody can pin a key that changes at every start).
    signing_key: str = ""
    # The transparency log (issue 28, docs/audit.md section 9). Its checkpoints are signed with this skey, whose
    # name is the log's origin; empty: the record key above signs them too (one key to manage; a separate one can
    # live only where the sequencer runs). Extra vkeys are published beside it at /.well-known/torres-audit-key
    # during a rotation. Every `log_interval` seconds each process's sequencer thread integrates the queued heads
    # (one at a time across replicas); 0: this process runs none (`python -m torres_game sequence` does).
    log_signing_key: str = ""
    log_published_keys: tuple[str, ...] = ()
    log_interval: float = 0.25
    log_batch: int = 1000
    # Seat tokens (issue 26): a token is valid for this many seconds after it was issued (creation or reissue),
    # and never longer than its game's end plus the grace; then 401 seat_token_expired (the tenant reissues one).
    # 30 days: a turn-based game may run for weeks; a leaked token is worth nothing after it.
    seat_token_ttl: float = 30 * 86400
    seat_token_grace: float = 86400  # after the end, a day to read the full log and the record with the token
    # A read trusts the seat-token rows this process read at most this long ago (an action: its append checks
    # them): a revocation counts for reads within it, like a revoked key within TORRES_TENANTS_RELOAD.
    seat_token_recheck: float = 1.0
    stream_ticket_ttl: float = 60  # seconds a stream ticket may wait before it opens its one stream
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Config:
        """Read ``TORRES_*``/``DATABASE_URL`` variables; generate and log keys that are unset."""
        env = dict(os.environ if env is None else env)
        url = env.get("DATABASE_URL") or f"sqlite:///{default_data_dir(env) / 'torres.sqlite3'}"
        cfg = cls(
            database_url=url,
            api_key=env.get("TORRES_API_KEY", ""),
            admin_key=env.get("TORRES_ADMIN_KEY", ""),
            tenants_file=env.get("TORRES_TENANTS_FILE", ""),
            tenants_reload=float(env.get("TORRES_TENANTS_RELOAD", "1")),
            snapshot_every=int(env.get("SNAPSHOT_EVERY", "50")),
            ai_driver=env.get("TORRES_AI_DRIVER", "auto"),
            ai_delay=float(env.get("TORRES_AI_DELAY", "0")),
            enforcer_interval=float(env.get("TORRES_ENFORCER_INTERVAL", "1")),
            migrations_dir=Path(env.get("TORRES_MIGRATIONS_DIR", str(_REPO_MIGRATIONS))),
            auto_migrate=env.get("TORRES_AUTO_MIGRATE", "1") not in ("0", "false", "no"),
            pool_min=int(env.get("DB_POOL_MIN", "1")),
            pool_max=int(env.get("DB_POOL_MAX", "16")),
            max_streams=int(env.get("TORRES_MAX_STREAMS", "10000")),
            stream_heartbeat=float(env.get("TORRES_STREAM_HEARTBEAT", "15")),
            send_timeout=float(env.get("TORRES_SEND_TIMEOUT", "10")),
            stream_send_buffer=int(env.get("TORRES_STREAM_SEND_BUFFER", "65536")),
            log_level=env.get("LOG_LEVEL", "INFO"),
            json_logs=env.get("TORRES_JSON_LOGS", "1") not in ("0", "false", "no"),
            web_dir=Path(env.get("TORRES_WEB_DIR", str(_REPO_WEB))),
            matchmaking_url=env.get("TORRES_MATCHMAKING_URL", ""),
            signing_key=env.get("TORRES_SIGNING_KEY", ""),
            log_signing_key=env.get("TORRES_LOG_SIGNING_KEY", ""),
            log_published_keys=tuple(env.get("TORRES_LOG_PUBLISHED_KEYS", "").split()),
            log_interval=float(env.get("TORRES_LOG_INTERVAL", "0.25")),
            log_batch=int(env.get("TORRES_LOG_BATCH", "1000")),
            seat_token_ttl=float(env.get("TORRES_SEAT_TOKEN_TTL", str(30 * 86400))),
            seat_token_grace=float(env.get("TORRES_SEAT_TOKEN_GRACE", "86400")),
            seat_token_recheck=float(env.get("TORRES_SEAT_TOKEN_RECHECK", "1")),
            stream_ticket_ttl=float(env.get("TORRES_STREAM_TICKET_TTL", "60")),
        )
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

    @property
    def backend(self) -> str:
        return "postgres" if self.database_url.startswith(("postgres://", "postgresql://")) else "sqlite"

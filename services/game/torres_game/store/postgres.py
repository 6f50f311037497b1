"""PostgreSQL backend: psycopg 3 with a connection pool.

An append is one statement, ``SELECT * FROM torres_append(...)`` (``definitions/torres_append.sql``), so it costs one
round trip and holds its locks only while the server works. Concurrency design (why appends are
correct under many writers):

* ``SELECT ... FOR UPDATE`` on the game's row serialises appends *per game*; the version check and
  the command-id lookup run after the lock is held (each with a fresh snapshot), so they see every
  committed append.
* The notification log is read up to a *horizon* (migration 0006): every insert into ``events`` takes a
  shared advisory lock before it draws its position, and a reader first takes that lock exclusively, which
  waits for every writer in flight, and reads the highest position drawn. Positions up to it are settled,
  later ones are above it, so a consumer reading ``after=p`` can never skip a later-committed lower
  position. Writers never wait for each other (the global ``LOCK TABLE events`` this replaced held every
  append behind the previous one's WAL flush); plain reads of a game's events take no lock at all.
* Unique constraints and the chain trigger are the last line of defence: any integrity error on
  the stream becomes :class:`VersionConflict`.
* No write transaction sends a notice (migration 0013): a transaction that notifies holds PostgreSQL's
  instance-wide notify lock through its commit and WAL flush, so every appending commit of the instance would
  wait for the previous one's. The store hands the notice of each committed change to its
  :class:`~torres_game.waiting.PgNotifier`, which sends it after the commit, in a transaction that waits for no
  disk; a notice lost on the way is found by the listeners' periodic re-read (``PgListener.recheck_every``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from torres_audit.chain import GENESIS_HASH
from torres_game.errors import GameNotFound, SeatTokenRevoked, VersionConflict
from torres_game.migrations import check_applied, definitions, discover
from torres_game.waiting import CHANNEL, SEAT_TOKENS_CHANNEL, Notice, PgNotifier
from torres_online.lifecycle import format_time
from torres_service.json_provider import dumps_bytes

from .base import (
    EVERY_GAME,
    PLAIN,
    AiTurn,
    AppendOptions,
    AppendResult,
    GameExists,
    GameFilter,
    GameRecord,
    GameSecret,
    ListDialect,
    LogBuild,
    LogCheckpoint,
    LogLeaf,
    NewEvent,
    SeatTokenBook,
    SeatTokenRow,
    Snapshot,
    StoredEvent,
    StreamTicket,
    WebhookRow,
    build_log_batch,
    content_hashes,
    list_filters,
    stamp,
)
from .postgres_analyses import PostgresAnalyses
from .postgres_outbox import PostgresOutbox


def _as_given(queued_at: datetime) -> datetime:
    """psycopg hands ``timestamptz`` over as a datetime already."""
    return queued_at


_EVENT_COLS = "position, game_id, version, type, payload, schema_version, created_at, command_id, prev_hash, hash"
_GAME_COLS = ("game_id, created_at, edition, master, options, seats, version, status, summary, tenant, visibility,"
              " external_id, labels, webhooks")
_MIGRATION_LOCK = 0x70727265  # advisory lock id: one migrator at a time across processes
_SEQUENCER_LOCK = 0x746C6F67  # advisory lock id ('tlog'): one transparency-log sequencer at a time
_LEAF_COLS = "leaf_index, game_id, version, head_hash, leaf_hash"


#: Seconds a request waits for a pooled connection before it is answered 503 (``DB_POOL_TIMEOUT``): while no
#: primary takes connections (a failover) the wait is bounded by this, not by the pool's own 30 s.
POOL_TIMEOUT = 5.0
#: What every connection of the pool (and the listener's) is opened with unless the URL says otherwise: a connect
#: that gets no answer gives up (``connect_timeout``), and a connection whose peer stops answering is declared dead
#: by the kernel -- keepalives for an idle one, ``tcp_user_timeout`` (ms) for one whose data goes unacknowledged --
#: instead of blocking its request for the kernel's 15 minutes of retransmissions (docs/operations.md, "Failover").
CONNECT_TIMEOUT, TCP_USER_TIMEOUT = 3, 10.0
CONNECT_OPTIONS: Mapping[str, object] = {
    "application_name": "torres-game", "connect_timeout": CONNECT_TIMEOUT,
    "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 3,
    "tcp_user_timeout": int(TCP_USER_TIMEOUT * 1000),
}


def connect_kwargs(url: str, connect: Mapping[str, object] | None = None) -> dict[str, object]:
    """The connection options the URL does not set itself (a URL's ``?connect_timeout=1`` wins)."""
    given = conninfo_to_dict(url)
    return {key: value for key, value in (CONNECT_OPTIONS if connect is None else connect).items()
            if key not in given}


def _webhook_docs(webhooks: Sequence[WebhookRow]) -> list[dict[str, Any]]:
    return [{"delivery_id": w.delivery_id, "tenant": w.tenant, "type": w.type, "payload": w.payload}
            for w in webhooks]


def _qualified(alias: str, columns: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in columns.split(","))


def _jsonb(value: Any) -> Jsonb:
    """A jsonb parameter encoded by orjson: appends send the events and the game summary as JSON every time."""
    return Jsonb(value, dumps=dumps_bytes)


def _event(row: tuple[Any, ...]) -> StoredEvent:
    return StoredEvent(
        position=row[0], game_id=row[1], version=row[2], type=row[3], payload=row[4],
        schema_version=row[5], created_at=format_time(row[6]), command_id=row[7], prev_hash=row[8],
        hash=row[9],
    )


def _game(row: tuple[Any, ...]) -> GameRecord:
    return GameRecord(
        game_id=row[0], created_at=format_time(row[1]), edition=row[2], master=row[3], options=row[4],
        seats=row[5], version=row[6], status=row[7], summary=row[8], tenant=row[9], visibility=row[10],
        external_id=row[11], labels=row[12], webhooks=row[13],
    )


#: Times are passed as datetimes; a player's games are those whose ``seats`` contain the player (a GIN lookup).
_LIST_DIALECT = ListDialect(
    mark="%s",
    player_clause="seats @> %s",
    player_param=lambda player_id: _jsonb([{"player_id": player_id}]),
    label_clause="labels @> %s",
    label_param=lambda label: _jsonb([label]),
    time_param=lambda moment: moment,
    before_clause="(created_at, game_id) < (%s::timestamptz, %s)",
)


class PostgresEventStore(PostgresOutbox, PostgresAnalyses):
    backend = "postgres"

    def __init__(
        self, url: str, *, min_size: int = 1, max_size: int = 4, migrations_dir: Path | None = None,
        timeout: float = POOL_TIMEOUT, connect: Mapping[str, object] | None = None,
    ) -> None:
        self.url = url
        self.migrations_dir = migrations_dir
        self.pool = ConnectionPool(
            url, min_size=min_size, max_size=max_size, kwargs={"autocommit": True, **connect_kwargs(url, connect)},
            open=True, name="torres-game", timeout=timeout, check=self._check_connection,
        )
        self._sweeping = threading.Lock()  # held while a check of the pool's idle connections runs
        #: Sends the notices of this store's committed changes, after each commit (migration 0013).
        self.notifier = PgNotifier(url)

    # -- schema ---------------------------------------------------------------------------

    def migrate(self) -> list[int]:
        """Apply pending migrations, then the definitions whose text changed, under an advisory lock; returns the
        numbers applied."""
        assert self.migrations_dir is not None, "no migrations_dir configured"
        applied_now: list[int] = []
        with self.pool.connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
            try:
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)"
                )
                conn.execute("ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS sha256 text")
                found = discover(self.migrations_dir, "postgres")
                done = dict(conn.execute("SELECT version, sha256 FROM schema_migrations").fetchall())
                check_applied(found, done)
                for migration in found:
                    if migration.number in done:
                        if done[migration.number] is None:  # applied before digests were recorded
                            conn.execute("UPDATE schema_migrations SET sha256 = %s WHERE version = %s",
                                         (migration.digest, migration.number))
                        continue
                    with conn.transaction():
                        conn.execute(migration.sql.encode())  # no params: multi-statement script
                        conn.execute(
                            "INSERT INTO schema_migrations (version, name, applied_at, sha256)"
                            " VALUES (%s, %s, now(), %s)",
                            (migration.number, migration.name, migration.digest),
                        )
                    applied_now.append(migration.number)
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_definitions ("
                    " name text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL)"
                )
                applied = dict(conn.execute("SELECT name, sha256 FROM schema_definitions").fetchall())
                for definition in definitions(self.migrations_dir, "postgres"):
                    if applied.get(definition.name) == definition.digest:
                        continue
                    with conn.transaction():
                        conn.execute(definition.sql.encode())
                        conn.execute(
                            "INSERT INTO schema_definitions VALUES (%s, %s, now()) ON CONFLICT (name) DO UPDATE"
                            " SET sha256 = EXCLUDED.sha256, applied_at = EXCLUDED.applied_at",
                            (definition.name, definition.digest),
                        )
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
        return applied_now

    def migration_status(self) -> tuple[list[int], list[int]]:
        assert self.migrations_dir is not None
        found = discover(self.migrations_dir, "postgres")
        with self.pool.connection() as conn:
            exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
            done: dict[int, str | None] = {}
            if exists and exists[0]:
                has_digest = conn.execute(
                    "SELECT 1 FROM information_schema.columns WHERE table_name = 'schema_migrations'"
                    " AND column_name = 'sha256' AND table_schema = current_schema()").fetchone()
                column = "sha256" if has_digest else "NULL::text"
                done = dict(conn.execute(f"SELECT version, {column} FROM schema_migrations").fetchall())
        check_applied(found, done)
        return sorted(done), [m.number for m in found if m.number not in done]

    def ping(self) -> None:
        with self.pool.connection(timeout=2) as conn:
            conn.execute("SELECT 1")

    def close(self) -> None:
        self.notifier.close()
        self.pool.close()

    def _check_connection(self, conn: psycopg.Connection[Any]) -> None:
        """The pool's check of each connection it hands out (an empty query): a failover breaks every idle
        connection to the old primary at once, and unchecked each would fail the next request that took it. The
        pool discards one that fails and tries the next, at once, then after 1 s, 2 s, 4 s (its back-off against a
        server that is down), which would outlast ``DB_POOL_TIMEOUT`` with four broken connections. So
        the first failure also has the pool check all its idle connections at once, in the background: the
        request waits about a second for a connection to the new primary, and only requests in flight during
        the failover are refused."""
        try:
            ConnectionPool.check_connection(conn)
        except Exception:
            self._sweep()
            raise

    def _sweep(self) -> None:
        if not self._sweeping.acquire(blocking=False):
            return

        def check() -> None:
            try:
                self.pool.check()
            except Exception:  # the pool closed meanwhile; nothing to repair
                pass
            finally:
                self._sweeping.release()

        threading.Thread(target=check, name="torres-pool-check", daemon=True).start()

    def _announce(self, game_id: str, version: int, status: str, summary: dict[str, Any] | None) -> None:
        """After a commit that moved the game to ``version``: its notice for the waiters of every process (sent by
        the notifier's thread, not in the append's transaction: migration 0013). Webhooks have no notice: the
        delivery workers look at the outbox every ``TORRES_WEBHOOK_INTERVAL`` (a notice per append that wrote one
        cost every listening process of every replica more than the look, docs/performance.md, "Webhooks")."""
        to_move = None if summary is None else summary.get("to_move")
        self.notifier.send(CHANNEL, Notice(game_id, version, status, to_move).encode())

    @property
    def closed(self) -> bool:
        return self.pool.closed

    # -- writes ---------------------------------------------------------------------------

    def create_game(
        self, game: GameRecord, secret: GameSecret, events: Sequence[NewEvent], command_id: str,
        *, ai_turn: AiTurn | None = None, now: datetime | None = None, webhooks: Sequence[WebhookRow] = (),
    ) -> AppendResult:
        now = now or datetime.now(UTC)
        stamped = stamp(game.game_id, 1, GENESIS_HASH, events, command_id, now)
        with self.pool.connection() as conn, conn.transaction():
            # A concurrent insert of the same id waits for the other transaction, then inserts nothing.
            inserted = conn.execute(
                "INSERT INTO games (game_id, created_at, updated_at, edition, master, options, seats,"
                " version, status, summary, tenant, visibility, external_id, labels, webhooks) VALUES (%s, %s, %s,"
                " %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game_id) DO NOTHING",
                (game.game_id, now, now, game.edition, game.master, _jsonb(game.options), _jsonb(game.seats),
                 stamped[-1].version, game.status, _jsonb(game.summary), game.tenant, game.visibility,
                 game.external_id, _jsonb(game.labels), game.webhooks),
            ).rowcount
            if not inserted:
                raise GameExists(game.game_id)  # the transaction rolls back: nothing written
            conn.execute(
                "INSERT INTO game_secrets (game_id, seed, token_hashes) VALUES (%s, %s, %s)",
                (game.game_id, str(secret.seed), _jsonb(secret.token_hashes)),
            )
            stored = self._insert(conn, stamped, None, now)
            if ai_turn:
                self._insert_ai_turn(conn, ai_turn, now)
            if webhooks:  # after the events: their seq is drawn under the writers' lock the events took (0012)
                conn.execute("SELECT torres_write_webhooks(%s, %s, %s)",
                             (game.game_id, now, _jsonb(_webhook_docs(webhooks))))
        self._announce(game.game_id, stored[-1].version, game.status, game.summary)
        return AppendResult(game.game_id, tuple(stored))

    def append(self, game_id: str, expected_version: int, events: Sequence[NewEvent], command_id: str,
               options: AppendOptions = PLAIN) -> AppendResult:
        now = options.now or datetime.now(UTC)
        created_at = format_time(now)
        first = expected_version + 1
        hashes_sent = content_hashes(game_id, first, events, command_id, created_at)
        contents = [
            {"type": e.type, "payload": e.payload, "schema_version": e.schema_version, "content_hash": digest}
            for e, digest in zip(events, hashes_sent, strict=True)
        ]
        try:
            with self.pool.connection() as conn:
                row = conn.execute(
                    "SELECT * FROM torres_append(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (game_id, expected_version, command_id, options.fingerprint, now, _jsonb(contents),
                     options.status, _jsonb(options.summary) if options.summary is not None else None,
                     options.ai_turn.seat if options.ai_turn else None, options.close_ai_turns,
                     *(options.seat_token or (None, None)),
                     _jsonb(_webhook_docs(options.webhooks)) if options.webhooks else None),
                ).fetchone()
        except psycopg.errors.IntegrityError as exc:  # belt and braces: a constraint or the chain trigger
            current = self.current_version(game_id) or 0
            raise VersionConflict(f"append refused by the database: {exc}", current_version=current) from exc
        assert row is not None
        outcome, current, first_prev, positions, hashes = row
        if outcome == "not_found":
            raise GameNotFound(f"no game {game_id}")
        if outcome == "token_superseded":
            seat = options.seat_token and options.seat_token[0]
            raise SeatTokenRevoked(f"seat {seat}'s token was revoked or reissued")
        if outcome == "duplicate":
            original = self.find_command(game_id, command_id)
            assert original is not None
            return original
        if outcome == "conflict":
            raise VersionConflict(
                f"expected version {expected_version}, the game is at {current}", current_version=current)
        stored = stamp(game_id, first, first_prev, events, command_id, now, positions, created_at=created_at,
                       contents=hashes_sent)
        # Committed: now (and only now) the notice. The status is unchanged unless the append ended the game.
        self._announce(game_id, current, options.status or "active", options.summary)
        if [e.hash for e in stored] != hashes:  # the two implementations of the chain must agree
            raise RuntimeError("hash chain mismatch between the service and the database")
        return AppendResult(game_id, tuple(stored), fingerprint=options.fingerprint)

    def _insert(
        self, conn: psycopg.Connection, stamped: list[StoredEvent], fingerprint: str | None, now: datetime
    ) -> list[StoredEvent]:
        out: list[StoredEvent] = []
        for e in stamped:
            position = conn.execute(
                "INSERT INTO events (game_id, version, type, payload, schema_version, created_at,"
                " command_id, prev_hash, hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING position",
                (e.game_id, e.version, e.type, _jsonb(e.payload), e.schema_version, now, e.command_id,
                 e.prev_hash, e.hash),
            ).fetchone()[0]  # type: ignore[index]
            out.append(replace(e, position=position))
        conn.execute(
            "INSERT INTO commands (game_id, command_id, fingerprint, first_version, last_version, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (out[0].game_id, out[0].command_id, fingerprint, out[0].version, out[-1].version, now),
        )
        return out

    @staticmethod
    def _insert_ai_turn(conn: psycopg.Connection, turn: AiTurn, now: datetime) -> None:
        conn.execute(
            "INSERT INTO ai_turns (game_id, version, seat, created_at) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            (turn.game_id, turn.version, turn.seat, now),
        )

    def _find_command(self, conn: psycopg.Connection, game_id: str, command_id: str) -> AppendResult | None:
        row = conn.execute(
            "SELECT fingerprint, first_version, last_version FROM commands"
            " WHERE game_id = %s AND command_id = %s",
            (game_id, command_id),
        ).fetchone()
        if row is None:
            return None
        rows = conn.execute(
            f"SELECT {_EVENT_COLS} FROM events WHERE game_id = %s AND version BETWEEN %s AND %s ORDER BY version",
            (game_id, row[1], row[2]),
        ).fetchall()
        return AppendResult(game_id, tuple(_event(r) for r in rows), duplicate=True, fingerprint=row[0])

    # -- reads ----------------------------------------------------------------------------

    def find_command(self, game_id: str, command_id: str) -> AppendResult | None:
        with self.pool.connection() as conn:
            return self._find_command(conn, game_id, command_id)

    def read(
        self, game_id: str, *, after: int = 0, up_to: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {_EVENT_COLS} FROM events WHERE game_id = %s AND version > %s"
                " AND (%s::int IS NULL OR version <= %s::int) ORDER BY version LIMIT %s",
                (game_id, after, up_to, up_to, limit),
            ).fetchall()
        return [_event(r) for r in rows]

    def get_game(self, game_id: str) -> GameRecord | None:
        with self.pool.connection() as conn:
            row = conn.execute(f"SELECT {_GAME_COLS} FROM games WHERE game_id = %s", (game_id,)).fetchone()
        return _game(row) if row else None

    def current_version(self, game_id: str) -> int | None:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT version FROM games WHERE game_id = %s", (game_id,)).fetchone()
        return row[0] if row else None

    def list_games(self, where: GameFilter = EVERY_GAME, *, before: tuple[str, str] | None = None,
                   limit: int = 50) -> list[GameRecord]:
        clause, params = list_filters(_LIST_DIALECT, where, before)
        with self.pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {_GAME_COLS} FROM games{clause} ORDER BY created_at DESC, game_id DESC LIMIT %s",
                (*params, limit),
            ).fetchall()
        return [_game(r) for r in rows]

    def get_secret(self, game_id: str) -> GameSecret | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                "SELECT seed, token_hashes FROM game_secrets WHERE game_id = %s", (game_id,)
            ).fetchone()
        return GameSecret(int(row[0]), list(row[1])) if row else None

    def seat_token_book(self, game_id: str) -> SeatTokenBook | None:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT g.status, g.updated_at, t.seat, t.generation, t.token_hash, t.issued_at, t.expires_at"
                " FROM games g LEFT JOIN seat_tokens t ON t.game_id = g.game_id WHERE g.game_id = %s"
                " ORDER BY t.generation",
                (game_id,),
            ).fetchall()
        if not rows:
            return None
        return SeatTokenBook(rows[0][0], rows[0][1], tuple(
            SeatTokenRow(r[2], r[3], r[4], r[5], r[6]) for r in rows if r[2] is not None))

    def add_seat_token(
        self, game_id: str, seat: int, token_hash: str | None, *, issued_at: datetime, expires_at: datetime | None,
    ) -> int:
        for _ in range(20):
            with self.pool.connection() as conn:
                row = conn.execute(
                    "INSERT INTO seat_tokens (game_id, seat, generation, token_hash, issued_at, expires_at)"
                    " SELECT %s, %s, coalesce(max(generation), 0) + 1, %s, %s, %s FROM seat_tokens"
                    " WHERE game_id = %s AND seat = %s ON CONFLICT DO NOTHING RETURNING generation",
                    (game_id, seat, token_hash, issued_at, expires_at, game_id, seat),
                ).fetchone()
                if row is not None:  # committed: every process forgets the rows it read (0013: sync commit off)
                    conn.execute("SELECT torres_notify(%s, %s)", ([SEAT_TOKENS_CHANNEL], [game_id]))
            if row is not None:
                return int(row[0])
        raise RuntimeError(f"could not record a seat token for {game_id}/{seat}")

    def add_stream_ticket(self, ticket_hash: str, ticket: StreamTicket) -> None:
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("DELETE FROM stream_tickets WHERE expires_at < now()")
            conn.execute(
                "INSERT INTO stream_tickets (ticket_hash, game_id, seat, full_read, expires_at)"
                " VALUES (%s, %s, %s, %s, %s)",
                (ticket_hash, ticket.game_id, ticket.seat, ticket.full, ticket.expires_at),
            )

    def take_stream_ticket(self, ticket_hash: str) -> StreamTicket | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                "DELETE FROM stream_tickets WHERE ticket_hash = %s RETURNING game_id, seat, full_read, expires_at",
                (ticket_hash,),
            ).fetchone()
        return StreamTicket(row[0], row[1], row[2], row[3]) if row else None

    def notifications(self, *, after: int = 0, limit: int = 100, tenant: str | None = None) -> list[StoredEvent]:
        with self.pool.connection() as conn:
            # Two statements: the page must be read with a snapshot taken after the horizon's wait.
            horizon = conn.execute("SELECT torres_events_horizon()").fetchone()[0]  # type: ignore[index]
            if tenant is None:
                rows = conn.execute(
                    f"SELECT {_EVENT_COLS} FROM events WHERE position > %s AND position <= %s"
                    " ORDER BY position LIMIT %s",
                    (after, horizon, limit),
                ).fetchall()
            else:  # one tenant's: the events walked in position order, each game's tenant by its primary key
                rows = conn.execute(
                    f"SELECT {_qualified('e', _EVENT_COLS)} FROM events e JOIN games g ON g.game_id = e.game_id"
                    " WHERE e.position > %s AND e.position <= %s AND g.tenant = %s ORDER BY e.position LIMIT %s",
                    (after, horizon, tenant, limit),
                ).fetchall()
        return [_event(r) for r in rows]

    # -- the transparency log -------------------------------------------------------------------------

    @staticmethod
    def _log_nodes(conn: psycopg.Connection, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        if not keys:
            return {}
        rows = conn.execute(
            "SELECT level, node_index, hash FROM log_nodes WHERE (level, node_index) IN"
            " (SELECT * FROM unnest(%s::integer[], %s::bigint[]))",
            ([k[0] for k in keys], [k[1] for k in keys]),
        ).fetchall()
        return {(r[0], r[1]): bytes(r[2]) for r in rows}

    def integrate_log(self, build: LogBuild, *, limit: int = 1000) -> LogCheckpoint | None:
        with self.pool.connection() as conn, conn.transaction():
            # Try, never wait: a replica that finds another sequencing goes back to sleep. The lock is the
            # transaction's, so a sequencer that dies mid-batch releases it with its rollback.
            locked = conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (_SEQUENCER_LOCK,)).fetchone()
            if not locked or not locked[0]:
                return None
            done = build_log_batch(conn, "%s", _as_given, self._log_nodes, build, limit)
            if done is None:
                return None
            if done.leaves:
                updated = conn.execute(
                    "UPDATE log_leaves l SET leaf_index = u.leaf_index, leaf_hash = u.leaf_hash, integrated_at = now()"
                    " FROM unnest(%s::text[], %s::bigint[], %s::bytea[]) AS u(game_id, leaf_index, leaf_hash)"
                    " WHERE l.game_id = u.game_id AND l.leaf_index IS NULL",
                    ([x[0] for x in done.leaves], [x[1] for x in done.leaves], [x[2] for x in done.leaves]),
                ).rowcount
                if updated != len(done.leaves):
                    raise RuntimeError(f"{len(done.leaves)} leaves to integrate, {updated} found pending")
            with conn.cursor().copy("COPY log_nodes (level, node_index, hash) FROM STDIN") as copy:
                for node in done.nodes:
                    copy.write_row(node)
            conn.execute(
                "INSERT INTO log_checkpoints (tree_size, root, note, created_at) VALUES (%s, %s, %s, now())",
                (done.checkpoint.tree_size, done.checkpoint.root, done.checkpoint.note),
            )
        return done.checkpoint

    def log_checkpoint(self, tree_size: int | None = None) -> LogCheckpoint | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                "SELECT tree_size, root, note FROM log_checkpoints WHERE (%s::bigint IS NULL OR tree_size = %s::bigint)"
                " ORDER BY tree_size DESC LIMIT 1", (tree_size, tree_size)).fetchone()
        return LogCheckpoint(row[0], bytes(row[1]), row[2]) if row else None

    def log_nodes(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        with self.pool.connection() as conn:
            return self._log_nodes(conn, keys)

    def log_leaf(self, *, game_id: str | None = None, leaf_hash: bytes | None = None) -> LogLeaf | None:
        with self.pool.connection() as conn:
            if game_id is not None:
                row = conn.execute(f"SELECT {_LEAF_COLS} FROM log_leaves WHERE game_id = %s AND leaf_index IS NOT NULL",
                                   (game_id,)).fetchone()
            else:
                row = conn.execute(f"SELECT {_LEAF_COLS} FROM log_leaves WHERE leaf_hash = %s", (leaf_hash,)).fetchone()
        return LogLeaf(row[0], row[1], row[2], row[3], bytes(row[4])) if row else None

    def log_pending(self) -> int:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT count(*) FROM log_leaves WHERE leaf_index IS NULL").fetchone()
        return int(row[0]) if row else 0

    def add_log_cosignatures(self, tree_size: int, lines: dict[str, str]) -> None:
        with self.pool.connection() as conn:
            conn.execute("INSERT INTO log_cosignatures (tree_size, witness, line)"
                         " SELECT %s, w, l FROM unnest(%s::text[], %s::text[]) AS u(w, l) ON CONFLICT DO NOTHING",
                         (tree_size, list(lines), list(lines.values())))

    def log_cosignatures(self, tree_size: int) -> dict[str, str]:
        with self.pool.connection() as conn:
            rows = conn.execute("SELECT witness, line FROM log_cosignatures WHERE tree_size = %s ORDER BY witness",
                                (tree_size,)).fetchall()
        return {witness: line for witness, line in rows}

    def log_witnessed_size(self, witness: str) -> int:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT max(tree_size) FROM log_cosignatures WHERE witness = %s", (witness,)).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def log_cosigned_size(self, witnesses: Sequence[str], quorum: int) -> int | None:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT tree_size FROM log_cosignatures WHERE witness = ANY(%s) GROUP BY tree_size"
                               " HAVING count(*) >= %s ORDER BY tree_size DESC LIMIT 1",
                               (list(witnesses), quorum)).fetchone()
        return int(row[0]) if row else None

    def save_snapshot(self, snapshot: Snapshot) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO snapshots (game_id, version, position, created_at, lifecycle)"
                " VALUES (%s, %s, %s, now(), %s) ON CONFLICT DO NOTHING",
                (snapshot.game_id, snapshot.version, _jsonb(snapshot.position),
                 None if snapshot.lifecycle is None else _jsonb(snapshot.lifecycle)),
            )

    def latest_snapshot(self, game_id: str, *, at_most: int | None = None) -> Snapshot | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                "SELECT version, position, lifecycle FROM snapshots WHERE game_id = %s"
                " AND (%s::int IS NULL OR version <= %s::int) ORDER BY version DESC LIMIT 1",
                (game_id, at_most, at_most),
            ).fetchone()
        return Snapshot(game_id, row[0], row[1], row[2]) if row else None

    def due_games(self, now: str, *, limit: int = 100) -> list[str]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT game_id FROM games WHERE status = 'active' AND summary->>'deadline' <= %s"
                " ORDER BY summary->>'deadline' LIMIT %s",
                (now, limit),
            ).fetchall()
        return [r[0] for r in rows]

    def pending_ai_turns(self, *, limit: int = 100) -> list[AiTurn]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT game_id, seat, version, created_at FROM ai_turns WHERE done_at IS NULL"
                " ORDER BY created_at LIMIT %s",
                (limit,),
            ).fetchall()
        return [AiTurn(r[0], r[1], r[2], format_time(r[3])) for r in rows]

    def complete_ai_turn(self, game_id: str, version: int) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "UPDATE ai_turns SET done_at = now() WHERE game_id = %s AND version = %s AND done_at IS NULL",
                (game_id, version),
            )

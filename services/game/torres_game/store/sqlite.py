"""SQLite backend (standard library): the embedded default when no DATABASE_URL is configured.

A small pool of connections (:class:`_Pool`): each store call borrows one and gives it back, whatever thread
it runs on, so a server that starts a thread per HTTP connection (``python -m torres_game serve``) cannot leave
descriptors behind; WAL journal so readers never block the writer, and ``BEGIN IMMEDIATE``
for every write so that the version check, the command-id lookup and the inserts happen under
SQLite's single writer lock: the same guarantees as the PostgreSQL row and table locks, obtained
the SQLite way. Works across gunicorn processes too (the lock is the database file's).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from torres_audit.chain import GENESIS_HASH, canonical_json
from torres_game.errors import GameNotFound, SeatTokenRevoked, VersionConflict
from torres_game.migrations import check_applied, discover
from torres_online.lifecycle import format_time, parse_time

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
    WebhookDelivery,
    WebhookOutcome,
    WebhookRow,
    build_log_batch,
    list_filters,
    stamp,
)
from .sqlite_analyses import SqliteAnalyses

_EVENT_COLS = "position, game_id, version, type, payload, schema_version, created_at, command_id, prev_hash, hash"
_LEAF_COLS = "leaf_index, game_id, version, head_hash, leaf_hash"
_GAME_COLS = ("game_id, created_at, edition, master, options, seats, version, status, summary, tenant, visibility,"
              " external_id, labels, webhooks")


def _event(row: sqlite3.Row | tuple[Any, ...]) -> StoredEvent:
    return StoredEvent(
        position=row[0], game_id=row[1], version=row[2], type=row[3], payload=json.loads(row[4]),
        schema_version=row[5], created_at=row[6], command_id=row[7], prev_hash=row[8], hash=row[9],
    )


_WEBHOOK_COLS = ("seq, delivery_id, tenant, game_id, type, payload, created_at, status, attempts, next_attempt_at,"
                 " last_status, last_error, delivered_at")


def _webhook(row: tuple[Any, ...]) -> WebhookDelivery:
    return WebhookDelivery(
        seq=row[0], delivery_id=row[1], tenant=row[2], game_id=row[3], type=row[4], payload=json.loads(row[5]),
        created_at=row[6], status=row[7], attempts=row[8], next_attempt_at=row[9], last_status=row[10],
        last_error=row[11], delivered_at=row[12],
    )


def _game(row: tuple[Any, ...]) -> GameRecord:
    return GameRecord(
        game_id=row[0], created_at=row[1], edition=row[2], master=bool(row[3]), options=json.loads(row[4]),
        seats=json.loads(row[5]), version=row[6], status=row[7], summary=json.loads(row[8]), tenant=row[9],
        visibility=row[10], external_id=row[11], labels=json.loads(row[12]), webhooks=bool(row[13]),
    )


#: Times are compared as the stored text, which ``format_time`` writes in one fixed-width UTC form, so text order
#: is time order.
_LIST_DIALECT = ListDialect(
    mark="?",
    player_clause="EXISTS (SELECT 1 FROM json_each(games.seats) WHERE json_extract(value, '$.player_id') = ?)",
    player_param=lambda player_id: player_id,
    label_clause="EXISTS (SELECT 1 FROM json_each(games.labels) WHERE value = ?)",
    label_param=lambda label: label,
    time_param=format_time,
    before_clause="(created_at, game_id) < (?, ?)",
)


def path_from_url(url: str) -> str:
    """``sqlite:///relative.db``, ``sqlite:////abs/path.db`` or a bare path."""
    if url.startswith("sqlite://"):
        return url[len("sqlite:///"):] if url.startswith("sqlite:///") else url[len("sqlite://"):]
    return url


class SqliteEventStore(SqliteAnalyses):
    backend = "sqlite"

    def __init__(self, path: str | Path, *, migrations_dir: Path | None = None, idle: int = 4) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.migrations_dir = migrations_dir
        # ":memory:" is one database per connection: keep exactly one, shared (calls take turns on it).
        self._pool = _Pool(self._connect, idle=1 if self.path == ":memory:" else idle,
                           limit=1 if self.path == ":memory:" else None)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    def _conn(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return self._pool.connection()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._conn() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # -- schema ---------------------------------------------------------------------------

    def migrate(self) -> list[int]:
        assert self.migrations_dir is not None, "no migrations_dir configured"
        applied_now: list[int] = []
        with self._conn() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            if not any(column[1] == "sha256" for column in conn.execute("PRAGMA table_info(schema_migrations)")):
                conn.execute("ALTER TABLE schema_migrations ADD COLUMN sha256 TEXT")
        found = discover(self.migrations_dir, "sqlite")
        check_applied(found, self._applied())
        for migration in found:
            with self._write() as c:
                row = c.execute("SELECT sha256 FROM schema_migrations WHERE version = ?",
                                (migration.number,)).fetchone()
                if row is not None:
                    if row[0] is None:  # applied before digests were recorded
                        c.execute("UPDATE schema_migrations SET sha256 = ? WHERE version = ?",
                                  (migration.digest, migration.number))
                    continue
                for statement in _statements(migration.sql):
                    c.execute(statement)
                c.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at, sha256) VALUES (?, ?, ?, ?)",
                    (migration.number, migration.name, format_time(datetime.now(UTC)), migration.digest),
                )
            applied_now.append(migration.number)
        return applied_now

    def _applied(self) -> dict[int, str | None]:
        """Each applied migration's number and recorded digest (None: applied before digests were recorded)."""
        with self._conn() as conn:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").fetchone():
                return {}
            has_digest = any(column[1] == "sha256" for column in conn.execute("PRAGMA table_info(schema_migrations)"))
            column = "sha256" if has_digest else "NULL"
            return dict(conn.execute(f"SELECT version, {column} FROM schema_migrations").fetchall())

    def migration_status(self) -> tuple[list[int], list[int]]:
        assert self.migrations_dir is not None
        found = discover(self.migrations_dir, "sqlite")
        done = self._applied()
        check_applied(found, done)
        return sorted(done), [m.number for m in found if m.number not in done]

    def ping(self) -> None:
        with self._conn() as conn:
            conn.execute("SELECT 1")

    def close(self) -> None:
        self._pool.close()

    @property
    def closed(self) -> bool:
        return self._pool.closed

    # -- writes ---------------------------------------------------------------------------

    def create_game(
        self, game: GameRecord, secret: GameSecret, events: Sequence[NewEvent], command_id: str,
        *, ai_turn: AiTurn | None = None, now: datetime | None = None, webhooks: Sequence[WebhookRow] = (),
    ) -> AppendResult:
        now = now or datetime.now(UTC)
        stamped = stamp(game.game_id, 1, GENESIS_HASH, events, command_id, now)
        with self._write() as conn:
            inserted = conn.execute(
                "INSERT INTO games (game_id, created_at, updated_at, edition, master, options, seats,"
                " version, status, summary, tenant, visibility, external_id, labels, webhooks)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING",
                (game.game_id, format_time(now), format_time(now), game.edition, int(game.master),
                 canonical_json(game.options), canonical_json(game.seats), stamped[-1].version, game.status,
                 canonical_json(game.summary), game.tenant, game.visibility, game.external_id,
                 canonical_json(game.labels), int(game.webhooks)),
            ).rowcount
            if not inserted:
                raise GameExists(game.game_id)  # _write rolls back: nothing written
            conn.execute(
                "INSERT INTO game_secrets (game_id, seed, token_hashes) VALUES (?, ?, ?)",
                (game.game_id, str(secret.seed), canonical_json(secret.token_hashes)),
            )
            stored = self._insert(conn, stamped, None)
            if ai_turn:
                self._insert_ai_turn(conn, ai_turn)
            self._insert_webhooks(conn, game.game_id, webhooks, format_time(now))
        return AppendResult(game.game_id, tuple(stored))

    def append(self, game_id: str, expected_version: int, events: Sequence[NewEvent], command_id: str,
               options: AppendOptions = PLAIN) -> AppendResult:
        stamp_at = options.now
        try:
            with self._write() as conn:
                row = conn.execute("SELECT version FROM games WHERE game_id = ?", (game_id,)).fetchone()
                if row is None:
                    raise GameNotFound(f"no game {game_id}")
                if options.seat_token is not None and conn.execute(
                        "SELECT 1 FROM seat_tokens WHERE game_id = ? AND seat = ? AND generation > ?",
                        (game_id, *options.seat_token)).fetchone() is not None:
                    raise SeatTokenRevoked(f"seat {options.seat_token[0]}'s token was revoked or reissued")
                original = self._find_command(conn, game_id, command_id)
                if original is not None:
                    return original
                current = row[0]
                if current != expected_version:
                    raise VersionConflict(
                        f"expected version {expected_version}, the game is at {current}",
                        current_version=current,
                    )
                prev = conn.execute(
                    "SELECT hash FROM events WHERE game_id = ? AND version = ?", (game_id, current)
                ).fetchone()
                now = stamp_at or datetime.now(UTC)
                stamped = stamp(game_id, current + 1, prev[0] if prev else GENESIS_HASH, events, command_id, now)
                stored = self._insert(conn, stamped, options.fingerprint)
                conn.execute(
                    "UPDATE games SET version = ?, updated_at = ?, status = coalesce(?, status),"
                    " summary = coalesce(?, summary) WHERE game_id = ?",
                    (stored[-1].version, format_time(now), options.status,
                     canonical_json(options.summary) if options.summary is not None else None, game_id),
                )
                if options.close_ai_turns:  # the game moved on: earlier due turns are settled
                    conn.execute(
                        "UPDATE ai_turns SET done_at = ? WHERE game_id = ? AND version <= ? AND done_at IS NULL",
                        (format_time(now), game_id, current),
                    )
                if options.ai_turn:
                    self._insert_ai_turn(conn, options.ai_turn)
                self._insert_webhooks(conn, game_id, options.webhooks, stored[0].created_at)
            return AppendResult(game_id, tuple(stored), fingerprint=options.fingerprint)
        except sqlite3.IntegrityError as exc:
            current = self.current_version(game_id) or 0
            raise VersionConflict(f"append refused by the database: {exc}", current_version=current) from exc

    @staticmethod
    def _insert(conn: sqlite3.Connection, stamped: list[StoredEvent], fingerprint: str | None) -> list[StoredEvent]:
        out: list[StoredEvent] = []
        for e in stamped:
            cur = conn.execute(
                "INSERT INTO events (game_id, version, type, payload, schema_version, created_at,"
                " command_id, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (e.game_id, e.version, e.type, canonical_json(e.payload), e.schema_version, e.created_at,
                 e.command_id, e.prev_hash, e.hash),
            )
            out.append(replace(e, position=cur.lastrowid))
        conn.execute(
            "INSERT INTO commands (game_id, command_id, fingerprint, first_version, last_version, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (out[0].game_id, out[0].command_id, fingerprint, out[0].version, out[-1].version, out[0].created_at),
        )
        return out

    @staticmethod
    def _insert_ai_turn(conn: sqlite3.Connection, turn: AiTurn) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO ai_turns (game_id, version, seat, created_at) VALUES (?, ?, ?, ?)",
            (turn.game_id, turn.version, turn.seat, format_time(datetime.now(UTC))),
        )

    @staticmethod
    def _insert_webhooks(conn: sqlite3.Connection, game_id: str, webhooks: Sequence[WebhookRow], at: str) -> None:
        if webhooks:
            conn.executemany(
                "INSERT INTO webhook_outbox (delivery_id, tenant, game_id, type, payload, created_at,"
                " next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(w.delivery_id, w.tenant, game_id, w.type, canonical_json(w.payload), at, at) for w in webhooks],
            )

    @staticmethod
    def _find_command(conn: sqlite3.Connection, game_id: str, command_id: str) -> AppendResult | None:
        row = conn.execute(
            "SELECT fingerprint, first_version, last_version FROM commands WHERE game_id = ? AND command_id = ?",
            (game_id, command_id),
        ).fetchone()
        if row is None:
            return None
        rows = conn.execute(
            f"SELECT {_EVENT_COLS} FROM events WHERE game_id = ? AND version BETWEEN ? AND ? ORDER BY version",
            (game_id, row[1], row[2]),
        ).fetchall()
        return AppendResult(game_id, tuple(_event(r) for r in rows), duplicate=True, fingerprint=row[0])

    def _query(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        """One read statement on a borrowed connection, its rows fetched before the connection goes back."""
        with self._conn() as conn:
            return _Result(conn.execute(sql, params).fetchall())

    # -- reads ----------------------------------------------------------------------------

    def find_command(self, game_id: str, command_id: str) -> AppendResult | None:
        with self._conn() as conn:
            return self._find_command(conn, game_id, command_id)

    def read(
        self, game_id: str, *, after: int = 0, up_to: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        rows = self._query(
            f"SELECT {_EVENT_COLS} FROM events WHERE game_id = ? AND version > ?"
            " AND (? IS NULL OR version <= ?) ORDER BY version LIMIT ?",
            (game_id, after, up_to, up_to, -1 if limit is None else limit),
        ).fetchall()
        return [_event(r) for r in rows]

    def get_game(self, game_id: str) -> GameRecord | None:
        row = self._query(f"SELECT {_GAME_COLS} FROM games WHERE game_id = ?", (game_id,)).fetchone()
        return _game(row) if row else None

    def current_version(self, game_id: str) -> int | None:
        row = self._query("SELECT version FROM games WHERE game_id = ?", (game_id,)).fetchone()
        return row[0] if row else None

    def list_games(self, where: GameFilter = EVERY_GAME, *, before: tuple[str, str] | None = None,
                   limit: int = 50) -> list[GameRecord]:
        clause, params = list_filters(_LIST_DIALECT, where, before)
        rows = self._query(
            f"SELECT {_GAME_COLS} FROM games{clause} ORDER BY created_at DESC, game_id DESC LIMIT ?",
            (*params, limit),
        ).fetchall()
        return [_game(r) for r in rows]

    def get_secret(self, game_id: str) -> GameSecret | None:
        row = self._query(
            "SELECT seed, token_hashes FROM game_secrets WHERE game_id = ?", (game_id,)
        ).fetchone()
        return GameSecret(int(row[0]), json.loads(row[1])) if row else None

    def seat_token_book(self, game_id: str) -> SeatTokenBook | None:
        rows = self._query(
            "SELECT g.status, g.updated_at, t.seat, t.generation, t.token_hash, t.issued_at, t.expires_at"
            " FROM games g LEFT JOIN seat_tokens t ON t.game_id = g.game_id WHERE g.game_id = ?"
            " ORDER BY t.generation",
            (game_id,),
        ).fetchall()
        if not rows:
            return None
        return SeatTokenBook(rows[0][0], _instant(rows[0][1]), tuple(
            SeatTokenRow(r[2], r[3], r[4], _instant(r[5]), None if r[6] is None else _instant(r[6]))
            for r in rows if r[2] is not None))

    def add_seat_token(
        self, game_id: str, seat: int, token_hash: str | None, *, issued_at: datetime, expires_at: datetime | None,
    ) -> int:
        with self._write() as conn:  # BEGIN IMMEDIATE: the max and the insert under the one writer lock
            row = conn.execute(
                "INSERT INTO seat_tokens (game_id, seat, generation, token_hash, issued_at, expires_at)"
                " SELECT ?, ?, coalesce(max(generation), 0) + 1, ?, ?, ? FROM seat_tokens"
                " WHERE game_id = ? AND seat = ? RETURNING generation",
                (game_id, seat, token_hash, format_time(issued_at),
                 None if expires_at is None else format_time(expires_at), game_id, seat),
            ).fetchall()[0]  # every row fetched before COMMIT
        return int(row[0])

    def add_stream_ticket(self, ticket_hash: str, ticket: StreamTicket) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM stream_tickets WHERE expires_at < ?", (format_time(datetime.now(UTC)),))
            conn.execute(
                "INSERT INTO stream_tickets (ticket_hash, game_id, seat, full_read, expires_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (ticket_hash, ticket.game_id, ticket.seat, int(ticket.full), format_time(ticket.expires_at)),
            )

    def take_stream_ticket(self, ticket_hash: str) -> StreamTicket | None:
        with self._write() as conn:
            rows = conn.execute(
                "DELETE FROM stream_tickets WHERE ticket_hash = ? RETURNING game_id, seat, full_read, expires_at",
                (ticket_hash,),
            ).fetchall()  # every row fetched before COMMIT
        return StreamTicket(rows[0][0], rows[0][1], bool(rows[0][2]), _instant(rows[0][3])) if rows else None

    def notifications(self, *, after: int = 0, limit: int = 100, tenant: str | None = None) -> list[StoredEvent]:
        if tenant is None:
            rows = self._query(
                f"SELECT {_EVENT_COLS} FROM events WHERE position > ? ORDER BY position LIMIT ?", (after, limit)
            ).fetchall()
        else:
            columns = ", ".join(f"e.{c.strip()}" for c in _EVENT_COLS.split(","))
            rows = self._query(
                f"SELECT {columns} FROM events e JOIN games g ON g.game_id = e.game_id"
                " WHERE e.position > ? AND g.tenant = ? ORDER BY e.position LIMIT ?", (after, tenant, limit)
            ).fetchall()
        return [_event(r) for r in rows]

    # -- the transparency log -------------------------------------------------------------------------

    @staticmethod
    def _log_nodes(conn: sqlite3.Connection, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        out: dict[tuple[int, int], bytes] = {}
        for start in range(0, len(keys), 400):  # SQLite's bound-parameter limit
            chunk = keys[start:start + 400]
            where = " OR ".join("(level = ? AND node_index = ?)" for _ in chunk)
            rows = conn.execute(f"SELECT level, node_index, hash FROM log_nodes WHERE {where}",
                                [v for key in chunk for v in key]).fetchall()
            out.update({(r[0], r[1]): bytes(r[2]) for r in rows})
        return out

    def integrate_log(self, build: LogBuild, *, limit: int = 1000) -> LogCheckpoint | None:
        # A cheap read first, so that an idle sequencer does not take SQLite's writer lock every interval.
        if self.log_pending() == 0 and self.log_checkpoint() is not None:
            return None
        with self._write() as conn:  # BEGIN IMMEDIATE: SQLite's one writer is the one sequencer
            done = build_log_batch(conn, "?", datetime.fromisoformat, self._log_nodes, build, limit)
            if done is None:
                return None
            now = format_time(datetime.now(UTC))
            for game_id, leaf_index, leaf_hash in done.leaves:
                updated = conn.execute(
                    "UPDATE log_leaves SET leaf_index = ?, leaf_hash = ?, integrated_at = ?"
                    " WHERE game_id = ? AND leaf_index IS NULL", (leaf_index, leaf_hash, now, game_id)).rowcount
                if updated != 1:
                    raise RuntimeError(f"the leaf of game {game_id} is not pending")
            conn.executemany("INSERT INTO log_nodes (level, node_index, hash) VALUES (?, ?, ?)", done.nodes)
            conn.execute("INSERT INTO log_checkpoints (tree_size, root, note, created_at) VALUES (?, ?, ?, ?)",
                         (done.checkpoint.tree_size, done.checkpoint.root, done.checkpoint.note, now))
        return done.checkpoint

    def log_checkpoint(self, tree_size: int | None = None) -> LogCheckpoint | None:
        row = self._query("SELECT tree_size, root, note FROM log_checkpoints WHERE (? IS NULL OR tree_size = ?)"
                          " ORDER BY tree_size DESC LIMIT 1", (tree_size, tree_size)).fetchone()
        return LogCheckpoint(row[0], bytes(row[1]), row[2]) if row else None

    def log_nodes(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        with self._conn() as conn:
            return self._log_nodes(conn, keys)

    def add_log_cosignatures(self, tree_size: int, lines: dict[str, str]) -> None:
        with self._write() as conn:
            conn.executemany("INSERT INTO log_cosignatures (tree_size, witness, line) VALUES (?, ?, ?)"
                             " ON CONFLICT DO NOTHING", [(tree_size, w, line) for w, line in lines.items()])

    def log_cosignatures(self, tree_size: int) -> dict[str, str]:
        rows = self._query("SELECT witness, line FROM log_cosignatures WHERE tree_size = ? ORDER BY witness",
                           (tree_size,)).fetchall()
        return {witness: line for witness, line in rows}

    def log_witnessed_size(self, witness: str) -> int:
        row = self._query("SELECT max(tree_size) FROM log_cosignatures WHERE witness = ?", (witness,)).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def log_cosigned_size(self, witnesses: Sequence[str], quorum: int) -> int | None:
        marks = ", ".join("?" for _ in witnesses) or "NULL"
        row = self._query(f"SELECT tree_size FROM log_cosignatures WHERE witness IN ({marks}) GROUP BY tree_size"
                          " HAVING count(*) >= ? ORDER BY tree_size DESC LIMIT 1", (*witnesses, quorum)).fetchone()
        return int(row[0]) if row else None

    def log_leaf(self, *, game_id: str | None = None, leaf_hash: bytes | None = None) -> LogLeaf | None:
        if game_id is not None:
            row = self._query(f"SELECT {_LEAF_COLS} FROM log_leaves WHERE game_id = ? AND leaf_index IS NOT NULL",
                              (game_id,)).fetchone()
        else:
            row = self._query(f"SELECT {_LEAF_COLS} FROM log_leaves WHERE leaf_hash = ?", (leaf_hash,)).fetchone()
        return LogLeaf(row[0], row[1], row[2], row[3], bytes(row[4])) if row else None

    def log_pending(self) -> int:
        row = self._query("SELECT count(*) FROM log_leaves WHERE leaf_index IS NULL").fetchone()
        return int(row[0]) if row else 0

    def save_snapshot(self, snapshot: Snapshot) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO snapshots (game_id, version, position, created_at, lifecycle)"
                " VALUES (?, ?, ?, ?, ?)",
                (snapshot.game_id, snapshot.version, canonical_json(snapshot.position),
                 format_time(datetime.now(UTC)),
                 None if snapshot.lifecycle is None else canonical_json(snapshot.lifecycle)),
            )

    def latest_snapshot(self, game_id: str, *, at_most: int | None = None) -> Snapshot | None:
        row = self._query(
            "SELECT version, position, lifecycle FROM snapshots WHERE game_id = ? AND (? IS NULL OR version <= ?)"
            " ORDER BY version DESC LIMIT 1",
            (game_id, at_most, at_most),
        ).fetchone()
        return Snapshot(game_id, row[0], json.loads(row[1]), json.loads(row[2]) if row[2] else None) if row else None

    def due_games(self, now: str, *, limit: int = 100) -> list[str]:
        rows = self._query(
            "SELECT game_id FROM games WHERE status = 'active' AND json_extract(summary, '$.deadline') <= ?"
            " ORDER BY json_extract(summary, '$.deadline') LIMIT ?",
            (now, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def pending_ai_turns(self, *, limit: int = 100) -> list[AiTurn]:
        rows = self._query(
            "SELECT game_id, seat, version, created_at FROM ai_turns WHERE done_at IS NULL"
            " ORDER BY created_at LIMIT ?",
            (limit,),
        ).fetchall()
        return [AiTurn(r[0], r[1], r[2], r[3]) for r in rows]

    def complete_ai_turn(self, game_id: str, version: int) -> None:
        with self._write() as conn:
            conn.execute(
                "UPDATE ai_turns SET done_at = ? WHERE game_id = ? AND version = ? AND done_at IS NULL",
                (format_time(datetime.now(UTC)), game_id, version),
            )

    # -- webhooks ---------------------------------------------------------------------------------------

    def claim_webhooks(self, owner: str, *, limit: int, per_endpoint: int, busy: Mapping[str, int],
                       served: Mapping[str, int], lease: float, clock: Callable[[], datetime]
                       ) -> list[WebhookDelivery]:
        # The same committed lease as on PostgreSQL; the one writer lock makes the claim exclusive.
        now = clock()
        at = format_time(now)
        if self._query("SELECT 1 FROM webhook_outbox WHERE status = 'pending' AND next_attempt_at <= ? LIMIT 1",
                       (at,)).fetchone() is None:
            return []  # nothing due: no write transaction
        with self._write() as conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS webhook_turns (tenant TEXT PRIMARY KEY, busy INTEGER,"
                         " served INTEGER)")
            conn.execute("DELETE FROM webhook_turns")
            conn.executemany("INSERT INTO webhook_turns VALUES (?, ?, ?)",
                             [(t, busy.get(t, 0), served.get(t, -1)) for t in set(busy) | set(served)])
            seqs = [r[0] for r in conn.execute(
                "SELECT seq FROM (SELECT w.seq, w.next_attempt_at, coalesce(b.busy, 0) AS busy,"
                " coalesce(b.served, -1) AS served,"
                " row_number() OVER (PARTITION BY w.tenant ORDER BY w.next_attempt_at, w.seq) AS turn"
                " FROM webhook_outbox w LEFT JOIN webhook_turns b ON b.tenant = w.tenant"
                " WHERE w.status = 'pending' AND w.next_attempt_at <= ? AND (w.lease_until IS NULL"
                " OR w.lease_until <= ?)) WHERE turn <= ? - busy ORDER BY turn, served, next_attempt_at, seq"
                " LIMIT ?",
                (at, at, per_endpoint, limit)).fetchall()]
            conn.executemany("UPDATE webhook_outbox SET lease_owner = ?, lease_until = ? WHERE seq = ?",
                             [(owner, format_time(now + timedelta(seconds=lease)), seq) for seq in seqs])
            rows = conn.execute(f"SELECT {_WEBHOOK_COLS} FROM webhook_outbox WHERE seq IN"
                                f" ({', '.join('?' * len(seqs))}) ORDER BY seq", seqs).fetchall() if seqs else []
        return [_webhook(r) for r in rows]

    def record_webhook(self, owner: str, outcome: WebhookOutcome, *, clock: Callable[[], datetime]) -> bool:
        status = "delivered" if outcome.delivered else "failed" if outcome.retry_at is None else "pending"
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE webhook_outbox SET attempts = attempts + 1, lease_owner = NULL, lease_until = NULL,"
                " last_status = ?, last_error = ?, status = ?, delivered_at = CASE WHEN ? THEN ? ELSE delivered_at"
                " END, next_attempt_at = coalesce(?, next_attempt_at)"
                " WHERE seq = ? AND status = 'pending' AND lease_owner = ?",
                (outcome.status, outcome.error, status, int(outcome.delivered), format_time(clock()),
                 None if outcome.retry_at is None else format_time(outcome.retry_at), outcome.seq, owner))
            return cur.rowcount == 1

    def webhook_deliveries(self, *, after: int = 0, limit: int = 100, tenant: str | None = None
                           ) -> list[WebhookDelivery]:
        rows = self._query(
            f"SELECT {_WEBHOOK_COLS} FROM webhook_outbox WHERE seq > ? AND (? IS NULL OR tenant = ?)"
            " ORDER BY seq LIMIT ?", (after, tenant, tenant, limit)).fetchall()
        return [_webhook(r) for r in rows]

    def webhook_backlog(self) -> int:
        row = self._query("SELECT count(*) FROM webhook_outbox WHERE status = 'pending'").fetchone()
        return int(row[0]) if row else 0

    def webhook_backlogs(self, *, clock: Callable[[], datetime]) -> dict[str, tuple[int, float]]:
        rows = self._query("SELECT tenant, count(*), min(created_at) FROM webhook_outbox WHERE status = 'pending'"
                           " GROUP BY tenant").fetchall()
        now = clock()
        return {t: (int(n), max(0.0, (now - parse_time(oldest)).total_seconds())) for t, n, oldest in rows}


class _Result:
    """Fetched rows with the cursor's ``fetchone``/``fetchall`` spelling."""

    __slots__ = ("rows",)

    def __init__(self, rows: list[Any]) -> None:
        self.rows = rows

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Any]:
        return self.rows


class _Pool:
    """Connections lent one call at a time: a borrowed connection goes back to the idle list (at most ``idle``
    kept; more are closed on return), so the number open never exceeds the calls in flight plus ``idle``,
    however many threads come and go. ``limit`` caps the total (callers wait for one to come back)."""

    def __init__(self, connect: Any, *, idle: int, limit: int | None = None) -> None:
        self._connect = connect
        self._idle: list[sqlite3.Connection] = []
        self._keep = idle
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(limit) if limit else None
        self._closed = False

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        if self._slots is not None:
            self._slots.acquire()
        try:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                conn = self._connect()
            try:
                yield conn
            finally:
                self._give_back(conn)
        finally:
            if self._slots is not None:
                self._slots.release()

    def _give_back(self, conn: sqlite3.Connection) -> None:
        if conn.in_transaction:  # a failed COMMIT or ROLLBACK: never lend a connection mid-transaction
            conn.close()
            return
        with self._lock:
            if not self._closed and len(self._idle) < self._keep:
                self._idle.append(conn)
                return
        conn.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._lock:
            self._closed, idle, self._idle = True, self._idle, []
        for conn in idle:
            conn.close()


def _instant(text: str) -> datetime:
    """A stored ``format_time`` text back to an aware datetime."""
    return datetime.fromisoformat(text)


def _statements(script: str) -> list[str]:
    """Split a migration into statements, keeping ``CREATE TRIGGER ... BEGIN ... END;`` whole."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--") and not buffer.strip():
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements

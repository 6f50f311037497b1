"""Post-game analyses on PostgreSQL: the ``analyses`` projection beside the log (migration 0016), and the
``analysis.ready`` webhook written with the result in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from torres_online.lifecycle import format_time
from torres_service.json_provider import dumps_bytes

from .base import AnalysisRow, WebhookRow

_COLS = ("game_id, engine_version, depth, status, requested_at, updated_at, completed_at, progress, result,"
         " cpu_seconds")


def _row(row: tuple[Any, ...]) -> AnalysisRow:
    return AnalysisRow(game_id=row[0], engine_version=row[1], depth=row[2], status=row[3],
                       requested_at=format_time(row[4]), updated_at=format_time(row[5]),
                       completed_at=None if row[6] is None else format_time(row[6]), progress=row[7], result=row[8],
                       cpu_seconds=row[9])


def _jsonb(value: Any) -> Jsonb:
    return Jsonb(value, dumps=dumps_bytes)


class PostgresAnalyses:
    """The analyses' part of :class:`~torres_game.store.postgres.PostgresEventStore` (its pool is the store's)."""

    pool: ConnectionPool

    def request_analysis(self, game_id: str, engine_version: str, depth: str, *, now: datetime) -> AnalysisRow:
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO analyses (game_id, engine_version, depth, requested_at, updated_at)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING", (game_id, engine_version, depth, now, now))
            row = conn.execute(f"SELECT {_COLS} FROM analyses WHERE game_id = %s AND engine_version = %s"
                               " AND depth = %s", (game_id, engine_version, depth)).fetchone()
        assert row is not None
        return _row(row)

    def get_analysis(self, game_id: str, engine_version: str, depth: str) -> AnalysisRow | None:
        with self.pool.connection() as conn:
            row = conn.execute(f"SELECT {_COLS} FROM analyses WHERE game_id = %s AND engine_version = %s"
                               " AND depth = %s", (game_id, engine_version, depth)).fetchone()
        return None if row is None else _row(row)

    def analysis_progress(self, row: AnalysisRow, progress: list[dict[str, Any]], cpu_seconds: float,
                          *, now: datetime) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "UPDATE analyses SET progress = %s, cpu_seconds = cpu_seconds + %s, updated_at = %s"
                " WHERE game_id = %s AND engine_version = %s AND depth = %s AND status = 'pending'"
                " AND jsonb_array_length(progress) < %s",
                (_jsonb(progress), cpu_seconds, now, row.game_id, row.engine_version, row.depth, len(progress)))

    def complete_analysis(self, row: AnalysisRow, result: dict[str, Any], cpu_seconds: float, *, now: datetime,
                          webhooks: Sequence[WebhookRow] = ()) -> bool:
        with self.pool.connection() as conn, conn.transaction():
            done = conn.execute(
                "UPDATE analyses SET status = 'ready', result = %s, progress = '[]'::jsonb, completed_at = %s,"
                " updated_at = %s, cpu_seconds = cpu_seconds + %s"
                " WHERE game_id = %s AND engine_version = %s AND depth = %s AND status = 'pending'",
                (_jsonb(result), now, now, cpu_seconds, row.game_id, row.engine_version, row.depth)).rowcount
            if done and webhooks:
                # The outbox's seq is drawn under the writers' shared lock, as by an append (migration 0012), so
                # the delivery log's readers never skip this row.
                conn.execute("SELECT pg_advisory_xact_lock_shared(torres_events_lock_key())")
                conn.execute("SELECT torres_write_webhooks(%s, %s, %s)", (row.game_id, now, _jsonb(
                    [{"delivery_id": w.delivery_id, "tenant": w.tenant, "type": w.type, "payload": w.payload}
                     for w in webhooks])))
        return bool(done)

    def pending_analyses(self, *, limit: int = 100) -> list[AnalysisRow]:
        with self.pool.connection() as conn:
            rows = conn.execute(f"SELECT {_COLS} FROM analyses WHERE status = 'pending' ORDER BY updated_at LIMIT %s",
                                (limit,)).fetchall()
        return [_row(r) for r in rows]

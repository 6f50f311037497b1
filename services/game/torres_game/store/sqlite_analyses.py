"""Post-game analyses on SQLite: the ``analyses`` projection beside the log (migration 0011), and the
``analysis.ready`` webhook written with the result in one transaction (SQLite's one writer)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from torres_audit.chain import canonical_json
from torres_online.lifecycle import format_time

from .base import AnalysisRow, WebhookRow


class SqliteAnalyses:
    """The analyses' part of :class:`~torres_game.store.sqlite.SqliteEventStore` (its connections are the store's)."""

    _write: Callable[[], contextlib.AbstractContextManager[sqlite3.Connection]]
    _query: Callable[..., Any]
    _insert_webhooks: Callable[[sqlite3.Connection, str, Sequence[WebhookRow], str], None]

    _ANALYSIS_COLS = ("game_id, engine_version, depth, status, requested_at, updated_at, completed_at, progress,"
                      " result, cpu_seconds")

    @staticmethod
    def _analysis(row: Sequence[Any]) -> AnalysisRow:
        return AnalysisRow(game_id=row[0], engine_version=row[1], depth=row[2], status=row[3], requested_at=row[4],
                           updated_at=row[5], completed_at=row[6], progress=json.loads(row[7]),
                           result=None if row[8] is None else json.loads(row[8]), cpu_seconds=row[9])

    def request_analysis(self, game_id: str, engine_version: str, depth: str, *, now: datetime) -> AnalysisRow:
        at = format_time(now)
        with self._write() as conn:
            conn.execute("INSERT OR IGNORE INTO analyses (game_id, engine_version, depth, requested_at, updated_at)"
                         " VALUES (?, ?, ?, ?, ?)", (game_id, engine_version, depth, at, at))
            row = conn.execute(f"SELECT {self._ANALYSIS_COLS} FROM analyses WHERE game_id = ? AND engine_version = ?"
                               " AND depth = ?", (game_id, engine_version, depth)).fetchone()
        return self._analysis(row)

    def get_analysis(self, game_id: str, engine_version: str, depth: str) -> AnalysisRow | None:
        row = self._query(f"SELECT {self._ANALYSIS_COLS} FROM analyses WHERE game_id = ? AND engine_version = ?"
                          " AND depth = ?", (game_id, engine_version, depth)).fetchone()
        return None if row is None else self._analysis(row)

    def analysis_progress(self, row: AnalysisRow, progress: list[dict[str, Any]], cpu_seconds: float,
                          *, now: datetime) -> None:
        with self._write() as conn:
            conn.execute("UPDATE analyses SET progress = ?, cpu_seconds = cpu_seconds + ?, updated_at = ?"
                         " WHERE game_id = ? AND engine_version = ? AND depth = ? AND status = 'pending'"
                         " AND json_array_length(progress) < ?",
                         (canonical_json(progress), cpu_seconds, format_time(now), row.game_id, row.engine_version,
                          row.depth, len(progress)))

    def complete_analysis(self, row: AnalysisRow, result: dict[str, Any], cpu_seconds: float, *, now: datetime,
                          webhooks: Sequence[WebhookRow] = ()) -> bool:
        at = format_time(now)
        with self._write() as conn:
            done = conn.execute(
                "UPDATE analyses SET status = 'ready', result = ?, progress = '[]', completed_at = ?, updated_at = ?,"
                " cpu_seconds = cpu_seconds + ? WHERE game_id = ? AND engine_version = ? AND depth = ?"
                " AND status = 'pending'",
                (canonical_json(result), at, at, cpu_seconds, row.game_id, row.engine_version, row.depth)).rowcount
            if done:
                self._insert_webhooks(conn, row.game_id, webhooks, at)
        return bool(done)

    def pending_analyses(self, *, limit: int = 100) -> list[AnalysisRow]:
        rows = self._query(f"SELECT {self._ANALYSIS_COLS} FROM analyses WHERE status = 'pending'"
                           " ORDER BY updated_at LIMIT ?", (limit,)).fetchall()
        return [self._analysis(r) for r in rows]


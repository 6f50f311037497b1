"""The webhook outbox on PostgreSQL: claims that commit a lease, records that only the lease's owner can make, and
the delivery log's reads. Apart from the event store's other concerns because a claim's SQL is the subtle part:
it is read by whoever changes delivery, not by whoever changes appends."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from psycopg_pool import ConnectionPool

from torres_online.lifecycle import format_time

from .base import WebhookDelivery, WebhookOutcome

_WEBHOOK_COLS = ("seq, delivery_id, tenant, game_id, type, payload, created_at, status, attempts, next_attempt_at,"
                 " last_status, last_error, delivered_at")


def _webhook(row: tuple[Any, ...]) -> WebhookDelivery:
    return WebhookDelivery(
        seq=row[0], delivery_id=row[1], tenant=row[2], game_id=row[3], type=row[4], payload=row[5],
        created_at=format_time(row[6]), status=row[7], attempts=row[8], next_attempt_at=format_time(row[9]),
        last_status=row[10], last_error=row[11], delivered_at=None if row[12] is None else format_time(row[12]),
    )


def _status_of(outcome: WebhookOutcome) -> str:
    return "delivered" if outcome.delivered else "failed" if outcome.retry_at is None else "pending"


class PostgresOutbox:
    """The outbox's part of :class:`~torres_game.store.postgres.PostgresEventStore` (its pool is the store's)."""

    pool: ConnectionPool

    def claim_webhooks(self, owner: str, *, limit: int, per_endpoint: int, busy: Mapping[str, int],
                       served: Mapping[str, int], lease: float, clock: Callable[[], datetime]
                       ) -> list[WebhookDelivery]:
        # A committed lease, not a lock held while posting: no transaction stays open across the network. The
        # UPDATE re-checks the lease on a row another claim changed meanwhile (READ COMMITTED re-reads it), so two
        # claims never lease one row. Each tenant's due rows are numbered in due order and the first of every
        # tenant comes before any second: a tenant with thousands due takes its share, not the batch.
        now = clock()
        known = sorted(set(busy) | set(served))
        # One statement, committed on its own like the record below (a lost claim is only a lease that never was).
        with self.pool.connection() as conn:
            rows = conn.execute(
                "WITH quick AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true))"
                " UPDATE webhook_outbox o SET lease_owner = %(owner)s, lease_until = %(until)s FROM ("
                " SELECT seq FROM (SELECT w.seq, w.next_attempt_at, coalesce(b.busy, 0) AS busy,"
                "  coalesce(b.served, -1) AS served,"
                "  row_number() OVER (PARTITION BY w.tenant ORDER BY w.next_attempt_at, w.seq) AS turn"
                "  FROM webhook_outbox w LEFT JOIN"
                "  unnest(%(tenants)s::text[], %(busy)s::integer[], %(served)s::bigint[]) AS b(tenant, busy, served)"
                "  ON b.tenant = w.tenant"
                "  WHERE w.status = 'pending' AND w.next_attempt_at <= %(now)s"
                "  AND (w.lease_until IS NULL OR w.lease_until <= %(now)s)) d"
                " WHERE d.turn <= %(cap)s - d.busy ORDER BY d.turn, d.served, d.next_attempt_at, d.seq"
                " LIMIT %(limit)s) c"
                # re-checked on the row as it is now: a record committed since the subquery read it may have set
                # its next attempt later (read committed re-reads only this WHERE), which would post it again at once
                " WHERE o.seq = c.seq AND o.status = 'pending' AND o.next_attempt_at <= %(now)s"
                " AND (o.lease_until IS NULL OR o.lease_until <= %(now)s)"
                " AND EXISTS (SELECT FROM quick)"
                f" RETURNING {', '.join('o.' + c.strip() for c in _WEBHOOK_COLS.split(','))}",
                {"owner": owner, "until": now + timedelta(seconds=lease), "now": now, "cap": per_endpoint,
                 "limit": limit, "tenants": list(known), "busy": [busy.get(t, 0) for t in known],
                 "served": [served.get(t, -1) for t in known]}).fetchall()
        return sorted((_webhook(r) for r in rows), key=lambda w: w.seq)

    def record_webhook(self, owner: str, outcome: WebhookOutcome, *, clock: Callable[[], datetime]) -> bool:
        # One statement, committed on its own (the pool's connections autocommit): one round trip. It commits
        # without waiting for its WAL flush (set_config's local setting holds until this statement's own commit): a
        # crash can lose the last records, which delivery at least once allows for (posted again, same id).
        with self.pool.connection() as conn:
            cur = conn.execute(
                "WITH quick AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true))"
                " UPDATE webhook_outbox SET attempts = attempts + 1, lease_owner = NULL, lease_until = NULL,"
                " last_status = %s, last_error = %s, status = %s,"
                " delivered_at = CASE WHEN %s THEN %s ELSE delivered_at END,"
                " next_attempt_at = coalesce(%s, next_attempt_at)"
                " WHERE seq = %s AND status = 'pending' AND lease_owner = %s AND EXISTS (SELECT FROM quick)",
                (outcome.status, outcome.error, _status_of(outcome), outcome.delivered, clock(), outcome.retry_at,
                 outcome.seq, owner))
            return cur.rowcount == 1

    def webhook_deliveries(self, *, after: int = 0, limit: int = 100, tenant: str | None = None
                           ) -> list[WebhookDelivery]:
        with self.pool.connection() as conn:
            # Two statements: the page is read with a snapshot taken after the horizon's wait (0012).
            horizon = conn.execute("SELECT torres_webhooks_horizon()").fetchone()[0]  # type: ignore[index]
            rows = conn.execute(
                f"SELECT {_WEBHOOK_COLS} FROM webhook_outbox WHERE seq > %s AND seq <= %s"
                " AND (%s::text IS NULL OR tenant = %s::text) ORDER BY seq LIMIT %s",
                (after, horizon, tenant, tenant, limit),
            ).fetchall()
        return [_webhook(r) for r in rows]

    def webhook_backlog(self) -> int:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT count(*) FROM webhook_outbox WHERE status = 'pending'").fetchone()
        return int(row[0]) if row else 0

    def webhook_backlogs(self, *, clock: Callable[[], datetime]) -> dict[str, tuple[int, float]]:
        with self.pool.connection() as conn:
            rows = conn.execute("SELECT tenant, count(*), min(created_at) FROM webhook_outbox"
                                " WHERE status = 'pending' GROUP BY tenant").fetchall()
        now = clock()
        return {t: (int(n), max(0.0, (now - oldest).total_seconds())) for t, n, oldest in rows}

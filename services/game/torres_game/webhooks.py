"""Webhooks from the game service (issue 29): what a game's events tell its tenant's portal, and their delivery.

* :func:`webhooks_for` is the one place that decides which webhooks an append causes, from the events it appends
  and the lifecycle before and after them (:mod:`torres_audit.lifecycle`, the fold the service and the verifier
  share): ``game.created``, ``turn.started`` (seat, player, deadline: a portal's "your turn" mail),
  ``game.ended`` (result, ranks, rated, reason), ``seat.timed_out``, ``seat.resigned``, ``game.abandoned``. The
  rows go to the outbox in the append's own transaction (``EventStore.append(..., AppendOptions(webhooks=...))``):
  an event is never recorded without its webhooks, nor a webhook without its event.
* :class:`WebhookWorker` delivers them, at least once: it claims due rows (several workers share the outbox; on
  PostgreSQL the claim is the rows' lock, ``FOR UPDATE SKIP LOCKED``, held while they are posted; on SQLite a
  lease), posts each signed by :mod:`torres_service.webhooks` (the signature the matchmaker's callbacks carry),
  and records the attempt on the row: delivered, or retried after the shared back-off, or ``failed`` after
  ``TORRES_WEBHOOK_ATTEMPTS``. A worker killed mid-batch loses nothing: its rows come back when its connection
  is gone (or its lease ends) and are posted again with the same ``X-Torres-Delivery`` id.

A payload never carries what a seat may not see: no seat token, no card, no seed; only what the public event log
says, and the tenant's own portal data (external id, labels, display names).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from prometheus_client import Counter, Histogram

from torres_audit import lifecycle as lc
from torres_audit.chain import canonical_json
from torres_audit.events import ABANDONED, GAME_CREATED, GAME_ENDED, RESIGNED, TIMED_OUT
from torres_service import webhooks as signing
from torres_service.principals import Registries
from torres_service.settings import Setting

from .config import Config
from .store.base import EventStore, GameRecord, NewEvent, WebhookDelivery, WebhookOutcome, WebhookRow

log = logging.getLogger(__name__)

GAME_CREATED_HOOK = "game.created"
TURN_STARTED = "turn.started"
GAME_ENDED_HOOK = "game.ended"
SEAT_TIMED_OUT = "seat.timed_out"
SEAT_RESIGNED = "seat.resigned"
GAME_ABANDONED = "game.abandoned"
#: Every webhook type, in the order docs/integration.md lists them.
TYPES = (GAME_CREATED_HOOK, TURN_STARTED, GAME_ENDED_HOOK, SEAT_TIMED_OUT, SEAT_RESIGNED, GAME_ABANDONED)
#: The result members of ``game_ended`` a portal gets (the revealed seed is for auditors: the record has it).
_RESULT = ("scores", "winner", "winners", "ranks", "forfeited", "reason", "rated")

#: ``python -m torres_game webhooks``: its own metrics endpoint (the service processes' threads count in /metrics).
METRICS_PORT = Setting("TORRES_WEBHOOK_METRICS_PORT", "`python -m torres_game webhooks`: the port Prometheus "
                       "scrapes it on; `0`: none", default=0)
METRICS_HOST = Setting("TORRES_WEBHOOK_METRICS_HOST", "`python -m torres_game webhooks`: the address of that port",
                       default="0.0.0.0")

#: Seconds a worker woken by its own process's append waits before it claims, so that a burst of appends is one
#: batch (one claim and record) rather than one each, for a few milliseconds of latency. (A dedicated worker is
#: woken by nobody: it looks every ``TORRES_WEBHOOK_INTERVAL``.)
GATHER = 0.025

WRITTEN = Counter("torres_game_webhooks_written_total", "Webhooks written to the outbox with their events.", ["type"])
ATTEMPTS = Counter("torres_game_webhook_attempts_total",
                   "Webhook delivery attempts, by outcome: delivered, retry (will be tried again), failed (given up).",
                   ["outcome"])
LATENCY = Histogram("torres_game_webhook_delivery_seconds",
                    "From the append that caused a webhook to its endpoint's 2xx (retries included).",
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800))


def _seat(record: GameRecord, seat: int | None) -> dict[str, Any]:
    """A seat as the webhook names it: number, kind, the tenant's player id and display name (public already)."""
    if seat is None or not 0 <= seat < len(record.seats):
        return {"seat": seat, "player_id": None}
    spec = record.seats[seat]
    return {"seat": seat, "kind": spec.get("kind"), "player_id": spec.get("player_id"),
            "display_name": spec.get("display_name")}


def webhooks_for(
    record: GameRecord, events: Sequence[NewEvent], first_version: int, at: str,
    before: lc.Lifecycle | None, after: lc.Lifecycle, summary: dict[str, Any],
) -> list[WebhookRow]:
    """The webhooks ``events`` (versions from ``first_version``, recorded at ``at``) cause for ``record``'s tenant,
    given the lifecycle ``before`` them (None: they create the game) and ``after`` them and the game's new
    ``summary``. A turn starts when the seat whose clock runs changes (or runs again from ``at``): once per append,
    for the seat to move after all of it. Delivery ids are ``<game>.<version>.<type>``: the same however often a
    row is posted, and unique in the outbox."""
    out: list[tuple[int, str, dict[str, Any]]] = []
    for offset, event in enumerate(events):
        version = first_version + offset
        payload = event.payload
        if event.type == GAME_CREATED:
            out.append((version, GAME_CREATED_HOOK, {
                "edition": payload["edition"], "master": payload["master"], "options": payload["options"],
                "visibility": record.visibility, "seats": [_seat(record, n) for n in range(len(record.seats))]}))
        elif event.type == TIMED_OUT:
            data = {**_seat(record, payload["seat"]), "deadline": payload["deadline"], "policy": payload["policy"]}
            out.append((version, SEAT_TIMED_OUT, data))
        elif event.type == RESIGNED:
            out.append((version, SEAT_RESIGNED, _seat(record, payload["seat"])))
        elif event.type == ABANDONED:
            out.append((version, GAME_ABANDONED, {"reason": payload["reason"]}))
        elif event.type == GAME_ENDED:
            out.append((version, GAME_ENDED_HOOK, {k: payload.get(k) for k in _RESULT}))
    last = first_version + len(events) - 1
    if not after.over and after.mover is not None and (
            before is None or (before.mover, before.turn_start) != (after.mover, after.turn_start)):
        out.append((last, TURN_STARTED, {**_seat(record, after.mover), "deadline": summary.get("deadline"),
                                         "stage": summary.get("stage"), "phase": summary.get("phase"),
                                         "round": summary.get("round")}))
    rows: list[WebhookRow] = []
    for version, kind, data in out:
        delivery_id = f"{record.game_id}.{version}.{kind}"
        rows.append(WebhookRow(delivery_id, record.tenant, kind, {
            "id": delivery_id, "type": kind, "tenant": record.tenant, "game_id": record.game_id,
            "external_id": record.external_id, "labels": record.labels, "version": version, "created_at": at,
            "data": data}))
    return rows


def body_of(delivery: WebhookDelivery) -> bytes:
    """The bytes posted (and signed): the payload as canonical JSON, so every attempt of a delivery posts the same."""
    return canonical_json(delivery.payload).encode()


class WebhookWorker:
    """Delivers the outbox: a loop (:meth:`run`) in a thread of each service process, or a process of its own
    (``python -m torres_game webhooks``). Any number may run against one database."""

    def __init__(self, store: EventStore, registries: Registries, config: Config,
                 *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.store = store
        self.registries = registries
        self.config = config
        self.clock = clock
        self._poster = signing.Poster(config.webhook_timeout, connections=max(1, config.webhook_concurrency))
        self._wake = threading.Event()

    def wake(self) -> None:
        """Look at the outbox now (this process appended webhooks): no poll interval between append and post."""
        self._wake.set()

    def close(self) -> None:
        self._wake.set()
        self._poster.close()

    def deliver_due(self) -> int:
        """One batch: claim due rows, post them (``webhook_concurrency`` at once, :meth:`Poster.post_all`), record
        the attempts. Returns how many rows were claimed."""
        return self.store.deliver_webhooks(self._attempts, limit=self.config.webhook_batch,
                                           lease=self.config.webhook_lease, clock=self.clock)

    def _attempts(self, claimed: Sequence[WebhookDelivery]) -> list[WebhookOutcome]:
        """Every claimed row's attempt, posted together (a row whose tenant has no endpoint now is not posted)."""
        registry = self.registries.current
        posts: dict[int, signing.Post] = {}
        for delivery in claimed:
            tenant = registry.tenant(delivery.tenant)
            if tenant is not None and tenant.webhook is not None:
                posts[delivery.seq] = signing.Post(tenant.webhook.url, tenant.webhook.secret, body_of(delivery),
                                                   delivery.delivery_id)
        attempts = dict(zip(posts, self._poster.post_all(list(posts.values())), strict=True))
        return [self._outcome(delivery, attempts.get(delivery.seq)) for delivery in claimed]

    def _outcome(self, delivery: WebhookDelivery, attempt: signing.Attempt | None) -> WebhookOutcome:
        """What the delivery log records of ``delivery``'s attempt (None: its tenant has no endpoint now)."""
        if attempt is None:  # the tenant removed its endpoint: nothing to post to
            ATTEMPTS.labels("failed").inc()
            log.warning("webhook has no endpoint", extra={"delivery_id": delivery.delivery_id,
                                                           "tenant": delivery.tenant})
            return WebhookOutcome(delivery.seq, False, None, "no webhook endpoint configured", None)
        if attempt.ok:
            ATTEMPTS.labels("delivered").inc()
            LATENCY.observe(max(0.0, (self.clock() - lc.parse_time(delivery.created_at)).total_seconds()))
            return WebhookOutcome(delivery.seq, True, attempt.status)
        attempts = delivery.attempts + 1
        if attempts >= self.config.webhook_attempts:
            ATTEMPTS.labels("failed").inc()
            log.error("webhook given up", extra={"delivery_id": delivery.delivery_id, "attempts": attempts,
                                                 "status": attempt.status, "error": attempt.error})
            return WebhookOutcome(delivery.seq, False, attempt.status, attempt.error, None)
        ATTEMPTS.labels("retry").inc()
        log.info("webhook attempt failed", extra={"delivery_id": delivery.delivery_id, "attempts": attempts,
                                                  "status": attempt.status, "error": attempt.error})
        retry_at = self.clock() + timedelta(seconds=signing.backoff(attempts))
        return WebhookOutcome(delivery.seq, False, attempt.status, attempt.error, retry_at)

    def run(self, stop: threading.Event, interval: float | None = None) -> None:
        """Deliver until ``stop`` is set (or the store is closed): a full batch is followed at once by the next,
        otherwise the loop sleeps ``interval`` seconds or until :meth:`wake`."""
        interval = self.config.webhook_interval if interval is None else interval
        failing = False
        while not stop.is_set() and not self.store.closed:
            claimed = 0
            try:
                # No tenant with an endpoint (the embedded default, most tests): no query at all.
                if any(t.webhook is not None for t in self.registries.current.tenants.values()):
                    claimed = self.deliver_due()
                failing = False
            except Exception:  # the database away: say so once per outage, keep trying
                if not failing and not self.store.closed:
                    log.exception(f"webhook delivery failed; retrying every {interval} s")
                failing = True
            if claimed < self.config.webhook_batch:
                if self._wake.wait(interval) and not stop.is_set():
                    stop.wait(GATHER)  # woken by an append: let the appends of the next moments join the batch
                self._wake.clear()

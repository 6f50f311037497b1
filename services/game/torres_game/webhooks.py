"""Webhooks from the game service: what a game's events tell its tenant's portal, and their delivery.

* :func:`webhooks_for` is the one place that decides which webhooks an append causes, from the events it appends
  and the lifecycle before and after them (:mod:`torres_online.lifecycle`, the fold the service and the verifier
  share): ``game.created``, ``turn.started`` (seat, player, deadline: a portal's "your turn" mail),
  ``game.ended`` (result, ranks, rated, reason), ``seat.timed_out``, ``seat.resigned``, ``game.abandoned``. The
  rows go to the outbox in the append's own transaction (``EventStore.append(..., AppendOptions(webhooks=...))``):
  an event is never recorded without its webhooks, nor a webhook without its event.
* :class:`WebhookWorker` delivers them, at least once: it claims due rows by committing a lease on them
  (several workers share the outbox, and never post one row at once within a lease), posts each signed by
  :mod:`torres_service.webhooks` (the signature and the poster the matchmaker's callbacks use) with no transaction
  open, and records the attempt on the row in a transaction of its own: delivered, or retried after the shared
  back-off, or ``failed`` after ``TORRES_WEBHOOK_ATTEMPTS``. A worker killed mid-attempt loses nothing: its rows
  come back when their lease ends and are posted again with the same ``X-Torres-Delivery`` id.

A payload never carries what a seat may not see: no seat token, no card, no seed; only what the public event log
says, and the tenant's own portal data (external id, labels, display names).
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from torres_audit.chain import canonical_json
from torres_online import lifecycle as lc
from torres_online.events import ABANDONED, GAME_CREATED, GAME_ENDED, RESIGNED, TIMED_OUT
from torres_service import webhooks as signing
from torres_service.principals import Registries

from .config import Config
from .store.base import EventStore, GameRecord, NewEvent, WebhookDelivery, WebhookOutcome, WebhookRow

log = logging.getLogger(__name__)

GAME_CREATED_HOOK = "game.created"
TURN_STARTED = "turn.started"
GAME_ENDED_HOOK = "game.ended"
SEAT_TIMED_OUT = "seat.timed_out"
SEAT_RESIGNED = "seat.resigned"
GAME_ABANDONED = "game.abandoned"
ANALYSIS_READY = "analysis.ready"
#: Every webhook type, in the order docs/integration.md lists them.
TYPES = (GAME_CREATED_HOOK, TURN_STARTED, GAME_ENDED_HOOK, SEAT_TIMED_OUT, SEAT_RESIGNED, GAME_ABANDONED,
         ANALYSIS_READY)
#: The result members of ``game_ended`` a portal gets (the revealed seed is for auditors: the record has it).
_RESULT = ("scores", "winner", "winners", "ranks", "forfeited", "reason", "rated")

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
CIRCUIT = Gauge("torres_game_webhook_circuit_open",
                "1 while this process's delivery worker holds a tenant's endpoint back after failures in a row.",
                ["tenant"])


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


def analysis_ready(record: GameRecord, engine_version: str, depth: str, at: str) -> WebhookRow:
    """``analysis.ready``: a finished game's analysis at ``depth`` can be read (a portal's "your analysis is ready"
    mail). Not caused by an event (an analysis is beside the log), so its delivery id names the analysis instead of a
    version: one per game, engine version and depth, like the analysis itself."""
    delivery_id = f"{record.game_id}.analysis.{engine_version}.{depth}"
    return WebhookRow(delivery_id, record.tenant, ANALYSIS_READY, {
        "id": delivery_id, "type": ANALYSIS_READY, "tenant": record.tenant, "game_id": record.game_id,
        "external_id": record.external_id, "labels": record.labels, "version": record.version, "created_at": at,
        "data": {"depth": depth, "engine_version": engine_version,
                 "path": f"/v1/games/{record.game_id}/analysis?depth={depth}"}})


def body_of(delivery: WebhookDelivery) -> bytes:
    """The bytes posted (and signed): the payload as canonical JSON, so every attempt of a delivery posts the same."""
    return canonical_json(delivery.payload).encode()


@dataclass
class _Endpoint:
    """A worker's view of one tenant's endpoint: its attempts in flight, its failures in a row, and until when
    its circuit is open (no attempt but one probe after that)."""

    in_flight: int = 0
    failures: int = 0
    open_until: datetime | None = None


class WebhookWorker:
    """Delivers the outbox: a loop (:meth:`run`) in a thread of each service process, or a process of its own
    (``python -m torres_game webhooks``). Any number may run against one database.

    Each tenant's endpoint is a queue of its own. The loop claims (a committed lease, :meth:`EventStore.
    claim_webhooks`) only as many rows as it has free slots (``webhook_concurrency``), at most
    ``webhook_endpoint_concurrency`` in flight per endpoint, every endpoint's oldest due row before any endpoint's
    second; each claimed row is posted in a slot of its own (a thread, a greenlet under gevent) and its outcome
    recorded at once in a transaction of its own, so one endpoint's slow answers never hold another's rows. After
    ``webhook_circuit`` failures in a row an endpoint's circuit opens: its rows wait, unattempted and uncounted, for
    :func:`~torres_service.webhooks.backoff` of the failures beyond that, then one probe decides.
    """

    def __init__(self, store: EventStore, registries: Registries, config: Config,
                 *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.store = store
        self.registries = registries
        self.config = config
        self.clock = clock
        if config.webhook_lease <= config.webhook_timeout:  # an attempt must end while its row is still its own
            raise ValueError("TORRES_WEBHOOK_LEASE must be more than TORRES_WEBHOOK_TIMEOUT")
        self._slots = max(1, config.webhook_concurrency)
        self._per_endpoint = max(1, min(self._slots, config.webhook_endpoint_concurrency))
        self._poster = signing.Poster(config.webhook_timeout, connections=self._slots)
        self._pool = ThreadPoolExecutor(self._slots, thread_name_prefix="torres-webhook")
        self._endpoints: dict[str, _Endpoint] = {}
        #: The claim that last served each tenant: within a turn, the tenant served longest ago goes first.
        self._served: dict[str, int] = {}
        self._in_flight = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()  # an append of this process, or an attempt over (a slot free)
        self._appended = False
        self._id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._claims = itertools.count()
        _BACKLOG.store = store

    def wake(self) -> None:
        """Look at the outbox now: this process appended webhooks."""
        self._appended = True
        self._wake.set()

    def close(self) -> None:
        self._wake.set()
        self._pool.shutdown(wait=True)  # every claimed row attempted and recorded: none left to its lease
        self._poster.close()

    def deliver_due(self) -> int:
        """One look: claim what the free slots and the endpoints' caps allow, post it, and wait for every attempt
        to be recorded. Returns how many rows were claimed."""
        futures = self._dispatch()
        for future in futures:
            future.result()
        return len(futures)

    def _dispatch(self) -> list[Future[None]]:
        """Claim due rows for the free slots and start each one's attempt; returns the attempts started."""
        now = self.clock()
        with self._lock:
            free = self._slots - self._in_flight
            busy = {tenant: self._busy(e, now) for tenant, e in self._endpoints.items()}
        if free <= 0:
            return []
        turn = next(self._claims)
        owner = f"{self._id}:{turn}"
        claimed = self.store.claim_webhooks(owner, limit=min(free, self.config.webhook_batch),
                                            per_endpoint=self._per_endpoint, busy={t: b for t, b in busy.items() if b},
                                            served=self._served, lease=self.config.webhook_lease, clock=self.clock)
        with self._lock:
            for delivery in claimed:
                self._endpoints.setdefault(delivery.tenant, _Endpoint()).in_flight += 1
                self._served[delivery.tenant] = turn  # its next row waits behind the tenants served before it
            self._in_flight += len(claimed)
        return [self._pool.submit(self._attempt, owner, delivery) for delivery in claimed]

    def _busy(self, endpoint: _Endpoint, now: datetime) -> int:
        """What the claim counts as in flight to an endpoint: its attempts, or all its share while its circuit is
        open (and all but one, the probe, once the circuit's wait is over)."""
        if endpoint.open_until is None:
            return endpoint.in_flight
        if now < endpoint.open_until or endpoint.in_flight:
            return self._per_endpoint
        return self._per_endpoint - 1

    def _attempt(self, owner: str, delivery: WebhookDelivery) -> None:
        try:
            tenant = self.registries.current.tenant(delivery.tenant)
            hook = tenant.webhook if tenant is not None else None
            attempt = None if hook is None else self._poster.post(hook.url, hook.secret, body_of(delivery),
                                                                  delivery.delivery_id)
            outcome = self._outcome(delivery, attempt)
            if not self.store.record_webhook(owner, outcome, clock=self.clock):
                log.warning("webhook record refused: the lease had passed to another claim",
                            extra={"delivery_id": delivery.delivery_id, "tenant": delivery.tenant})
            self._count(delivery.tenant, attempt is None or attempt.ok)
        except Exception:  # the database away: the lease brings the row back
            log.exception("webhook attempt not recorded", extra={"delivery_id": delivery.delivery_id})
            self._count(delivery.tenant, None)
        finally:
            self._wake.set()

    def _count(self, tenant: str, ok: bool | None) -> None:
        """One attempt to ``tenant``'s endpoint over (``ok`` None: its outcome unknown): a slot free again, and its
        circuit closed by a success or opened by a failure that makes ``webhook_circuit`` in a row."""
        with self._lock:
            endpoint = self._endpoints[tenant]
            endpoint.in_flight -= 1
            self._in_flight -= 1
            if ok:
                endpoint.failures, endpoint.open_until = 0, None
            elif ok is False:
                endpoint.failures += 1
                beyond = endpoint.failures - self.config.webhook_circuit + 1
                if self.config.webhook_circuit and beyond > 0:
                    if endpoint.open_until is None:
                        log.warning("webhook endpoint circuit open", extra={"tenant": tenant,
                                                                            "failures": endpoint.failures})
                    endpoint.open_until = self.clock() + timedelta(seconds=signing.backoff(beyond))
            CIRCUIT.labels(tenant).set(0 if endpoint.open_until is None else 1)
            if not endpoint.in_flight and not endpoint.failures:  # nothing to remember of it
                del self._endpoints[tenant]

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
        """Deliver until ``stop`` is set (or the store is closed): claim for the free slots, then sleep
        ``interval`` seconds or until :meth:`wake` (an append of this process, or an attempt over); a look that
        filled every free slot is followed at once by the next."""
        interval = self.config.webhook_interval if interval is None else interval
        failing = False
        while not stop.is_set() and not self.store.closed:
            started = 0
            try:
                # No tenant with an endpoint (the embedded default, most tests): no query at all.
                if any(t.webhook is not None for t in self.registries.current.tenants.values()):
                    started = len(self._dispatch())
                failing = False
            except Exception:  # the database away: say so once per outage, keep trying
                if not failing and not self.store.closed:
                    log.exception(f"webhook delivery failed; retrying every {interval} s")
                failing = True
            if not started:
                if self._wake.wait(interval) and self._appended and not stop.is_set():
                    stop.wait(GATHER)  # woken by an append: let the appends of the next moments join the look
                self._wake.clear()
                self._appended = False


class _Backlog(Collector):
    """Per-endpoint backlog on ``/metrics``: each tenant's pending deliveries and the age of its oldest, read
    from the outbox when Prometheus scrapes (the outbox is shared, so any process's figures are everyone's)."""

    store: EventStore | None = None

    def collect(self) -> Iterable[Metric]:
        pending = GaugeMetricFamily("torres_game_webhook_backlog", "Pending webhook deliveries, by tenant.",
                                    labels=["tenant"])
        oldest = GaugeMetricFamily("torres_game_webhook_oldest_pending_seconds",
                                   "Age of each tenant's oldest pending webhook delivery.", labels=["tenant"])
        store = self.store
        if store is not None and not store.closed:
            try:
                backlogs = store.webhook_backlogs(clock=lambda: datetime.now(UTC))
            except Exception:  # the database away: no figures this scrape, the others still
                log.warning("webhook backlog not read", exc_info=True)
                backlogs = {}
            for tenant, (count, age) in sorted(backlogs.items()):
                pending.add_metric([tenant], count)
                oldest.add_metric([tenant], age)
        yield pending
        yield oldest


_BACKLOG = _Backlog()
REGISTRY.register(_BACKLOG)

"""Matchmaking's domain metrics. Tickets are queued by the HTTP service, matched by matcher processes and rated
by the ratings consumer: each process exports what it does (HTTP: ``/metrics``; matcher and consumer: the port
``MM_METRICS_PORT``), and Prometheus sums over processes.

``torres_mm_tickets_waiting`` is read from Redis at scrape time (a collector, not a counter), so it is the true
queue length whichever process changed it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily

TICKETS_QUEUED = Counter("torres_mm_tickets_queued_total", "Tickets accepted into a queue.")
TICKETS_MATCHED = Counter("torres_mm_tickets_matched_total", "Tickets placed in a created game.")
GAMES_CREATED = Counter("torres_mm_games_created_total", "Games created by matchers, by player count.", ["players"])
MATCH_WAIT = Histogram("torres_mm_match_wait_seconds", "Time from a ticket's creation to its game.",
                       buckets=(0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300))
RATING_UPDATES = Counter("torres_mm_rating_updates_total", "Player ratings updated from finished games.")
GAMES_RATED = Counter("torres_mm_games_rated_total", "Finished matchmade games whose ratings were applied.")


class WaitingTickets:
    """Scrape-time gauge: queued tickets per pool, straight from Redis."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily("torres_mm_tickets_waiting", "Tickets queued right now, by pool.",
                                   labels=["edition", "master"])
        try:
            for edition, master in self.store.keys.pools():
                _, rows = self.store.run("snapshot", self.store.keys.pool_keys((edition, master)),
                                                   "-inf", "+inf")
                now = time.time()
                rows = [r for r in rows if r is not None and float(r.split("|")[5]) > now]  # expires_at
                family.add_metric([edition, str(bool(master)).lower()], len(rows))
        except Exception:  # Redis down: report nothing rather than fail the scrape
            return
        yield family


def placed(tickets: Any, players: int, now: float) -> None:
    """A matcher confirmed a game for these tickets (grouping.Candidate: ``created_at``)."""
    GAMES_CREATED.labels(str(players)).inc()
    for ticket in tickets:
        TICKETS_MATCHED.inc()
        MATCH_WAIT.observe(max(0.0, now - ticket.created_at))

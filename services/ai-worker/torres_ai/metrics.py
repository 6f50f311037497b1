"""Prometheus metrics of the AI worker: decisions per level, decision latency, queue depth per queue, fallbacks.

Celery's prefork pool runs tasks in child processes, so the counters use prometheus-client's multiprocess
mode: each process writes its values into ``PROMETHEUS_MULTIPROC_DIR`` and the worker's main process serves
the sum on ``TORRES_AI_METRICS_PORT`` (default 9400, 0 = off). prometheus-client picks that mode when it is
first imported, so :mod:`torres_ai.celery_app` sets the directory up from Celery's ``celeryd_init`` signal,
before the task modules (and this one) are imported; processes that only import the bots (the game service's
in-process driver, tournaments) keep the ordinary in-process registry.

``torres_ai_fallbacks_total`` should stay 0: it counts decisions a bot got wrong (an exception or an illegal
action) that a random legal action replaced. Infrastructure errors never land there; they are retried and
counted in ``torres_ai_retries_total``.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from torres_online.lifecycle import AI_LEVELS

log = logging.getLogger(__name__)

FALLBACK_CAUSES = ("exception", "illegal")

DECISIONS = Counter("torres_ai_decisions", "AI decisions appended, by level", ["level"])
DECISION_SECONDS = Histogram(
    "torres_ai_decision_seconds", "Time a bot took to choose one action (search and plan replay), by level",
    ["level"], buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5, 5.0, 10.0),
)
TURNS = Counter("torres_ai_turns", "AI turn tasks run, by queue and outcome", ["queue", "outcome"])
FALLBACKS = Counter("torres_ai_fallbacks", "Bot decisions replaced by a random legal action, by cause (alert > 0)",
                    ["cause"])
RETRIES = Counter("torres_ai_retries", "Decisions or turns retried after an infrastructure error, by where",
                  ["where"])

for _level in AI_LEVELS:
    DECISIONS.labels(_level)
for _cause in FALLBACK_CAUSES:
    FALLBACKS.labels(_cause)


class QueueDepthCollector(Collector):
    """``torres_ai_queue_depth{queue}``: messages waiting in each Celery queue (a Redis list), read per scrape."""

    def __init__(self, queues: Iterable[str], length: Callable[[str], int]) -> None:
        self.queues = tuple(queues)
        self.length = length

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily("torres_ai_queue_depth", "AI turn tasks waiting, by queue", labels=["queue"])
        for queue in self.queues:
            try:
                family.add_metric([queue], float(self.length(queue)))
            except Exception as exc:  # the broker is down: no sample rather than a failed scrape
                log.warning("could not read a queue length", extra={"queue": queue, "error": repr(exc)})
        yield family


def serve(port: int, queues: Iterable[str], length: Callable[[str], int]) -> None:
    """Serve the sum over the worker's processes plus the queue depths on ``port`` (0 = off)."""
    if not port:
        return
    registry = CollectorRegistry()
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        MultiProcessCollector(registry, path)
    else:  # a solo or threads pool: everything lives in this process
        from prometheus_client import REGISTRY

        registry = REGISTRY
    registry.register(QueueDepthCollector(queues, length))
    try:
        start_http_server(port, registry=registry)
    except OSError as exc:  # the port is taken (two workers on one host): play on, say so loudly
        log.error("could not serve AI metrics; give each worker on a host its own TORRES_AI_METRICS_PORT",
                  extra={"port": port, "error": repr(exc)})
        return
    log.info("serving AI metrics", extra={"port": port})


def process_exited(pid: int) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def cleanup(path: str | None) -> None:
    if path:
        shutil.rmtree(path, ignore_errors=True)

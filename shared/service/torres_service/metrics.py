"""Prometheus metrics for the HTTP services: request counts and latency by route and status, ``/metrics``.

Under gunicorn every worker is its own process, so prometheus-client runs in multiprocess mode: the gunicorn
settings (``infra/gunicorn.conf.py``) set ``PROMETHEUS_MULTIPROC_DIR`` before any worker starts, each worker
writes its values to files there, and ``/metrics`` sums the files of all workers, whichever worker answers the
scrape. Without that variable (``make run``, tests, a matcher) the process's own registry is served.

Metric objects are module-level, as prometheus-client wants (one registration per process); the services'
domain metrics live in ``torres_game.metrics`` and ``torres_matchmaking.metrics``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Flask, Request, Response, request
from flask_smorest import Blueprint
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Gauge, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

REQUESTS = Counter("torres_http_requests_total", "HTTP requests answered, by route template and status.",
                   ["service", "method", "route", "status"])
LATENCY = Histogram("torres_http_request_duration_seconds", "Time to the response headers, by route and status.",
                    ["service", "method", "route", "status"],
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
OPEN_PUSH = Gauge("torres_open_push_connections", "Long-polls and event streams held open right now.",
                  ["service", "route"], multiprocess_mode="livesum")

PUSH_SUFFIXES = ("/wait", "/stream", "/ws", "/events/stream")


def multiprocess() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


class _Scrape:
    """What one scrape reports: every worker's files (or this process's registry) plus scrape-time collectors."""

    def __init__(self, extra: Iterable[Collector]) -> None:
        self.extra = list(extra)

    def collect(self) -> Iterator[Any]:
        yield from (MultiProcessCollector(None) if multiprocess() else REGISTRY).collect()
        for collector in self.extra:
            yield from collector.collect()


def exposition(extra: Iterable[Collector] = ()) -> bytes:
    return generate_latest(_Scrape(extra))  # type: ignore[arg-type]


blp = Blueprint("metrics", __name__, description="Prometheus metrics")


@blp.route("/metrics", methods=["GET"])
@blp.doc(responses={"200": {"description": "Prometheus text exposition format",
                            "content": {"text/plain": {"schema": {"type": "string"}}}}})
def metrics() -> Response:
    """Counters, gauges and histograms of this service, summed over its gunicorn workers."""
    from flask import current_app

    extra = current_app.extensions.get("torres_metrics_collectors", ())
    return Response(exposition(extra), mimetype=CONTENT_TYPE_LATEST)


_STARTED, _PUSH = "torres.metrics.started", "torres.metrics.push"


def instrument(app: Flask, service: str, *, collectors: Iterable[Collector] = ()) -> None:
    """Count and time every request by its route *template* (``/v1/games/<game_id>``, never the raw path,
    which would make one time series per game) and track open push connections. The caller registers
    ``blp`` (``/metrics``) with its Api."""
    app.extensions["torres_metrics_collectors"] = list(collectors)

    # Each hook takes the request out of its proxy once and keeps its marks in the request's WSGI environ, not in
    # ``g``: every attribute of ``request`` or ``g`` not found on the proxy itself (``url_rule``, ``method``,
    # ``g.pop``) is looked up through an AttributeError the proxy raises and formats first, which cost more than
    # the counting -- and ``g`` belongs to an app context, which can outlive its request.
    def route(req: Request) -> str:
        rule = req.url_rule
        return rule.rule if rule is not None else "unmatched"

    @app.before_request
    def _start() -> None:
        req: Request = request._get_current_object()  # type: ignore[attr-defined]
        environ = req.environ
        environ[_STARTED] = time.perf_counter()
        path = route(req)
        if path.endswith(PUSH_SUFFIXES):
            OPEN_PUSH.labels(service, path).inc()
            environ[_PUSH] = path

    @app.after_request
    def _count(response: Response) -> Response:
        req: Request = request._get_current_object()  # type: ignore[attr-defined]
        environ = req.environ
        path = route(req)
        push = environ.pop(_PUSH, None)
        if push is not None:  # open until the server closes the response: a stream's body outlives the view
            response.call_on_close(lambda: OPEN_PUSH.labels(service, push).dec())
        if path != "/metrics":
            labels = (service, req.method, path, str(response.status_code))
            REQUESTS.labels(*labels).inc()
            LATENCY.labels(*labels).observe(time.perf_counter() - environ.get(_STARTED, time.perf_counter()))
        return response

    @app.teardown_request
    def _closed(_: BaseException | None) -> None:
        # Only when no response was made (an exception that Flask did not turn into one).
        path = request._get_current_object().environ.pop(_PUSH, None)  # type: ignore[attr-defined]
        if path is not None:
            OPEN_PUSH.labels(service, path).dec()

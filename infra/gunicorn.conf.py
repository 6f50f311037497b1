"""The production server configuration of the HTTP services (game service, matchmaking), in one place:

    gunicorn -c infra/gunicorn.conf.py 'torres_game.wsgi:app'

Why gevent: players spend most of their time waiting for opponents on an open long-poll, SSE stream or WebSocket.
With the gevent worker a waiting connection is a greenlet (a few kB), not an OS thread, so one process holds
thousands; psycopg 3 (>= 3.1.14) and its pool, redis-py and the standard library cooperate once gevent has
monkey-patched the process, which the gevent worker does before it loads the application.

Every value can be overridden by an environment variable or on the command line, so that compose, Kubernetes and
``infra/local_cluster.py`` run the very same command. The variables are declared, with their defaults, in
``torres_service/serving.py`` (standard library only, so the master may import it) and listed in docs/settings.md;
why each default is what it is, below. The matchmaking API uses the same file
(``'torres_matchmaking.wsgi:app'``).

Metrics: each worker is its own process, so prometheus-client runs in multiprocess mode. Its directory must be
known before any worker imports prometheus-client, and be empty when the server starts (stale files of an
earlier run would be summed in); a worker that exits is marked dead so its live gauges drop out.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gunicorn import util

from torres_service import serving

# Bind address: $PORT (platforms and compose/k8s set it), all interfaces; `--bind` on the command line wins.
bind = serving.BIND.read() or f"{serving.HOST.read()}:{serving.PORT.read()}"

# One process per core: the CPU-bound part of a request (folding, legal actions) runs in a worker's single thread,
# so more workers than cores only add context switches. WEB_CONCURRENCY is the conventional override.
workers = serving.WORKERS.read()
worker_class = serving.WORKER_CLASS.read()
# Simultaneous connections per worker (open waits and streams included). Each costs a file descriptor: keep
# workers * worker_connections below `ulimit -n`. The app's own cap (TORRES_MAX_STREAMS) answers 503 before this.
worker_connections = serving.WORKER_CONNECTIONS.read()
backlog = 4096
# Each worker listens on its own socket (SO_REUSEPORT) and the kernel spreads new connections over them. With one
# shared socket, whichever gevent worker wakes first accepts a burst of connections, and keep-alive connections stay
# where they were accepted: 50 clients connecting at once were split 50/0, 50/0 and 34/16 between two workers
# (so one core served everything), and 26/24, 24/26 with this setting (docs/performance.md). The cost:
# a second server started on the same port by the same user shares it instead of failing to bind.
reuse_port = serving.REUSE_PORT.read()

# A worker that does not report for `timeout` s is restarted; under gevent it reports from its loop, so this only
# fires when one request hogs the CPU that long (long-lived streams do not count).
timeout = serving.TIMEOUT.read()
# On SIGTERM the worker stops accepting, ends its streams and waits (SSE `shutdown`, WebSocket close 1001, waits
# answer at once) and exits; whatever is still running after graceful_timeout s is cut. Keep it below the
# orchestrator's grace period (k8s terminationGracePeriodSeconds, compose stop_grace_period); 35 s lets a
# request that the drain cannot end (a long-poll of up to 30 s on another service) finish.
graceful_timeout = serving.GRACEFUL_TIMEOUT.read()
keepalive = serving.KEEPALIVE.read()

accesslog = serving.ACCESS_LOG.read() or None  # the app logs each request as JSON already
# When it is on: the path without its query string (%(U)s, not the request line %(r)s), so a browser's
# ?stream_ticket= never reaches a log (single use and short-lived, but a credential until it is used).
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s "%(a)s"'
errorlog = "-"
loglevel = serving.LOG_LEVEL.read()
proc_name = serving.PROC_NAME.read()
# gunicorn >= 27 opens a control socket at one fixed path ($HOME/.gunicorn/gunicorn.ctl): replicas on one host
# would fight over it, and a read-only root filesystem has nowhere to put it. Nothing here uses it.
control_socket_disable = True
worker_tmp_dir = serving.WORKER_TMP_DIR.read() or None  # /dev/shm in containers

# Request-head limits (docs/security.md, "Input limits"). The services' input guard refuses a request target longer
# than TORRES_MAX_URL_BYTES (4096: 414), a header line longer than TORRES_MAX_HEADER_BYTES (8192) or more than
# TORRES_MAX_HEADERS (100) header fields (431), as problem+json with the limit. gunicorn reads the head first and
# refuses past its own limits without asking the app, so its limits sit above the guard's, and the guard answers:
# 8190 is the longest request line gunicorn bounds (0 would buffer a line of any length), a header line may be 16 kB,
# and 128 fields are allowed. Past these, gunicorn's own answer is problem+json too (_problem_error below).
limit_request_line = serving.LIMIT_REQUEST_LINE.read()
limit_request_field_size = serving.LIMIT_REQUEST_FIELD_SIZE.read()
limit_request_fields = serving.LIMIT_REQUEST_FIELDS.read()

# The codes of torres_service.problems for the statuses gunicorn answers itself (tests/game/test_serve_limits.py
# checks that they are the same; this file imports nothing of the services but their server settings, as the
# master never loads them).
_PROBLEM_CODES = {400: "bad_request", 403: "forbidden", 414: "uri_too_long", 417: "expectation_failed",
                  431: "headers_too_large", 500: "internal_error", 501: "not_implemented"}


def _problem_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's own refusals (a request line past limit_request_line, a malformed head, an unknown transfer
    coding) as RFC 9457 problem details, like every other answer of the services, instead of its HTML page.

    Installed in place of ``gunicorn.util.write_error``, which ``Worker.handle_error`` calls with these four
    arguments after it has logged the refusal and chosen its status: only the body's form changes, and the
    close lingers (:func:`_linger`) so that the client gets to read it."""
    code = _PROBLEM_CODES.get(status_int, f"http_{status_int}")
    body = json.dumps({"type": f"urn:torres:problem:{code}", "title": reason, "status": status_int,
                       "detail": mesg[:300] or reason, "code": code}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)
    _linger(sock)


def _linger(sock: Any, seconds: float = 1.0, most: int = 1 << 20) -> None:
    """Half-close, then read and drop what the client is still sending (at most ``most`` bytes for ``seconds``)
    before gunicorn closes the socket. A refusal comes before the request was read (most of a 100 kB request
    line is still unread), and closing a socket with unread data makes the kernel send a reset, which can
    destroy the answer before the client reads it."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(seconds)
        deadline, drained = time.monotonic() + seconds, 0
        while drained < most and time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            drained += len(chunk)
    except OSError:  # the client is gone, or took too long: gunicorn closes the socket either way
        pass


util.write_error = _problem_error  # the workers are forked from this process: they inherit it

_METRICS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(prefix="torres-metrics-")
os.environ["PROMETHEUS_MULTIPROC_DIR"] = _METRICS_DIR  # inherited by every worker before its first import


def on_starting(server: Any) -> None:
    """Start from an empty metrics directory: files left by a previous master would be counted again."""
    path = Path(_METRICS_DIR)
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):  # prometheus-client's files only, whatever else shares the directory
        stale.unlink(missing_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    """A dead worker's live gauges (open push connections) must stop counting."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker: Any) -> None:
    """On SIGTERM, besides gunicorn's own handling (stop accepting), drain the open waits and streams at once
    instead of letting them hang until graceful_timeout."""
    previous = signal.getsignal(signal.SIGTERM)

    def drain(sig: int, frame: Any) -> None:
        waiting = sys.modules.get("torres_service.wakeups")  # a service without waits has nothing to drain
        if waiting is not None:
            if "gevent" in sys.modules:  # not inside the signal handler: it may have interrupted a lock holder
                import gevent

                gevent.spawn(waiting.drain_all)
            else:
                waiting.drain_all()
        if callable(previous):
            previous(sig, frame)

    signal.signal(signal.SIGTERM, drain)

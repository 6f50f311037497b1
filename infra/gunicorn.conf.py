"""The production server configuration of the HTTP services (game service, matchmaking), in one place:

    gunicorn -c infra/gunicorn.conf.py 'torres_game.wsgi:app'

Why gevent: players spend most of their time waiting for opponents on an open long-poll, SSE stream or WebSocket.
With the gevent worker a waiting connection is a greenlet (a few kB), not an OS thread, so one process holds
thousands; psycopg 3 (>= 3.1.14) and its pool, redis-py and the standard library cooperate once gevent has
monkey-patched the process, which the gevent worker does before it loads the application.

Every value can be overridden by environment variables (named below) or on the command line.
"""

import os
import signal
import sys

# Bind address: $PORT (platforms and compose/k8s set it), all interfaces; `--bind` on the command line wins.
bind = os.environ.get("GUNICORN_BIND") or f"0.0.0.0:{os.environ.get('PORT', '8000')}"

# One process per core: the CPU-bound part of a request (folding, legal actions) runs in a worker's single thread,
# so more workers than cores only add context switches. WEB_CONCURRENCY is the conventional override.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
# Simultaneous connections per worker (open waits and streams included). Each costs a file descriptor: keep
# workers * worker_connections below `ulimit -n`. The app's own cap (TORRES_MAX_STREAMS) answers 503 before this.
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "12000"))
backlog = 4096

# A worker that does not report for `timeout` s is restarted; under gevent it reports from its loop, so this only
# fires when one request hogs the CPU that long (long-lived streams do not count).
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# On SIGTERM the worker stops accepting, ends its streams and waits (SSE `shutdown`, WebSocket close 1001, waits
# answer at once) and exits; whatever is still running after graceful_timeout s is cut. Keep it below the
# orchestrator's grace period (k8s terminationGracePeriodSeconds, compose stop_grace_period).
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))

accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None  # the app logs each request as JSON already
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
proc_name = os.environ.get("GUNICORN_PROC_NAME", "torres")


def post_worker_init(worker):  # type: ignore[no-untyped-def]
    """On SIGTERM, besides gunicorn's own handling (stop accepting), drain the open waits and streams at once
    instead of letting them hang until graceful_timeout."""
    previous = signal.getsignal(signal.SIGTERM)

    def drain(sig, frame):  # type: ignore[no-untyped-def]
        waiting = sys.modules.get("torres_game.waiting")  # a service without streams has nothing to drain
        if waiting is not None:
            if "gevent" in sys.modules:  # not inside the signal handler: it may have interrupted a lock holder
                import gevent

                gevent.spawn(waiting.drain_all)
            else:
                waiting.drain_all()
        if callable(previous):
            previous(sig, frame)

    signal.signal(signal.SIGTERM, drain)

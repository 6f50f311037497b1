"""gunicorn settings for every HTTP service: ``gunicorn -c infra/gunicorn.conf.py 'torres_game.wsgi:app'``.

The same file serves the matchmaking API (``'torres_matchmaking.wsgi:app'``). Everything comes from the
environment so that compose, Kubernetes and ``infra/local_cluster.py`` run the very same command.

Metrics: each worker is its own process, so prometheus-client runs in multiprocess mode. Its directory must be
known before any worker imports prometheus-client, and be empty when the server starts (stale files of an
earlier run would be summed in); a worker that exits is marked dead so its live gauges drop out.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
# SIGTERM: stop accepting, let in-flight requests (long-polls included, at most 30 s) finish within this.
# Kubernetes' terminationGracePeriodSeconds is set a little above it.
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "35"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
keepalive = 5
accesslog = None  # the services log every request themselves, as JSON
errorlog = "-"
# gunicorn >= 27 opens a control socket at one fixed path ($HOME/.gunicorn/gunicorn.ctl): replicas on one host
# would fight over it, and a read-only root filesystem has nowhere to put it. Nothing here uses it.
control_socket_disable = True
worker_tmp_dir = os.environ.get("GUNICORN_WORKER_TMP_DIR") or None  # /dev/shm in containers

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

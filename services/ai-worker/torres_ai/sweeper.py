"""``python -m torres_ai.sweeper``: the outbox sweeper as a plain loop, for deployments without beat."""

from __future__ import annotations

import argparse
import logging
import signal
import threading

from .celery_app import settings
from .tasks import _redis, _service, sweep_once


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--once", action="store_true", help="sweep once and exit")
    parser.add_argument("--interval", type=float, default=settings.sweep_interval)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    # SIGTERM (a rollout, a scale-down) ends the loop between sweeps; a sweep cut short would be harmless too,
    # since every due turn stays in the outbox until it is played.
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.is_set():
        sent = sweep_once(_service(), _redis())
        print(f"re-enqueued {sent} AI turn(s)", flush=True)
        if args.once:
            break
        stop.wait(args.interval)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

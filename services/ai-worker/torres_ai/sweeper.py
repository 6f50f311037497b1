"""``python -m torres_ai.sweeper``: the outbox sweeper as a plain loop, for deployments without beat.

Every ``--interval`` seconds it re-sends the turns due longer than ``TORRES_AI_SWEEP_AFTER``; between sweeps it
checks the broker every ``TORRES_AI_BROKER_CHECK`` seconds (one ``SET NX``), so that when the broker comes back
without its queues (a restart without persistence), every due turn is re-sent at once rather than after the
grace: the turns that were waiting in a queue are lost, and nobody else knows it.
"""

from __future__ import annotations

import argparse
import logging
import threading
import time

from torres_service.signals import run_until_signalled

from .celery_app import settings
from .tasks import _redis, _service, broker_lost, sweep_once

log = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--once", action="store_true", help="sweep once and exit")
    parser.add_argument("--interval", type=float, default=settings.sweep_interval)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    service, client = _service(), _redis()

    def sweep(stop: threading.Event) -> None:
        next_sweep, failing = 0.0, False
        while not stop.is_set():
            try:
                if time.monotonic() >= next_sweep:
                    next_sweep = time.monotonic() + args.interval
                    print(f"re-enqueued {sweep_once(service, client)} AI turn(s)", flush=True)
                elif broker_lost(client):
                    print(f"the broker lost its queues: re-enqueued {sweep_once(service, client, older_than=0)} AI "
                          "turn(s)", flush=True)
                failing = False
            except Exception:  # the broker or the database away: keep looking, so their return is seen at once
                if args.once:
                    raise
                log.warning("sweep failed; retrying", exc_info=not failing)
                failing = True
            if args.once:
                break
            stop.wait(min(settings.broker_check, args.interval))

    # SIGTERM (a rollout, a scale-down) ends the loop between sweeps; a sweep cut short would be harmless too,
    # since every due turn stays in the outbox until it is played.
    run_until_signalled(sweep)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

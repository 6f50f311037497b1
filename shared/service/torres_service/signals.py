"""Stopping a worker process on SIGTERM or SIGINT (a rollout, a scale-down, Ctrl-C) without deadlocking it.

Python runs a signal's handler in the main thread, between any two of its bytecodes. A handler that stops a loop
sets a :class:`threading.Event` (and wakes the loop's own wait), which takes that event's lock; had the main
thread been inside that very event's ``wait()``, ``clear()`` or ``set()`` at that moment, holding the lock, the
process would wait for itself forever, and only SIGKILL ends it (the :mod:`signal` documentation warns of this;
python/cpython#126434 is the same hazard in :mod:`multiprocessing`). So the work runs in a thread of its own and
the main thread does nothing but wait for it: the handler never meets a lock its own thread holds.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def run_until_signalled(work: Callable[[threading.Event], None], *, on_stop: Callable[[], None] = lambda: None,
                        signals: Iterable[signal.Signals] = STOP_SIGNALS) -> None:
    """Run ``work(stop)`` in a thread of its own until it returns; one of ``signals`` sets ``stop`` and calls
    ``on_stop`` (to cut a wait of the work short). An exception of ``work`` is raised here. Once the work is
    over the signals have their former handlers back, so a second SIGTERM or Ctrl-C during the caller's clean-up
    acts as it would have without this (it ends the process)."""
    stop = threading.Event()
    failure: list[BaseException] = []

    def body() -> None:
        try:
            work(stop)
        except BaseException as exc:  # raised again in the main thread, which decides the exit status
            failure.append(exc)

    def halt(*_: object) -> None:
        stop.set()
        on_stop()

    previous = {sig: signal.signal(sig, halt) for sig in signals}
    thread = threading.Thread(target=body, name="work")
    try:
        thread.start()
        thread.join()
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: a handler installed outside Python, which cannot be put back
                signal.signal(sig, handler)
    if failure:
        raise failure[0]

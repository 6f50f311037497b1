"""Waiting for a game's version to pass a number: the basis of long-poll and server-sent events.

Appends made by this process wake waiters at once through a condition variable; appends made by
other processes (gunicorn workers, other hosts) are noticed by polling the version at a short
interval, so correctness never depends on which worker served the write.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class VersionWaiter:
    def __init__(self, read_version: Callable[[str], int | None], poll_interval: float = 0.2) -> None:
        self._read_version = read_version
        self._poll = poll_interval
        self._cond = threading.Condition()

    def notify(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def wait(self, game_id: str, version: int, timeout: float) -> int | None:
        """Return the game's version as soon as it exceeds ``version``, or the same version at timeout."""
        deadline = time.monotonic() + timeout
        while True:
            current = self._read_version(game_id)
            if current is None or current > version:
                return current
            left = deadline - time.monotonic()
            if left <= 0:
                return current
            with self._cond:
                self._cond.wait(min(self._poll, left))

"""Waiting in a test for something another process or thread does, with a deadline that names what was awaited."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], bool], timeout: float, what: str, on_fail: Callable[[], str] = str,
               interval: float = 0.1) -> None:
    """Poll ``predicate`` every ``interval`` seconds until it holds; after ``timeout`` fail, saying ``what`` was
    awaited and what ``on_fail`` reports (a log's tail, say)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}\n{on_fail()}")

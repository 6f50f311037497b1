"""The one clock every part of a game service reads, so that a test moving it moves it everywhere."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)


class Clock:
    """Where every recorded event time, deadline and expiry of one service comes from. The parts share one
    instance: setting :attr:`now` (tests do, through ``GameService.now``) moves the time of all of them."""

    def __init__(self, now: Callable[[], datetime] = utcnow) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now()

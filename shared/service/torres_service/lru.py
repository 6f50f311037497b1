"""A bounded, thread-safe LRU dictionary: the game service's folded-state cache and the AI's plan memory."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LockedLru(Generic[K, V]):
    """At most ``size`` items, the least recently read or written dropped first; every access under one lock.
    Subclasses write with their own rule (replace or keep) and trim to ``_size`` under ``_lock``."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

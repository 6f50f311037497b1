"""The turn-plan memory in Redis, so the worker process that takes a turn's next decision finds the plan
another process made (Celery spreads a game's tasks over every worker)."""

from __future__ import annotations

import json

import redis

from .bots import Action


class RedisPlanMemory:
    """``<prefix>:plan:<view digest>`` -> the planned action, expiring after ``ttl`` seconds."""

    def __init__(self, client: redis.Redis, prefix: str, ttl: int) -> None:
        self.client = client
        self.prefix = prefix
        self.ttl = ttl

    def get(self, key: str) -> Action | None:
        raw = self.client.get(f"{self.prefix}:plan:{key}")
        return json.loads(raw) if raw else None

    def put_many(self, items: dict[str, Action]) -> None:
        pipe = self.client.pipeline(transaction=False)
        for key, action in items.items():
            pipe.set(f"{self.prefix}:plan:{key}", json.dumps(action), ex=self.ttl)
        pipe.execute()

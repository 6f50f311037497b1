"""Operational endpoints: liveness and readiness (Redis answers, and so does the game service)."""

from __future__ import annotations

from typing import Any

from flask import current_app

from torres_matchmaking.errors import NotReady
from torres_service.ops import ops_blueprint

from . import schemas as s


def readyz() -> dict[str, Any]:
    """Readiness: matching can work — Redis answers and the game service says it is ready."""
    services = current_app.extensions["torres_matchmaking"]
    try:
        services.store.client.ping()
    except Exception as exc:
        raise NotReady(f"redis unreachable: {type(exc).__name__}") from exc
    if not services.games.ready():
        raise NotReady(f"the game service at {services.config.game_service_url} is not ready")
    return {"status": "ready", "redis": "embedded" if services.config.embedded else "external",
            "game_service": "ready"}


blp = ops_blueprint(__name__, problem_schema=s.ProblemSchema, health_schema=s.HealthSchema,
                    ready_schema=s.ReadySchema, liveness="Liveness: the process answers.", readyz=readyz)

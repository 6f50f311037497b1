"""Operational endpoints: liveness and readiness (Redis answers, and so does the game service)."""

from __future__ import annotations

from typing import Any

from flask import current_app

from torres_matchmaking.errors import NotReady
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses

from . import schemas as s

blp = Blueprint("ops", __name__, description="Health and readiness")
_errors = problem_responses(blp, s.ProblemSchema)


@blp.route("/healthz", methods=["GET"])
@blp.response(200, s.HealthSchema)
def healthz() -> dict[str, Any]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@blp.route("/readyz", methods=["GET"])
@blp.response(200, s.ReadySchema)
@_errors(503)
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

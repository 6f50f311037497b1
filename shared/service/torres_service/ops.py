"""The probes every HTTP service serves: ``/healthz`` (liveness: the process answers) and ``/readyz`` (readiness:
what the service needs answers, as the service's own check says)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import Schema

from torres_service.problems import ProblemBlueprint
from torres_service.schemas import problem_responses


def ops_blueprint(
    import_name: str, *, problem_schema: type[Schema], health_schema: type[Schema], ready_schema: type[Schema],
    liveness: str, readyz: Callable[[], dict[str, Any]],
) -> ProblemBlueprint:
    """The ``ops`` blueprint: ``/healthz`` answers ``{"status": "ok"}`` and ``liveness`` documents it; ``readyz``
    (its docstring documents it) answers the readiness or raises the service's ``NotReady``, documented as a 503."""
    blp = ProblemBlueprint("ops", import_name, description="Health and readiness")
    errors = problem_responses(blp, problem_schema)

    def healthz() -> dict[str, Any]:
        return {"status": "ok"}

    healthz.__doc__ = liveness
    blp.route("/healthz", methods=["GET"])(blp.response(200, health_schema)(healthz))
    blp.route("/readyz", methods=["GET"], endpoint="readyz")(blp.response(200, ready_schema)(errors(503)(readyz)))
    return blp

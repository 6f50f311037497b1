"""Operational endpoints: liveness, readiness, and the global notification log."""

from __future__ import annotations

from typing import Any

from flask import current_app

from torres_game.errors import NotReady
from torres_game.migrations import MigrationEdited
from torres_service.ops import ops_blueprint
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses

from . import schemas as s
from .auth import credentials
from .games import service

notifications = Blueprint("notifications", __name__, url_prefix="/v1", description="The global event log")
_notification_errors = problem_responses(notifications, s.ProblemSchema)
webhooks = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks",
                     description="A tenant's webhooks and their delivery log (docs/integration.md)")
_webhook_errors = problem_responses(webhooks, s.ProblemSchema)


def readyz() -> dict[str, Any]:
    """Readiness: the database answers and every migration is applied."""
    store = service().store
    try:
        store.ping()
        applied, pending = store.migration_status()
    except MigrationEdited as exc:
        current_app.logger.error("readiness check failed: %s", exc)
        raise NotReady(str(exc)) from exc
    except Exception as exc:  # any driver error means "not ready", with the reason
        current_app.logger.warning("readiness check failed: %s", exc)
        raise NotReady(f"database unreachable: {type(exc).__name__}") from exc
    if pending:
        raise NotReady(f"migrations pending: {pending}", applied=applied, pending=pending)
    return {"status": "ready", "backend": store.backend, "migrations": applied}


ops = ops_blueprint(__name__, problem_schema=s.ProblemSchema, health_schema=s.HealthSchema,
                    ready_schema=s.ReadySchema, liveness="Liveness: the process answers (no database access).",
                    readyz=readyz)


@notifications.route("/notifications", methods=["GET"])
@notifications.arguments(s.PageArgs(), location="query")
@notifications.response(200, s.NotificationPageSchema)
@_notification_errors(400, 401, 403)
@notifications.doc(security=[{"apiKey": []}, {"adminKey": []}])
def list_notifications(args: dict[str, Any]) -> dict[str, Any]:
    """Events in commit order after ``position``: a tenant's key (``games``) its own games' (redacted, full with
    ``admin``); an internal key with ``notifications`` (the ratings consumer) every game's, redacted; the admin key
    every game's, full."""
    return service().queries.notifications(credentials(), after=args["after"], limit=args["limit"])


@webhooks.route("/deliveries", methods=["GET"])
@webhooks.arguments(s.PageArgs(), location="query")
@webhooks.response(200, s.WebhookDeliveryPageSchema)
@_webhook_errors(400, 401, 403)
@webhooks.doc(security=[{"apiKey": []}, {"adminKey": []}])
def list_webhook_deliveries(args: dict[str, Any]) -> dict[str, Any]:
    """The webhooks of the caller's games in the order they were written, after the cursor ``after``, whatever
    their delivery status (pending, delivered, failed), each with its payload: a portal that missed deliveries
    re-reads them from the last cursor it processed. A tenant's key (``games``) reads its own; the admin key every
    tenant's."""
    return service().queries.webhook_deliveries(credentials(), after=args["after"], limit=args["limit"])

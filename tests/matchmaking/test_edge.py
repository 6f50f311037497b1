"""The matchmaking service against its own OpenAPI document (issue 10's gate), on the real Redis server.

As for the game service (``tests/game/test_openapi_gate.py``): schemathesis generates valid and invalid
requests for every operation and checks that none answers 5xx, that every status is documented for its
operation and every body matches its schema. Well-formed ticket and player ids are replaced by a real queued
ticket's and its player's, so that reads and cancellations succeed too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from edge_input import CHECKS, GATE_SETTINGS
from flask import Flask

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_service.fields import PLAYER_ID, TICKET_ID


def _document() -> dict[str, Any]:
    """The service's /openapi.json, read at collection from an app on the embedded store (no server needed)."""
    return create_app(Config(log_level="WARNING")).test_client().get("/openapi.json").get_json()


schema = schemathesis.openapi.from_dict(_document())  # see the game gate for why not from_fixture


@pytest.fixture
def gate_app(config: Config) -> Iterator[Flask]:
    app = create_app(config, services=Services.build(config))
    response = app.test_client().post("/v1/tickets", json={"player_id": "gate-player", "player_counts": [2]})
    assert response.status_code == 201, response.get_json()
    app.config["GATE_TICKET"] = response.get_json()
    yield app


@schema.parametrize()
@GATE_SETTINGS
def test_the_matchmaker_does_what_its_openapi_says(case: Any, gate_app: Flask) -> None:
    ticket = gate_app.config["GATE_TICKET"]
    if TICKET_ID.accepts(case.path_parameters.get("ticket_id")):
        case.path_parameters["ticket_id"] = ticket["ticket_id"]
    if PLAYER_ID.accepts(case.path_parameters.get("player_id")):
        case.path_parameters["player_id"] = ticket["player_id"]
    case.call_and_validate(checks=CHECKS, app=gate_app)

"""The game service against its own OpenAPI document (issue 10's gate), on SQLite and on PostgreSQL.

schemathesis generates requests for every operation from ``/openapi.json`` (valid and invalid ones) and
checks each answer: never a 5xx, a status the document lists for that operation, a body that matches the
documented schema. The requests carry real credentials (the service key and a seat token, or the admin key,
or none) and, where the path has a well-formed game id, a real game's, so that the success paths are
exercised too, not only the 404s.
"""

from __future__ import annotations

import contextlib
import random
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from edge_input import CHECKS, GATE_SETTINGS
from flask import Flask

from torres_game.app import create_app
from torres_service.fields import GAME_ID

from .conftest import ADMIN, SERVICE, bearer, create_game, make_config, play_one


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def gate_app(request: pytest.FixtureRequest, tmp_path: Path,
             throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> Iterator[Flask]:
    """A fresh service per backend (its own database), with one game a few moves in."""
    with contextlib.ExitStack() as stack:
        if request.param == "postgres":
            url = stack.enter_context(throwaway_database("torres_gate"))
        else:
            url = f"sqlite:///{tmp_path / 'gate.sqlite3'}"
        app = create_app(make_config(url, pool_max=4))
        stack.callback(app.extensions["torres_game"].close)
        client = app.test_client()
        game = create_game(client, [{"kind": "human", "player_id": "p1"}, {"kind": "ai", "level": "easy"}])
        rng = random.Random(7)
        for n in range(3):
            summary = client.get(f"/v1/games/{game['game_id']}").get_json()
            if summary["to_move"] != 0:
                break
            play_one(client, game, rng, n)
        app.config["GATE_GAME"] = game
        yield app


def _document() -> dict[str, Any]:
    """The service's /openapi.json (the same on every backend), read from a throwaway app at collection."""
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(make_config(f"sqlite:///{tmp}/spec.sqlite3"))
        try:
            return app.test_client().get("/openapi.json").get_json()
        finally:
            app.extensions["torres_game"].close()


# Not schemathesis.pytest.from_fixture: its lazy loader sets pytest's private Node._nodeid, gone in pytest 9.2.
# The document is loaded once; each call goes to the backend's app (``app=``), a WSGI call in-process.
schema = schemathesis.openapi.from_dict(_document())


def _credentials(case: Any, game: dict[str, Any]) -> dict[str, str]:
    """One of three callers, chosen from the generated request itself so that the run stays repeatable."""
    pick = zlib.crc32(repr((case.query, case.body, case.path_parameters)).encode("utf-8", "surrogatepass")) % 3
    if pick == 0:
        return {**SERVICE, **bearer(game["seats"][0]["token"])}
    return ADMIN if pick == 1 else {}


@schema.parametrize()
@GATE_SETTINGS
def test_the_game_service_does_what_its_openapi_says(case: Any, gate_app: Flask) -> None:
    game = gate_app.config["GATE_GAME"]
    if GAME_ID.accepts(case.path_parameters.get("game_id")):
        case.path_parameters["game_id"] = game["game_id"]
    if case.path.endswith(("/wait", "/stream")) and isinstance(case.query, dict):
        case.query["timeout"] = 0.05  # a long-poll or stream must not hold the run for a minute
    case.call_and_validate(headers=_credentials(case, game), checks=CHECKS, app=gate_app)

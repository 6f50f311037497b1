"""Both OpenAPI documents declare every security scheme per operation: each operation has its own
``security`` list, every scheme it names is defined in ``components.securitySchemes``, the probes and the scrape
say "no credential" (``[]``), and anonymous access (``{}`` among the alternatives) is where it was decided to be.
The schemathesis gates (tests/game/test_edge.py, tests/matchmaking/test_edge.py) then hold the services to what
the documents say, with every check schemathesis has, ``ignored_auth`` included."""

from __future__ import annotations

from typing import Any

import pytest
from game.conftest import openapi_document as game_document

from torres_matchmaking.app import create_app as create_matchmaking_app
from torres_matchmaking.config import Config as MatchmakingConfig

#: No credential of any kind: `security: []`. The probes and the scrape, and the transparency log: public
#: as a Certificate Transparency log is, hashes only, no answer names a game (tests/game/test_tenants.py).
OPEN = {"/healthz", "/readyz", "/metrics", "/v1/audit/checkpoint", "/v1/audit/proof/inclusion",
        "/v1/audit/proof/consistency", "/.well-known/torres-audit-key"}

#: Operations that serve anonymous callers too (``{}`` among their alternatives): a public or unlisted game is
#: open to anyone who knows its id (docs/security.md); the matchmaker serves nobody anonymously.
ANONYMOUS = {
    "game": {"GET /v1/games/{game_id}", "GET /v1/games/{game_id}/view", "GET /v1/games/{game_id}/events",
             "GET /v1/games/{game_id}/state", "GET /v1/games/{game_id}/record", "GET /v1/games/{game_id}/verify",
             "GET /v1/games/{game_id}/wait", "GET /v1/games/{game_id}/stream", "GET /v1/games/{game_id}/ws",
             # a finished game's analysis, by anyone who may read the game (computed once per depth and engine)
             "POST /v1/games/{game_id}/analysis", "GET /v1/games/{game_id}/analysis"},
    "matchmaking": set(),
}


def matchmaking_document() -> dict[str, Any]:
    config = MatchmakingConfig(log_level="WARNING", dev_issuer=True, webhook_secret="s" * 32)
    return create_matchmaking_app(config).test_client().get("/openapi.json").get_json()


def operations(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{method.upper()} {path}": operation for path, item in spec["paths"].items()
            for method, operation in item.items() if method != "parameters"}


@pytest.fixture(scope="module", params=["game", "matchmaking"])
def document(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param, game_document() if request.param == "game" else matchmaking_document()


def test_every_operation_declares_its_security(document: tuple[str, dict[str, Any]]) -> None:
    name, spec = document
    schemes = spec["components"]["securitySchemes"]
    assert "security" not in spec, "per operation, not a document-wide default"
    ops = operations(spec)
    assert len(ops) > 10
    for label, operation in ops.items():
        assert isinstance(operation.get("security"), list), f"{name}: {label} declares no security"
        for requirement in operation["security"]:
            assert isinstance(requirement, dict), (label, requirement)
            unknown = set(requirement) - set(schemes)
            assert not unknown, f"{name}: {label} names undefined schemes {unknown}"
            assert all(scopes == [] for scopes in requirement.values()), (label, requirement)


def test_open_operations_take_no_credential_and_the_rest_need_one(document: tuple[str, dict[str, Any]]) -> None:
    name, spec = document
    anonymous = set()
    for label, operation in operations(spec).items():
        path = label.split(" ", 1)[1]
        if path in OPEN:
            assert operation["security"] == [], label
            continue
        named = [r for r in operation["security"] if r]
        assert named, f"{name}: {label} must name at least one scheme"
        if {} in operation["security"]:
            anonymous.add(label)
    assert anonymous == ANONYMOUS[name]


def test_every_defined_scheme_is_used(document: tuple[str, dict[str, Any]]) -> None:
    _, spec = document
    used = {scheme for operation in operations(spec).values() for r in operation["security"] for scheme in r}
    assert used == set(spec["components"]["securitySchemes"])


def test_callback_url_is_documented_only_where_callbacks_are_sent() -> None:
    """A matchmaker without a webhook secret refuses callback_url (400), so its document does not offer it."""
    without = create_matchmaking_app(MatchmakingConfig(log_level="WARNING")).test_client().get(
        "/openapi.json").get_json()
    assert "callback_url" not in without["components"]["schemas"]["CreateTicket"]["properties"]
    assert "callback_url" in matchmaking_document()["components"]["schemas"]["CreateTicket"]["properties"]


def test_every_operation_has_a_unique_operation_id(document: tuple[str, dict[str, Any]]) -> None:
    """The generated SDKs name each call by its ``operationId``; without one they spell a name from the method and
    the path (``get_v1_games_game_id``)."""
    name, spec = document
    ids = {label: operation.get("operationId") for label, operation in operations(spec).items()}
    assert all(isinstance(i, str) and i.isidentifier() for i in ids.values()), (name, ids)
    assert len(set(ids.values())) == len(ids), (name, ids)

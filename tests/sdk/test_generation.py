"""The committed SDKs are what `make sdk` generates (docs/sdk.md), checked link by link: the services build the
committed OpenAPI documents, the documents generate the committed Python and TypeScript SDKs; and a document
changed without regenerating fails the check."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.timeout(300)


def test_the_committed_documents_are_what_the_services_publish(generator: ModuleType) -> None:
    assert generator.stale_documents() == [], "an OpenAPI document changed: run `make sdk` and commit the result"


def test_the_committed_sdks_are_generated_from_the_committed_documents(generator: ModuleType, node: str) -> None:
    assert generator.stale_sdks() == [], "the SDKs are stale: run `make sdk` and commit the result"


def _changed_documents(generator: ModuleType, folder: Path) -> Path:
    """A copy of the committed documents in which the game service's grew: one more field on a game's summary
    and one more endpoint, as a change to the service would make them."""
    shutil.copytree(generator.DOCUMENTS, folder)
    game = json.loads((folder / "game.json").read_text())
    game["components"]["schemas"]["GameSummary"]["properties"]["portal_note"] = {"type": "string"}
    game["paths"]["/v1/games/{game_id}/notes"] = {
        "parameters": game["paths"]["/v1/games/{game_id}"]["parameters"],
        "get": {"summary": "A portal's notes on a game.", "tags": ["games"], "responses": {"200": {
            "description": "OK",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/GameSummary"}}}}}}}
    (folder / "game.json").write_text(json.dumps(game, indent=2) + "\n")
    return folder


def test_the_check_fails_when_a_document_changes_without_regenerating(generator: ModuleType, node: str,
                                                                      tmp_path: Path) -> None:
    documents = _changed_documents(generator, tmp_path / "openapi")
    stale = generator.stale_sdks(documents)
    # each SDK is caught: the changed model, the new endpoint's module (missing from the committed tree), the types
    assert "python/torres_game_client/models/game_summary.py" in stale
    assert "python/torres_game_client/api/games/get_v1_games_game_id_notes.py" in stale
    assert "typescript/src/game.gen.ts" in stale
    assert not any("matchmaking" in name for name in stale)  # only what the change touches
    # and the command `make test` would run says so, with a non-zero exit
    done = subprocess.run([sys.executable, "sdk/generate.py", "--check", "--documents", str(documents)],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "stale: sdk/typescript/src/game.gen.ts" in done.stdout
    assert "stale: sdk/python/torres_game_client/models/game_summary.py" in done.stdout
    assert "run `make sdk`" in done.stdout


def test_the_check_fails_when_a_service_changes_its_document_without_regenerating(
        generator: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other link: the committed document of a service that now publishes something else is reported."""
    committed = tmp_path / "sdk"
    shutil.copytree(generator.DOCUMENTS, committed / "openapi")
    game = json.loads((committed / "openapi" / "game.json").read_text())
    del game["paths"]["/v1/games/{game_id}/stream-tickets"]  # as if the service had just added the endpoint
    (committed / "openapi" / "game.json").write_text(json.dumps(game, indent=2) + "\n")
    monkeypatch.setattr(generator, "SDK", committed)
    assert generator.stale_documents() == ["openapi/game.json"]


def test_an_endpoint_the_generator_would_skip_fails_the_generation(generator: ModuleType, tmp_path: Path) -> None:
    """openapi-python-client leaves out, with a mere warning, what it cannot express: here an endpoint whose path
    parameter is not declared. The SDK would silently lack it, so the generation fails instead, quoting it."""
    documents = tmp_path / "openapi"
    shutil.copytree(generator.DOCUMENTS, documents)
    game = json.loads((documents / "game.json").read_text())
    game["paths"]["/v1/games/{game_id}/notes"] = {"get": {"responses": {"200": {"description": "OK"}}}}
    (documents / "game.json").write_text(json.dumps(game))
    with pytest.raises(SystemExit, match=r"(?s)skipped part of game\.json.*GET /v1/games/\{game_id\}/notes"):
        generator.generate_python(documents, tmp_path / "python")

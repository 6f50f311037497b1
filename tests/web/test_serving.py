"""What the web client needs from the services, without a browser: /play/ served by the game service, its
config, CORS for another origin (the matchmaker under `make run`), and the API additions it uses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from game.conftest import API_KEY, make_config

from torres_game.app import create_app

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[FlaskClient]:
    config = make_config(f"sqlite:///{tmp_path / 'web.sqlite3'}", ai_driver="none",
                         matchmaking_url="http://127.0.0.1:8100")
    app = create_app(config)
    yield app.test_client()
    app.extensions["torres_game"].close()  # its threads stop with it


def test_play_serves_the_client_and_its_config(client: FlaskClient) -> None:
    assert client.get("/play").status_code == 308
    index = client.get("/play/")
    assert index.status_code == 200 and b'<script type="module" src="js/app.js">' in index.data
    script = client.get("/play/js/app.js")
    assert script.status_code == 200 and script.mimetype == "text/javascript"  # modules need a JS type
    assert script.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get("/play/config.json").get_json() == {"api_base": "", "matchmaking_url": "http://127.0.0.1:8100"}
    assert client.get("/play/../pyproject.toml").status_code == 404
    assert client.get("/play/js/nothing.js").status_code == 404
    for path in sorted(WEB.rglob("*.js")):  # every module the page imports is served
        assert client.get(f"/play/{path.relative_to(WEB)}").status_code == 200


def test_cors_only_for_the_listed_origins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from torres_matchmaking.app import create_app as create_matchmaking_app
    from torres_matchmaking.config import Config as MatchmakingConfig

    def preflight(client: FlaskClient, origin: str) -> Any:
        return client.options("/v1/tickets", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type"})

    closed = create_matchmaking_app(MatchmakingConfig.from_env({})).test_client()
    assert "Access-Control-Allow-Origin" not in preflight(closed, "http://127.0.0.1:8000").headers
    monkeypatch.setenv("TORRES_CORS_ORIGINS", "http://127.0.0.1:8000")
    client = create_matchmaking_app(MatchmakingConfig.from_env({})).test_client()
    allowed = preflight(client, "http://127.0.0.1:8000")
    assert allowed.headers["Access-Control-Allow-Origin"] == "http://127.0.0.1:8000"
    assert "POST" in allowed.headers["Access-Control-Allow-Methods"]
    assert "Access-Control-Allow-Origin" not in preflight(client, "http://evil.example").headers


def test_the_openapi_document_describes_what_the_client_uses(client: FlaskClient) -> None:
    spec = client.get("/openapi.json").get_json()
    assert "text" in spec["components"]["schemas"]["Event"]["properties"]
    state = spec["paths"]["/v1/games/{game_id}/state"]["get"]
    assert {} in state["security"]  # the spectator's view at a past version needs no credentials
    assert not any(path.startswith("/play") for path in spec["paths"])  # static files are not API


def test_spectator_replays_a_running_game_and_events_read_in_words(client: FlaskClient) -> None:
    seats = [{"kind": "human", "player_id": "a"}, {"kind": "human", "player_id": "b"}]
    game = client.post("/v1/games", json={"seats": seats}, headers={"X-API-Key": API_KEY}).get_json()
    gid, token = game["game_id"], game["seats"][0]["token"]
    body = {"seat": 0, "action": {"type": "place_start_knight", "at": "C3"}, "expected_version": 1,
            "command_id": "c1"}
    created = client.post(f"/v1/games/{gid}/actions", json=body, headers={"Authorization": f"Bearer {token}"})
    assert created.get_json()["events"][0]["text"] == "place_start_knight C3"
    events = client.get(f"/v1/games/{gid}/events").get_json()["events"]
    assert [e["text"] for e in events] == ["game created: 2 players, rio_grande edition", "place_start_knight C3"]
    at1 = client.get(f"/v1/games/{gid}/state?version=1").get_json()
    assert at1["view"]["knights"] == {} and at1["view"]["seat"] is None
    assert client.get(f"/v1/games/{gid}/state?version=2").get_json()["view"]["knights"] == {"C3": 0}


def test_event_text_says_no_more_than_the_redacted_payload() -> None:
    from torres_game.events import event_text

    full = {"type": "keep_card", "card": "jump", "rest": "top", "order": ["diagonal", "six_ap"]}
    assert event_text("action_applied", {"action": full}) == "keep_card jump rest top ['diagonal', 'six_ap']"
    owner = {k: v for k, v in full.items() if k != "order"}  # the owner's redaction: the order stays secret
    assert event_text("action_applied", {"action": owner}) == "keep_card jump rest top"
    assert event_text("action_applied", {"action": {"type": "keep_card"}}) == "keep_card"  # everyone else's
    assert event_text("action_applied", {"action": {}}) == "action_applied"  # odd payloads never fail a read


def test_play_may_be_framed_only_by_itself_and_the_listed_portals(client: FlaskClient, tmp_path: Path) -> None:
    """The embeddable client. Unconfigured, no other origin may frame `/play/` (clickjacking); a portal
    listed in TORRES_FRAME_ANCESTORS may, and nothing that is not an origin gets into the header."""
    for path in ("/play/", "/play/js/app.js", "/play/config.json"):
        headers = client.get(path).headers
        assert headers["Content-Security-Policy"] == "frame-ancestors 'self'", path
        assert headers["X-Frame-Options"] == "SAMEORIGIN", path
    portal = make_config(f"sqlite:///{tmp_path / 'framed.sqlite3'}", ai_driver="none",
                         frame_ancestors=("https://portal.example.org", "http://127.0.0.1:9001"))
    app = create_app(portal)
    try:
        headers = app.test_client().get("/play/").headers
        assert headers["Content-Security-Policy"] == \
            "frame-ancestors 'self' https://portal.example.org http://127.0.0.1:9001"
        assert "X-Frame-Options" not in headers  # it could name no portal; CSP browsers ignore it anyway
    finally:
        app.extensions["torres_game"].close()
    from torres_game.config import Config
    from torres_service.settings import SettingError
    with pytest.raises(SettingError, match="TORRES_FRAME_ANCESTORS"):
        Config.from_env({"TORRES_FRAME_ANCESTORS": "https://portal.example.org; script-src *"})
    assert Config.from_env({"TORRES_FRAME_ANCESTORS": "https://a.example, http://127.0.0.1:9001/"}).frame_ancestors \
        == ("https://a.example", "http://127.0.0.1:9001")

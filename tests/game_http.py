"""Playing a game over the game service's real HTTP API (httpx), for the tests that drive a served process."""

from __future__ import annotations

from collections.abc import Sequence

import httpx


def play_first_legal(http: httpx.Client, game_id: str, tokens: Sequence[str], command_id: str) -> int:
    """The seat to move (``tokens``: each seat's seat token) plays its first legal action, answered 201; returns
    that seat."""
    seat = http.get(f"/v1/games/{game_id}").json()["to_move"]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    legal = http.get(f"/v1/games/{game_id}/legal-actions", headers=auth).json()
    assert http.post(f"/v1/games/{game_id}/actions", headers=auth, json={
        "seat": seat, "action": legal["actions"][0], "expected_version": legal["version"],
        "command_id": command_id}).status_code == 201
    return seat

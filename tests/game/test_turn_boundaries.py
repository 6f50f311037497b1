"""The undo window is the rules' turn, and a tie names no winner -- over HTTP, on both backends.

Undo used to be open "while the same seat is to move", so when ``end_turn`` ended a phase and the same seat then
moved the king (or, in the master version, started the next round), the end of the turn -- and the phase
scoring with it -- could be taken back. Here the seat to move keeps moving across such a boundary and tries.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

import torres_rules as tr
from torres_game.service import GameService

from .conftest import ADMIN, SERVICE, bearer
from .online_helpers import act, create, drive

BACKENDS = ["client", pytest.param("pg_client", marks=pytest.mark.postgres)]

#: The AP actions that reveal nothing: the only ones a seat may take back (RULES 5).
TAKE_BACK = {"place_knight", "move_knight", "build", "advance_track"}


def svc_of(client: FlaskClient) -> GameService:
    return client.application.extensions["torres_game"]


def end_turn_of(state: tr.State) -> dict[str, Any] | None:
    return next((a for a in tr.legal_actions(state) if a["type"] == "end_turn"), None)


def same_seat_after_phase_scoring(state: tr.State) -> bool:
    """Ending this turn scores the phase, and the same seat moves next (it moves the king)."""
    end = end_turn_of(state) if state.stage == "turn" else None
    if end is None:
        return False
    after = tr.apply(state, end)
    return after.phase != state.phase and after.to_move == state.to_move


def same_seat_starts_the_next_round(state: tr.State) -> bool:
    """Ending this turn ends the round (not the phase), and the same seat starts the next one."""
    end = end_turn_of(state) if state.stage == "turn" else None
    if end is None:
        return False
    after = tr.apply(state, end)
    return after.phase == state.phase and after.round != state.round and after.to_move == state.to_move


def reach(client: FlaskClient, wanted: Callable[[tr.State], bool], **body: Any) -> dict[str, Any]:
    """A game whose seat to move is at a ``wanted`` position, reached by seeded random play (new games until one
    gets there: where a phase ends depends on the deal)."""
    svc = svc_of(client)
    for attempt in range(40):
        game = create(client, **body)
        rng = random.Random(attempt)
        try:
            drive(svc, game, rng, lambda s: wanted(s) and s.ap_spent > 0)
            return game
        except AssertionError:
            continue
    raise AssertionError("no game reached the wanted position")


def post(client: FlaskClient, game: dict[str, Any], path: str, seat: int, **body: Any) -> Any:
    return client.post(f"/v1/games/{game['game_id']}/{path}", headers=bearer(game["seats"][seat]["token"]),
                       json={"seat": seat, **body})


def events_of(client: FlaskClient, game: dict[str, Any]) -> list[dict[str, Any]]:
    return client.get(f"/v1/games/{game['game_id']}/events?limit=1000", headers=ADMIN).get_json()["events"]


def end_then_try_to_undo(client: FlaskClient, game: dict[str, Any]) -> tuple[tr.State, tr.State]:
    """The seat to move ends its turn over HTTP and then asks to undo: the documented 409, nothing appended."""
    svc = svc_of(client)
    before = svc.games.current(game["game_id"])
    seat = before.to_move
    assert seat is not None
    ended = post(client, game, "actions", seat, action=end_turn_of(before.state), expected_version=before.version,
                 command_id="end")
    assert ended.status_code == 201, ended.get_json()
    after = svc.games.current(game["game_id"])
    assert after.to_move == seat  # the same seat moves on: the case the old window let through
    log = events_of(client, game)
    view = client.get(f"/v1/games/{game['game_id']}/view").get_json()
    assert view["lifecycle"]["can_undo"] is False

    refused = post(client, game, "undo", seat, expected_version=after.version, command_id="undo")
    assert refused.status_code == 409, refused.get_json()
    assert refused.content_type == "application/problem+json" and refused.get_json()["code"] == "undo_unavailable"
    assert events_of(client, game) == log  # nothing appended
    assert svc.games.current(game["game_id"]).state.to_position() == after.state.to_position()
    assert client.get(f"/v1/games/{game['game_id']}/verify").get_json()["ok"]
    return before.state, after.state


@pytest.mark.parametrize("backend", BACKENDS)
def test_undo_cannot_take_back_the_end_of_a_turn_that_scored_a_phase(request: pytest.FixtureRequest,
                                                                      backend: str) -> None:
    client: FlaskClient = request.getfixturevalue(backend)
    game = reach(client, same_seat_after_phase_scoring)
    before, after = end_then_try_to_undo(client, game)
    assert after.stage == "move_king" and after.phase == before.phase + 1
    # the scoring stands: the seat now moves the king, and that move too is a whole turn of its own
    svc = svc_of(client)
    folded = svc.games.current(game["game_id"])
    king = next(a for a in tr.legal_actions(folded.state) if a["type"] == "move_king")
    moved = post(client, game, "actions", folded.to_move, action=king, expected_version=folded.version,
                 command_id="king")
    assert moved.status_code == 201
    seat_after = svc.games.current(game["game_id"]).to_move
    again = post(client, game, "undo", folded.to_move, expected_version=folded.version + 1, command_id="undo-king")
    assert again.status_code in (403, 409)
    assert again.get_json()["code"] == ("undo_unavailable" if seat_after == folded.to_move else "not_your_turn")


@pytest.mark.parametrize("backend", BACKENDS)
def test_undo_cannot_take_back_the_end_of_a_round_when_the_same_seat_starts_the_next(
    request: pytest.FixtureRequest, backend: str,
) -> None:
    client: FlaskClient = request.getfixturevalue(backend)
    game = reach(client, same_seat_starts_the_next_round, master=True, players=3)
    before, after = end_then_try_to_undo(client, game)
    assert after.round != before.round and after.phase == before.phase


@pytest.mark.parametrize("body", [{}, {"options": {"deck": "common"}}, {"master": True}],
                         ids=["personal-deck", "common-deck", "master"])
def test_exactly_the_ap_actions_that_reveal_nothing_can_be_taken_back(client: FlaskClient,
                                                                      body: dict[str, Any]) -> None:
    """A whole 3-player master game: after each action its seat tries to undo it. It may exactly when the action
    is one of TAKE_BACK (RULES 5); everything else -- the end of a turn, a setup placement, the king's move, a card
    bought, kept or played -- closes the window, whoever moves next."""
    svc = svc_of(client)
    game = create(client, players=3, **body)
    gid = game["game_id"]
    rng = random.Random(3)
    seen: dict[bool, set[str]] = {True: set(), False: set()}
    while not svc.games.current(gid).over:
        before = svc.games.current(gid)
        seat = before.to_move
        assert seat is not None
        action = rng.choice(tr.legal_actions(before.state))
        act(svc, game, action)
        after = svc.games.current(gid)
        response = post(client, game, "undo", seat, expected_version=after.version, command_id=f"u{after.version}")
        may = action["type"] in TAKE_BACK
        assert (response.status_code == 201) is may, (action, response.get_json())
        seen[may].add(action["type"])
        if may:
            assert svc.games.current(gid).state.to_position() == before.state.to_position()
            act(svc, game, action, tag="again")
    assert {"build", "move_knight"} <= seen[True]
    assert {"end_turn", "move_king", "place_start_knight", "place_king"} <= seen[False]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tied_abandon_names_no_single_winner(request: pytest.FixtureRequest, backend: str) -> None:
    client: FlaskClient = request.getfixturevalue(backend)
    svc = svc_of(client)
    game = create(client)
    drive(svc, game, random.Random(1), lambda s: s.stage == "turn" and s.ap_spent > 0)
    assert tr.scores(svc.games.current(game["game_id"]).state) == [0, 0]  # nobody has scored yet: a tie
    body = client.post(f"/v1/games/{game['game_id']}/abandon", json={"reason": "server move"},
                       headers=SERVICE).get_json()
    ended = body["events"][-1]
    assert ended["type"] == "game_ended"
    assert ended["payload"]["ranks"] == [0, 0]
    assert ended["payload"]["winner"] is None and ended["payload"]["winners"] == [0, 1]
    assert ended["text"] == "game over: scores 0, 0; a tie between seats 0 and 1"
    summary = client.get(f"/v1/games/{game['game_id']}").get_json()
    assert summary["status"] == "over" and summary["winner"] is None and summary["winners"] == [0, 1]
    listed = client.get("/v1/games?status=over", headers=SERVICE).get_json()["games"]
    assert next(g for g in listed if g["game_id"] == game["game_id"])["winners"] == [0, 1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_abandon_with_a_leader_names_it_alone(request: pytest.FixtureRequest, backend: str) -> None:
    client: FlaskClient = request.getfixturevalue(backend)
    svc = svc_of(client)
    game = create(client)
    drive(svc, game, random.Random(2), lambda s: s.stage == "turn" and len(set(tr.scores(s))) == 2,
          prefer="advance_track")
    scores = tr.scores(svc.games.current(game["game_id"]).state)
    leader = scores.index(max(scores))
    body = client.post(f"/v1/games/{game['game_id']}/abandon", json={"reason": "x"}, headers=SERVICE).get_json()
    payload = body["events"][-1]["payload"]
    assert payload["winner"] == leader and payload["winners"] == [leader]
    assert body["events"][-1]["text"].endswith(f"seat {leader} wins")
    summary = client.get(f"/v1/games/{game['game_id']}").get_json()
    assert summary["winner"] == leader and summary["winners"] == [leader]


def test_the_single_key_default_reads_no_hidden_card_before_the_end(client: FlaskClient) -> None:
    """The one-key embedded default, whose key also reaches browsers (`make run`): it drives AI seats
    and reads notifications, but the hidden cards stay the operator admin key's until the game is over."""
    svc = svc_of(client)
    game = create(client)
    drive(svc, game, random.Random(8), lambda s: s.stage == "keep_card", prefer="buy_card")
    act(svc, game, tr.legal_actions(svc.games.current(game["game_id"]).state)[0])  # the card is kept: a secret
    url = f"/v1/games/{game['game_id']}/events?limit=1000"
    anonymous = client.get(url).get_json()["events"]
    with_key = client.get(url, headers=SERVICE).get_json()
    admin = client.get(url, headers=ADMIN).get_json()
    kept = [e for e in admin["events"] if e["payload"].get("action", {}).get("type") == "keep_card"]
    assert kept and "order" in kept[-1]["payload"]["action"]  # the admin key reads the secret ...
    assert with_key["redacted"] is True and with_key["events"] == anonymous  # ... the service key what anyone reads
    notes = client.get("/v1/notifications?after=0&limit=1000", headers=SERVICE).get_json()["notifications"]
    mine = [n for n in notes if n["game_id"] == game["game_id"]]
    assert all("order" not in n["payload"].get("action", {}) for n in mine) and len(mine) == len(anonymous)

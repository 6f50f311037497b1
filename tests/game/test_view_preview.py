"""`/view`'s `preview`: the scoring the current phase would give if it ended in the position shown, the
rules engine's own breakdown, served so that the web client shows it without scoring arithmetic of its own."""

from __future__ import annotations

import random

from flask.testing import FlaskClient

import torres_rules as tr

from .conftest import ADMIN, bearer, create_game, play_one


def test_the_preview_is_the_engines_scoring_of_the_phase_as_if_it_ended_now(client: FlaskClient) -> None:
    game = create_game(client, [{"kind": "human", "player_id": f"p{i}"} for i in range(3)], master=True)
    gid = game["game_id"]
    tokens = [seat["token"] for seat in game["seats"]]
    rng = random.Random(30)
    seen_turn = seen_points = False
    for n in range(400):  # random legal moves, checking the preview at every version, until phase 2 has begun
        full = tr.from_position(client.get(f"/v1/games/{gid}/state", headers=ADMIN).get_json()["position"])
        views = [client.get(f"/v1/games/{gid}/view", headers=bearer(token)).get_json() for token in tokens]
        views.append(client.get(f"/v1/games/{gid}/view").get_json())
        previews = [view["preview"] for view in views]
        if full.stage == "setup":
            assert previews == [None] * 4, previews  # no king yet: no phase to score
        else:
            expected = tr.scoring_breakdown(full)
            # the same for every seat and the spectator: only public facts go into it
            assert previews == [expected] * 4, (n, full.stage)
            assert expected["phase"] == full.phase and len(expected["seats"]) == 3
            seen_turn = True
            seen_points = seen_points or any(seat["gained"] > 0 for seat in expected["seats"])
        if full.phase == 2 and full.stage == "turn":
            break
        play_one(client, game, rng, n)
    assert seen_turn and seen_points, "the game never reached a position whose scoring pays anything"


def test_the_preview_equals_the_scoring_that_then_happens(client: FlaskClient) -> None:
    """Shown just before a phase's last end_turn, the preview is the scoring that end_turn then makes (the
    `scoring` of `/state` at the next version): "if the phase ended now" says what the end will pay."""
    game = create_game(client)
    gid = game["game_id"]
    rng = random.Random(7)
    for n in range(600):
        before = client.get(f"/v1/games/{gid}/view").get_json()
        version = play_one(client, game, rng, n)["version"]
        scoring = client.get(f"/v1/games/{gid}/state?version={version}").get_json()["scoring"]
        if scoring is not None:
            assert before["preview"] == scoring
            return
    raise AssertionError("no phase ended in 600 moves")


def test_no_preview_once_the_game_is_over() -> None:
    """The rule itself: setup and the end have no phase under way."""
    state = tr.new_game(players=2, seed=1)
    assert tr.phase_preview(state) is None
    rng = random.Random(1)
    while not tr.is_over(state):
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))
        if state.stage in ("turn", "keep_card", "move_king"):
            assert tr.phase_preview(state) == tr.scoring_breakdown(state)
    assert tr.phase_preview(state) is None

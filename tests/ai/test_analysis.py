"""Post-game analysis (``torres_ai.analysis``): it marks a thrown-away turn, it is deterministic, and its better turn
uses only what the seat saw at the time.

Games are played in memory by the greedy bot (the quick depth's own search), so a greedy turn is, by construction,
one the quick analysis cannot improve on; the one turn replaced by a bad one is the mistake to find.
"""

from __future__ import annotations

import inspect
import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

import torres_rules as tr
from torres_ai import analysis
from torres_ai.analysis import DEPTHS, Step, analyse_steps, better_turn
from torres_ai.bots import Budget, make_bot

from .test_hidden_information import _positions, _reshuffle_secrets

# Deep's search (in parts) and playouts at a small budget: the same code paths, in test time.
SMALL_DEEP = replace(DEPTHS["deep"], iterations=12, parts=3, rollouts=1)


def _play(seed: int, players: int = 2, spoil: int | None = None) -> tuple[list[Step], int | None]:
    """A greedy game; with ``spoil``, seat 0's turn at that index of its turns just ends (its AP thrown away).
    Returns the steps and the index (among all turns) of the spoiled turn."""
    state = tr.new_game(players=players, seed=seed, edition="rio_grande", master=False)
    bots = [make_bot("greedy") for _ in range(players)]
    steps: list[Step] = []
    own_turns, turn_index, spoiled, spoiling = 0, -1, None, False
    version = 1
    while not tr.is_over(state):
        seat = state.to_move
        assert seat is not None
        starts = state.stage == "turn" and state.ap_spent == 0 and (not steps or steps[-1].action["type"] == "end_turn"
                                                                      or steps[-1].before.stage != "turn")
        if starts:
            turn_index += 1
            spoiling = False
            if seat == 0:
                spoiling = own_turns == spoil
                spoiled = turn_index if spoiling else spoiled
                own_turns += 1
        if spoiling:
            action = next(a for a in tr.legal_actions(state) if a["type"] == "end_turn")
        else:
            action = bots[seat].decide(tr.view(state, seat), random.Random(version), Budget(1, 30.0))
        after = tr.apply(state, action)
        version += 1
        steps.append(Step(version, seat, action, state, after))
        state = after
    return steps, spoiled


def _last_turn_before_scoring(steps: list[Step]) -> int:
    """Seat 0's own-turn count of its last turn of phase 1 (the one right before the first castle scoring)."""
    count = -1
    last = None
    for turn in analysis.turns_of(steps):
        if turn[0].seat == 0:
            count += 1
            if turn[0].before.phase == 1:
                last = count
    assert last is not None
    return last


def test_a_turn_that_threw_away_a_castle_scoring_is_marked_with_a_better_turn() -> None:
    played, _ = _play(21)
    spoil = _last_turn_before_scoring(played)
    steps, spoiled = _play(21, spoil=spoil)
    assert spoiled is not None
    result = analyse_steps(steps, "game-spoiled", DEPTHS["quick"])
    turn = result["turns"][spoiled]
    assert turn["seat"] == 0 and turn["phase"] == 1
    assert [a["action"]["type"] for a in turn["actions"]] == ["end_turn"]
    # The first castle scoring came after that turn, with what the wasted AP left on the board.
    assert result["scorings"][0]["phase"] == 1 and result["scorings"][0]["version"] > turn["to_version"]
    assert spoiled in result["marked"]
    mine = [t for t in result["turns"] if t["seat"] == 0]
    assert max(mine, key=lambda t: t["loss"])["turn"] == spoiled  # the worst of the seat's turns
    better = turn["better"]
    assert better is not None and turn["loss"] >= 5
    assert better["margin_better"] - better["margin_played"] == pytest.approx(turn["loss"], abs=0.02)
    assert any(a["action"]["type"] in ("build", "move_knight", "place_knight", "play_card") for a in better["actions"])
    assert all(isinstance(a["text"], str) and a["text"] for a in better["actions"])
    # The unspoiled greedy game has nothing of this size to mark at quick depth (its own search played it).
    clean = analyse_steps(played, "game-clean", DEPTHS["quick"])
    assert all(t["loss"] < turn["loss"] for t in clean["turns"])


def test_the_curve_has_a_point_before_and_after_every_turn_and_ends_at_the_final_shares() -> None:
    steps, _ = _play(5, players=3)
    result = analyse_steps(steps, "game-curve", DEPTHS["quick"])
    assert result["players"] == 3 and result["final_scores"] == list(steps[-1].after.scores)
    for turn in result["turns"]:
        for key in ("share_before", "share_after"):
            assert len(turn[key]) == 3 and sum(turn[key]) == pytest.approx(1.0, abs=0.01)
    total = sum(steps[-1].after.scores)
    assert result["turns"][-1]["share_after"] == [round(s / total, 4) for s in steps[-1].after.scores]
    assert [s["phase"] for s in result["scorings"]] == [1, 2, 3]


@pytest.mark.parametrize("depth", [DEPTHS["quick"], SMALL_DEEP], ids=["quick", "deep"])
def test_an_analysis_is_deterministic_for_a_given_engine_version(depth: analysis.Depth) -> None:
    steps, _ = _play(8, spoil=3)
    first = analyse_steps(steps, "game-d", depth)
    assert analyse_steps(steps, "game-d", depth) == first
    assert first["engine_version"] == analysis.ENGINE_VERSION and first["depth"] == depth.name


@pytest.mark.parametrize("depth", [DEPTHS["quick"], SMALL_DEEP], ids=["quick", "deep"])
def test_every_step_of_the_better_turn_is_given_the_movers_view_at_the_time(
        monkeypatch: pytest.MonkeyPatch, depth: analysis.Depth) -> None:
    assert list(inspect.signature(better_turn).parameters) == ["view", "rng", "depth"]
    steps, _ = _play(13, spoil=2)
    starts = {t[0].version - 1: tr.view(t[0].before, t[0].seat) for t in analysis.turns_of(steps)}
    seen: dict[str, list[dict]] = {"candidate_turns": [], "search_part": [], "chosen_turn": []}

    def spy(name: str) -> Callable[..., Any]:
        real = getattr(analysis, name)

        def watched(view: dict, *rest: Any) -> Any:
            seen[name].append(view)
            return real(view, *rest)
        return watched

    for name in seen:
        monkeypatch.setattr(analysis, name, spy(name))
    analyse_steps(steps, "game-v", depth)
    assert seen["candidate_turns"] and seen["chosen_turn"]
    assert bool(seen["search_part"]) == (depth.parts > 0)  # deep searches in parts, each given the view
    for views in seen.values():
        assert all(view in starts.values() for view in views)
        assert all(not {"hands", "decks", "deck"} & set(view) for view in views)


@pytest.mark.parametrize("depth", [DEPTHS["quick"], SMALL_DEEP], ids=["quick", "deep"])
def test_hidden_cards_and_deck_orders_do_not_change_the_better_turn(depth: analysis.Depth) -> None:
    rng = random.Random(4)
    changed = 0
    # Turn starts along a random game that buys cards: hands and decks hold something to hide.
    starts = [s for s in _positions("rio_grande", False, 3, 12) if s.stage == "turn"][:6]
    assert len(starts) >= 4
    for index, state in enumerate(starts):
        seat = state.to_move
        assert seat is not None
        twin = _reshuffle_secrets(state, seat, rng)
        changed += tr.to_position(twin) != tr.to_position(state)
        seed = analysis.seed_for("game-h", index, "search")
        first = better_turn(tr.view(state, seat), random.Random(seed), depth)
        second = better_turn(tr.view(twin, seat), random.Random(seed), depth)
        assert first == second
    assert changed >= 3  # the hidden parts really differed


def test_the_marked_turns_suggestions_are_the_better_turn_of_the_movers_view_computed_in_units() -> None:
    steps, _ = _play(8, spoil=3)
    turns = analysis.turns_of(steps)
    progress, result = analysis.run(analysis.Game("game-u", SMALL_DEEP, steps, turns), [], None)
    assert result is not None and result["marked"]
    parts = [r["result"] for r in progress if r["unit"][0] == "search"]
    assert parts and all(sum(p["visits"]) in (0, SMALL_DEEP.iterations // SMALL_DEEP.parts) for p in parts)
    for index in result["marked"]:
        start = turns[index][0]
        whole = better_turn(tr.view(start.before, start.seat),
                            random.Random(analysis.seed_for("game-u", index, "search")), SMALL_DEEP)
        assert [a["action"] for a in result["turns"][index]["better"]["actions"]] == whole


def test_a_deep_analysis_sliced_one_unit_at_a_time_through_json_is_the_one_in_one_go() -> None:
    steps, _ = _play(8, spoil=3)
    game = analysis.Game("game-s", SMALL_DEEP, steps, analysis.turns_of(steps))
    progress: list[dict] = []
    slices = 0
    while True:
        # What a store keeps between slices: the progress as JSON (search parts' sums and seeds included).
        progress, result = analysis.run(game, json.loads(json.dumps(progress)), 0.0)
        slices += 1
        if result is not None:
            break
    assert slices == len(progress) and {r["unit"][0] for r in progress} >= {"candidates", "search", "turn"}
    assert result == analyse_steps(steps, "game-s", SMALL_DEEP)

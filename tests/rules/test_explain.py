"""`castles_of`, `scoring_breakdown` and `scored_between`: the castles and phase scorings clients show, taken
from the engine (RULES 1, 6, 8, 11) instead of re-derived."""

from __future__ import annotations

import random

import pytest

import torres_rules as tr

from .helpers import board, end_turn, knights, last_turn

YUCATA_SCORING = board(
    drop=("C3", "A5", "C6"), A2=1, A3=2, A4=1, C4=3, D4=4, C5=1, D5=1, E3=1, G3=1, D1=2, E1=1
)
BLACK_GREEN = knights("A3 D4 E3", "A4 C4 D1")


def castle_index(castles: list[dict], square: str) -> int:
    return next(i for i, c in enumerate(castles) if square in c["squares"])


def test_castles_of_lists_each_castle_with_its_squares_area_and_the_king():
    s = last_turn(2, 1, heights=board(F1=1, G1=2, H1=1, H2=1), knights=knights("F1", "A8"), king="H1")
    castles = tr.castles_of(s)
    heights = s.to_position()["heights"]
    assert sorted(sq for c in castles for sq in c["squares"]) == sorted(sq for sq, h in heights.items() if h)
    big = castles[castle_index(castles, "H1")]
    assert big == {"squares": ["F1", "G1", "H1", "H2"], "area": 4, "king": True}
    assert [c["king"] for c in castles].count(True) == 1


def test_castles_are_listed_by_their_lowest_square_whatever_order_the_engine_built_them_in():
    s = tr.new_game(2, seed=5)
    while not tr.is_over(s) and s.to_position()["phase"] == 1:
        s = tr.apply(s, tr.legal_actions(s)[-1])
    order = {f"{c}{r}": (r, c) for c in "ABCDEFGH" for r in range(1, 9)}
    firsts = [order[c["squares"][0]] for c in tr.castles_of(s)]
    assert firsts == sorted(firsts)
    for c in tr.castles_of(s):
        assert c["squares"] == sorted(c["squares"], key=order.__getitem__)
        assert c["area"] == len(c["squares"])


def test_no_king_before_setup_places_it():
    assert not any(c["king"] for c in tr.castles_of(tr.new_game(2, seed=1)))


def test_breakdown_of_the_yucata_example_phase_2():
    before = last_turn(2, 2, heights=YUCATA_SCORING, knights=BLACK_GREEN, king="A2")
    breakdown = tr.scoring_breakdown(before)
    castles = tr.castles_of(before)
    black, green = breakdown["seats"]
    assert breakdown["phase"] == 2 and breakdown["master_card"] is None
    assert {(c["castle"], c["area"], c["level"], c["points"]) for c in black["castles"]} == {
        (castle_index(castles, "A3"), 3, 2, 6), (castle_index(castles, "D4"), 4, 4, 16),
        (castle_index(castles, "E3"), 3, 1, 3)}
    assert [c["castle"] for c in black["castles"]] == sorted(c["castle"] for c in black["castles"])
    assert (black["castle_points"], black["king_bonus"], black["master_points"], black["collision"]) == (25, 10, 0, 0)
    assert (black["gained"], black["score"]) == (35, 35)
    assert (green["castle_points"], green["king_bonus"], green["gained"]) == (19, 0, 19)
    assert tr.scored_between(before, end_turn(before)) == breakdown


def test_breakdown_names_the_collision_rule():
    # both earn 4 for the castle (seat 1 moves on to 5), then 5 each for the king: 9 and 10
    before = last_turn(2, 1, heights=board(F1=1, G1=1, H1=2, H2=1), knights=knights("F1", "G1"), king="H1")
    seats = tr.scoring_breakdown(before)["seats"]
    assert [(s["castle_points"], s["king_bonus"], s["collision"], s["score"]) for s in seats] == [
        (4, 5, 0, 9), (4, 5, 1, 10)]
    assert [s["score"] for s in seats] == tr.scores(end_turn(before))


def test_breakdown_of_a_master_card():
    # "edge" after phase 1: 2 per knight on the edge, +2 for the most; seat 0 has F1 and H1 (castle of 4 at 1)
    before = last_turn(2, 1, master=True, master_card="edge", heights=board(F1=1, G1=2, H1=1, H2=1),
                       knights=knights("F1 H1", "D4"), king="D1")
    breakdown = tr.scoring_breakdown(before)
    seat0 = breakdown["seats"][0]
    assert breakdown["master_card"] == "edge"
    assert (seat0["castle_points"], seat0["master_points"]) == (4, 6)
    assert seat0["score"] == tr.scores(end_turn(before))[0] == 10


def test_no_scoring_between_states_of_one_phase():
    s = tr.new_game(2, seed=2)
    after = tr.apply(s, tr.legal_actions(s)[0])
    assert tr.scored_between(s, after) is None


def test_scored_between_refuses_states_that_are_not_consecutive():
    before = last_turn(2, 1, knights=knights("C3", "F3"), king="D1")
    after = end_turn(last_turn(2, 1, scores=[0, 7], knights=knights("C3", "F3"), king="D1"))
    with pytest.raises(ValueError, match="not consecutive"):
        tr.scored_between(before, after)


@pytest.mark.parametrize("players, master", [(2, False), (3, True), (4, False)])
def test_every_scoring_of_a_random_game_is_explained_by_its_breakdown(players, master):
    """Three scorings per game, each found by `scored_between`, whose parts add up to the scores awarded."""
    rng = random.Random(players)
    s = tr.new_game(players, seed=players, master=master)
    scorings = []
    while not tr.is_over(s):
        after = tr.apply(s, rng.choice(tr.legal_actions(s)))
        breakdown = tr.scored_between(s, after)
        if breakdown is not None:
            scorings.append(breakdown)
            for seat in breakdown["seats"]:
                assert seat["castle_points"] == sum(c["points"] for c in seat["castles"])
                assert seat["gained"] == (seat["castle_points"] + seat["king_bonus"] + seat["master_points"]
                                          + seat["collision"])
                assert seat["collision"] >= 0
                assert seat["score"] == tr.scores(after)[seat["seat"]]
        s = after
    assert [b["phase"] for b in scorings] == [1, 2, 3]

"""OpenSpiel's ISMCTS and MCTS seated in our matches: legal play from a view, nothing hidden read,
budgets honoured, and the tournament command running them beside our bots."""

from __future__ import annotations

import csv
import inspect
import random
import time
from pathlib import Path

import pytest

import torres_rules as tr
from torres_ai.bots import Budget, make_bot
from torres_ai.config import Settings
from torres_ai.match import play_game
from torres_ai.openspiel.bots import OPENSPIEL_KINDS, OpenSpielBot
from torres_ai.tournament import entrants, main, ranks_of

from .test_hidden_information import _positions, _reshuffle_secrets

BUDGET = Budget(iterations=4, seconds=30.0)  # simulation-bound: a decision is a function of (view, seed)


@pytest.mark.parametrize("kind", OPENSPIEL_KINDS)
def test_openspiel_bots_play_whole_games_legally(kind: str) -> None:
    bot = OpenSpielBot(kind)
    assert list(inspect.signature(bot.decide).parameters) == ["view", "rng", "budget"]
    # play_game applies every decision with tr.apply, which raises IllegalAction on an illegal one.
    result = play_game([bot, make_bot("random")], [Budget(3, 30.0), Budget()], seed=12)
    assert sorted(result.scores, reverse=True)[0] == result.scores[result.winner]
    assert bot.simulations and max(bot.simulations) <= 3 and min(bot.simulations) >= 2


def test_four_seats_editions_and_the_master_version() -> None:
    for players, edition, master in ((4, "yucata", False), (3, "ravensburger", True)):
        bots = [OpenSpielBot("ismcts"), make_bot("random"), OpenSpielBot("os-mcts"), make_bot("greedy")][:players]
        budgets = [Budget(2, 30.0), Budget(), Budget(2, 30.0), Budget(1, 30.0)][:players]
        result = play_game(bots, budgets, seed=4, edition=edition, master=master)
        assert len(result.scores) == players


@pytest.mark.parametrize("kind", OPENSPIEL_KINDS)
def test_hidden_parts_change_neither_the_input_nor_the_decision(kind: str) -> None:
    """As for our bots (test_hidden_information): the same view and seed give the same action whatever the
    hidden cards really are."""
    rng = random.Random(5)
    for state in _positions("rio_grande", False, 2, 4):
        seat = state.to_move
        assert seat is not None
        twin = _reshuffle_secrets(state, seat, rng)
        assert tr.view(twin, seat) == tr.view(state, seat)
        first = OpenSpielBot(kind).decide(tr.view(state, seat), random.Random(42), BUDGET)
        second = OpenSpielBot(kind).decide(tr.view(twin, seat), random.Random(42), BUDGET)
        assert first == second


def test_a_wall_clock_budget_stops_the_search() -> None:
    """No simulation cap: the clock alone ends the search (checked between simulations), so a 1 ms budget ends
    after a few simulations -- how many depends on the engine's speed and the machine's load, so the test bounds
    the time instead: without the clock the search would run to its cap of 10**9 simulations."""
    state = _positions("rio_grande", False, 2, 1)[0]
    assert state.to_move is not None
    for kind in OPENSPIEL_KINDS:
        bot = OpenSpielBot(kind)
        started = time.perf_counter()
        bot.decide(tr.view(state, state.to_move), random.Random(1), Budget(iterations=0, seconds=0.001))
        assert time.perf_counter() - started < 3.0
        assert 1 <= bot.simulations[-1] < 1000


def test_openspiel_entrants_get_the_searchers_wall_clock_and_no_cap() -> None:
    field = entrants(["hard", "ismcts", "os-mcts"], Settings.from_env(), 0.25, None)
    assert [(e.kind, e.budget.seconds) for e in field] == [("mcts", 0.25), ("ismcts", 0.25), ("os-mcts", 0.25)]
    assert field[1].budget.iterations == field[2].budget.iterations == 0
    assert entrants(["ismcts"], Settings.from_env(), None, 50)[0].budget.iterations == 50


def test_ranks_follow_the_scores() -> None:
    assert ranks_of([10, 40, 25, 3]) == [3, 1, 2, 4]


def test_tournament_seats_ismcts_and_prints_rank_distributions(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    assert main(["--bots", "ismcts,random,greedy", "--players", "3", "--games", "3", "--workers", "2",
                 "--seconds", "0.02", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "places (games finished 1st / 2nd / ...)" in printed and "ismcts: median" in printed
    with open(out / "summary.csv") as f:
        summary = {row["bot"]: row for row in csv.DictReader(f)}
    assert float(summary["ismcts"]["simulations_p50"]) >= 2 and float(summary["greedy"]["simulations_p50"]) == 0
    for row in summary.values():
        assert int(row["games"]) == 3
        assert sum(int(row[f"rank_{place}"]) for place in (1, 2, 3)) == 3
    assert sum(int(row["rank_1"]) for row in summary.values()) == 3  # one winner a game
    with open(out / "games-partial.csv") as f:
        assert len(list(csv.DictReader(f))) == 3
    assert (out / "winrates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

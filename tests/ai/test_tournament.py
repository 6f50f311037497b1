"""The tournament command, its statistics, and the plan-once-per-turn design that keeps hard cheap."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest
import redis

import torres_rules as tr
from torres_ai.bots import Budget, GreedyBot, MctsBot, make_bot
from torres_ai.match import play_game
from torres_ai.plan_store import RedisPlanMemory
from torres_ai.tournament import main, wilson

from .conftest import REDIS_URL


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(180, 200)
    assert (round(low, 3), round(high, 3)) == (0.851, 0.934)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_tournament_command_prints_rates_and_writes_csv_and_png(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    assert main(["--bots", "easy,medium", "--players", "2", "--games", "2", "--workers", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "win rate" in printed and "95% CI" in printed and "avg score" in printed
    with open(out / "games.csv") as f:
        games = list(csv.DictReader(f))
    assert len(games) == 2 and {g["winner"] for g in games} <= {"easy", "medium"}
    with open(out / "summary.csv") as f:
        summary = {row["bot"]: row for row in csv.DictReader(f)}
    assert int(summary["easy"]["games"]) == int(summary["medium"]["games"]) == 2
    assert (out / "winrates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("bot", [GreedyBot(), MctsBot()])
def test_planning_bots_search_about_once_per_turn(bot: GreedyBot | MctsBot) -> None:
    """The whole turn is planned at its first decision and replayed after: ~12 searches per 2-player game."""
    result = play_game([bot, make_bot("random")], [Budget(4, 1.0), Budget()], seed=3)
    turns = 12  # 3 phases x 4 rounds with 2 players
    decisions = len(result.all_latencies[0])
    searches = len(result.latencies[0])
    assert decisions > 2 * turns
    assert turns <= searches <= turns + 8  # a bought card may need one re-plan in its turn


@pytest.mark.redis
def test_plans_are_shared_between_processes_through_redis(redis_namespace: str) -> None:
    client = redis.Redis.from_url(REDIS_URL)
    planner = GreedyBot(RedisPlanMemory(client, redis_namespace, ttl=60))
    follower = GreedyBot(RedisPlanMemory(client, redis_namespace, ttl=60))  # as if in another worker process
    state = tr.new_game(players=2, seed=8)
    rng = random.Random(1)
    while state.stage != "turn":
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))
    first = planner.decide(tr.view(state, state.to_move), random.Random(2), Budget())
    assert planner.last_planned
    state = tr.apply(state, first)
    if first["type"] != "end_turn":
        follower.decide(tr.view(state, state.to_move), random.Random(3), Budget())
        assert not follower.last_planned  # it found the plan in Redis

"""Play one bot-vs-bot game in memory (no service): the tournament's unit of work."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import torres_rules as tr

from .bots import Bot, Budget
from .bots.policy import PlanningBot


@dataclass
class GameResult:
    """Outcome of one game: bot name per seat, final scores, the winning seat and decision latencies."""

    bots: list[str]
    scores: list[int]
    winner: int
    decisions: int
    seconds: float
    # Per seat, latencies (ms) of decisions that ran a search (planning bots) or of every decision (others).
    latencies: list[list[float]] = field(default_factory=list)
    all_latencies: list[list[float]] = field(default_factory=list)


def play_game(
    bots: list[Bot], budgets: list[Budget], seed: int, *, edition: str = "rio_grande", master: bool = False,
    max_decisions: int = 5000,
) -> GameResult:
    """Seat ``i`` is played by ``bots[i]``; each bot only ever sees ``tr.view(state, its seat)``."""
    rng = random.Random(seed)
    state = tr.new_game(players=len(bots), seed=seed, edition=edition, master=master)
    planned: list[list[float]] = [[] for _ in bots]
    every: list[list[float]] = [[] for _ in bots]
    started = time.perf_counter()
    decisions = 0
    while not tr.is_over(state):
        if decisions >= max_decisions:
            raise RuntimeError(f"game {seed} did not end after {max_decisions} decisions")
        seat = state.to_move
        assert seat is not None
        bot = bots[seat]
        t0 = time.perf_counter()
        action = bot.decide(tr.view(state, seat), random.Random(rng.getrandbits(64)), budgets[seat])
        ms = (time.perf_counter() - t0) * 1000
        every[seat].append(ms)
        if not isinstance(bot, PlanningBot) or bot.last_planned:
            planned[seat].append(ms)
        state = tr.apply(state, action)
        decisions += 1
    winner = tr.winner(state)
    assert winner is not None
    return GameResult(
        bots=[b.name for b in bots], scores=tr.scores(state), winner=winner, decisions=decisions,
        seconds=time.perf_counter() - started, latencies=planned, all_latencies=every,
    )

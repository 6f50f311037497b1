"""Does knowing the played cards (RULES 13, the views' ``played``) make the search bot stronger?

The determinization never deals a card that was already played. This runs the tournament's
game loop (``torres_ai.match.play_game``, seats rotating like ``python -m torres_ai.tournament``) with the same
MCTS bot twice, side by side in one run: once with the full view, once with ``played`` and
``cards_bought_total`` removed from every view it gets (how it sampled before). Iteration-bound budgets keep
each game a function of its seed.

    .venv/bin/python bench/card_history_bench.py --games 40 --iterations 120 --deck common
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from torres_ai.bots import Budget, make_bot
from torres_ai.bots.base import Bot
from torres_ai.match import play_game
from torres_ai.tournament import wilson


class WithoutHistory:
    """The same bot, fed views without the card history."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.name = f"{inner.name}-no-history"

    def decide(self, view: dict[str, Any], rng: random.Random, budget: Budget) -> Any:
        blind = {k: v for k, v in view.items() if k not in ("played", "cards_bought_total")}
        return self.inner.decide(blind, rng, budget)


def play_one(game: int, iterations: int, deck: str, seed: int) -> tuple[list[str], int, list[int]]:
    """One game, seats alternating by game number: (who sat where, winning seat, scores)."""
    budget = Budget(iterations=iterations, seconds=60.0)
    order = ["history", "no-history"] if game % 2 == 0 else ["no-history", "history"]
    bots: list[Any] = [make_bot("mcts") if who == "history" else WithoutHistory(make_bot("mcts")) for who in order]
    edition = "rio_grande" if deck == "personal" else "ravensburger"
    result = play_game(bots, [budget, budget], seed + game, edition=edition)
    return order, result.winner, list(result.scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=120)
    parser.add_argument("--deck", default="common", choices=("personal", "common"))
    parser.add_argument("--seed", type=int, default=5000)
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, one process each")
    args = parser.parse_args()
    wins = {"history": 0, "no-history": 0}
    scores: dict[str, list[int]] = {"history": [], "no-history": []}
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:  # every game is a function of its seed: same results for any jobs
        games = pool.map(functools.partial(play_one, iterations=args.iterations, deck=args.deck, seed=args.seed),
                         range(args.games))
        for order, winner, result in games:
            wins[order[winner]] += 1
            for seat, who in enumerate(order):
                scores[who].append(result[seat])
    elapsed = time.perf_counter() - started
    print(f"{args.games} games, 2 players, {args.deck} deck, mcts {args.iterations} iterations, {elapsed:.0f} s "
          f"({args.jobs} processes, shared machine)")
    for who in ("history", "no-history"):
        low, high = wilson(wins[who], args.games)
        print(f"{who:<11} wins {wins[who]:>3}/{args.games}  {wins[who] / args.games:6.1%}  95% CI [{low:.1%}, "
              f"{high:.1%}]  mean score {statistics.fmean(scores[who]):.1f}  median {statistics.median(scores[who])}")


if __name__ == "__main__":
    main()

"""Bot-vs-bot matches: ``python -m torres_ai.tournament --bots hard,greedy --players 2 --games 200 --workers 2``.

Bots are levels (``easy``/``medium``/``hard``, budgets from the environment like the workers) or bot kinds
(``random``/``greedy``/``mcts``), or OpenSpiel's ``ismcts`` and ``os-mcts`` when the ``openspiel`` extra is
installed (``torres_ai.openspiel.bots``); these get the same wall-clock budget per decision as ``mcts``
(``--seconds``, default the hard level's) and no simulation cap unless ``--iterations`` is given.
Seats rotate from game to game so no bot keeps the first-player edge.
Prints win rates with 95 % Wilson intervals, rank distributions, average scores, decision latencies and
throughput, and writes ``games.csv``, ``summary.csv`` and ``winrates.png`` into ``--out`` (default
``tournament-out/``).
"""

from __future__ import annotations

import argparse
import csv
import math
import multiprocessing
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from torres_online.lifecycle import AI_LEVELS

from .bots import BOT_KINDS, Bot, Budget, make_bot
from .config import Settings
from .match import GameResult, play_game

GAMES_HEADER = ["game", "seed", "seats", "scores", "winner", "decisions", "seconds"]


@dataclass(frozen=True)
class Entrant:
    name: str  # as given on the command line
    kind: str
    budget: Budget


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    ranks: list[int] = field(default_factory=list)  # 1 = best score at the table
    scores: list[int] = field(default_factory=list)
    searches: list[float] = field(default_factory=list)  # ms of decisions that ran a search
    simulations: list[int] = field(default_factory=list)  # OpenSpiel bots: simulations per search
    decisions: int = 0
    decide_seconds: float = 0.0


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a win rate (sound at 0 % and 100 %, unlike the normal approximation)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def openspiel_kinds() -> tuple[str, ...]:
    """OpenSpiel's bots, where the optional ``openspiel`` extra is installed."""
    try:
        from .openspiel.bots import OPENSPIEL_KINDS
    except ImportError:
        return ()
    return OPENSPIEL_KINDS


def entrants(names: list[str], settings: Settings, seconds: float | None, iterations: int | None) -> list[Entrant]:
    out = []
    searchers = ("mcts", *openspiel_kinds())
    for name in names:
        if name in AI_LEVELS:
            level = settings.level(name)
            kind, budget = level.bot, level.budget
        elif name in BOT_KINDS:
            kind, budget = name, settings.level("hard").budget
        elif name in openspiel_kinds():
            # The hard level's wall clock; no simulation cap (0) unless --iterations sets one.
            kind, budget = name, Budget(0, settings.level("hard").budget.seconds)
        else:
            kinds = ", ".join((*BOT_KINDS, *openspiel_kinds()))
            raise SystemExit(f"unknown bot {name!r}: use a level ({', '.join(AI_LEVELS)}) or {kinds}")
        budget = Budget(iterations if iterations is not None else budget.iterations,
                        seconds if seconds is not None and kind in searchers else budget.seconds)
        out.append(Entrant(name, kind, budget))
    return out


def build_bot(kind: str) -> Bot:
    if kind in openspiel_kinds():
        from .openspiel.bots import OpenSpielBot

        return OpenSpielBot(kind)
    return make_bot(kind)


def ranks_of(scores: list[int]) -> list[int]:
    """Each seat's place at the table: 1 + the number of seats that scored more (RULES 8: no ties)."""
    return [1 + sum(other > own for other in scores) for own in scores]


def seating(field_: list[Entrant], players: int, game: int) -> list[int]:
    """Entrant index per seat: rotate who starts so every entrant gets every seat equally often."""
    return [(game + seat) % len(field_) for seat in range(players)]


def _play(job: tuple[list[Entrant], int, int, int, str, bool]) -> tuple[int, list[int], GameResult, list[list[int]]]:
    field_, players, game, seed, edition, master = job
    seats = seating(field_, players, game)
    bots = [build_bot(field_[i].kind) for i in seats]
    budgets = [field_[i].budget for i in seats]
    result = play_game(bots, budgets, seed, edition=edition, master=master)
    # Simulations per search of OpenSpiel's bots (they count them; ours report iterations elsewhere).
    simulations = [list(getattr(bot, "simulations", [])) for bot in bots]
    return game, seats, result, simulations


def run(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    field_ = entrants(args.bots.split(","), settings, args.seconds, args.iterations)
    if len({e.name for e in field_}) != len(field_):
        raise SystemExit("give each bot once (seats rotate among them)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(field_, args.players, g, args.seed + g, args.edition, args.master) for g in range(args.games)]
    tallies = {e.name: Tally() for e in field_}
    rows: list[list[object]] = []
    started = time.perf_counter()
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    # Each finished game is appended to games-partial.csv at once, so a long run stopped early keeps its games.
    with open(out / "games-partial.csv", "w", newline="") as partial_file:
        partial = csv.writer(partial_file)
        partial.writerow(GAMES_HEADER)
    from tqdm import tqdm  # the tournament extra: a developer's tool, not in the services' image

    with ctx.Pool(args.workers) as pool, tqdm(total=len(jobs), desc=" vs ".join(e.name for e in field_),
                                              unit="game") as bar:
        for game, seats, result, simulations in pool.imap_unordered(_play, jobs):
            places = ranks_of(result.scores)
            for seat, index in enumerate(seats):
                tally = tallies[field_[index].name]
                tally.simulations.extend(simulations[seat])
                tally.games += 1
                tally.wins += result.winner == seat
                tally.ranks.append(places[seat])
                tally.scores.append(result.scores[seat])
                tally.searches.extend(result.latencies[seat])
                tally.decisions += len(result.all_latencies[seat])
                tally.decide_seconds += sum(result.all_latencies[seat]) / 1000
            rows.append([game, args.seed + game, ";".join(field_[i].name for i in seats),
                         ";".join(map(str, result.scores)), field_[seats[result.winner]].name,
                         result.decisions, round(result.seconds, 3)])
            with open(out / "games-partial.csv", "a", newline="") as partial_file:
                csv.writer(partial_file).writerow(rows[-1])
            bar.update()
    elapsed = time.perf_counter() - started
    summary = summarise(field_, tallies, args.players)
    write_outputs(out, rows, summary, args)
    print_report(summary, args, elapsed)
    return 0


def summarise(field_: list[Entrant], tallies: dict[str, Tally], players: int) -> list[dict[str, object]]:
    out = []
    for e in field_:
        t = tallies[e.name]
        low, high = wilson(t.wins, t.games)
        out.append({
            "bot": e.name, "kind": e.kind, "budget_s": e.budget.seconds, "iterations": e.budget.iterations,
            "games": t.games, "wins": t.wins, "win_rate": t.wins / t.games if t.games else 0.0,
            "ci_low": low, "ci_high": high,
            **{f"rank_{place}": t.ranks.count(place) for place in range(1, players + 1)},
            "avg_rank": statistics.fmean(t.ranks) if t.ranks else 0.0,
            "avg_score": statistics.fmean(t.scores) if t.scores else 0.0,
            "searches": len(t.searches), "search_p50_ms": percentile(t.searches, 0.5),
            "search_p95_ms": percentile(t.searches, 0.95), "search_max_ms": max(t.searches, default=0.0),
            "decisions": t.decisions,
            "simulations_p50": percentile([float(n) for n in t.simulations], 0.5),
            "decisions_per_min": 60 * t.decisions / t.decide_seconds if t.decide_seconds else 0.0,
        })
    return out


def write_outputs(out: Path, rows: list[list[object]], summary: list[dict[str, object]],
                  args: argparse.Namespace) -> None:
    with open(out / "games.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(GAMES_HEADER)
        writer.writerows(sorted(rows, key=lambda r: int(r[0])))  # type: ignore[arg-type]
    with open(out / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(summary[0]))
        writer.writeheader()
        writer.writerows(summary)
    chart(out / "winrates.png", summary, args)


def chart(path: Path, summary: list[dict[str, object]], args: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [str(s["bot"]) for s in summary]
    rates = [float(s["win_rate"]) for s in summary]  # type: ignore[arg-type]
    errors = [[r - float(s["ci_low"]) for r, s in zip(rates, summary, strict=True)],  # type: ignore[arg-type]
              [float(s["ci_high"]) - r for r, s in zip(rates, summary, strict=True)]]  # type: ignore[arg-type]
    panels = 3 if args.players > 2 else 2
    fig, axes = plt.subplots(1, panels, figsize=(4.5 * panels, 4))
    left, right = axes[0], axes[-1]
    left.bar(names, rates, yerr=errors, capsize=6, color="#4c72b0")
    left.set_ylim(0, 1)
    left.set_ylabel("win rate (95 % Wilson CI)")
    left.axhline(1 / args.players, color="grey", linestyle=":", linewidth=1)
    if panels == 3:  # rank distribution: share of games each bot finished 1st, 2nd, ...
        middle = axes[1]
        bottom = [0.0] * len(summary)
        for place in range(1, args.players + 1):
            shares = [int(s[f"rank_{place}"]) / max(1, int(s["games"])) for s in summary]  # type: ignore[call-overload]
            middle.bar(names, shares, bottom=bottom, label=f"{place}.")
            bottom = [b + v for b, v in zip(bottom, shares, strict=True)]
        middle.set_ylim(0, 1)
        middle.set_ylabel("share of games by place")
        middle.legend(fontsize="small")
    right.bar(names, [float(s["avg_score"]) for s in summary], color="#dd8452")  # type: ignore[arg-type]
    right.set_ylabel("average score")
    fig.suptitle(f"{' vs '.join(names)}: {args.games} games, {args.players} players, {args.edition}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def print_report(summary: list[dict[str, object]], args: argparse.Namespace, elapsed: float) -> None:
    print(f"\n{args.games} games, {args.players} players, edition {args.edition}{' master' if args.master else ''},"
          f" {args.workers} worker processes, {elapsed:.0f} s")
    print(f"{'bot':<12}{'kind':<12}{'budget':>8}{'wins':>10}{'win rate':>10}{'95% CI':>16}{'avg score':>11}"
          f"{'search p50/p95/max ms':>24}{'decisions/min':>15}")
    for s in summary:
        f = {k: float(v) for k, v in s.items() if isinstance(v, int | float)}
        ci = f"[{f['ci_low']:.1%}, {f['ci_high']:.1%}]"
        latency = f"{f['search_p50_ms']:.0f}/{f['search_p95_ms']:.0f}/{f['search_max_ms']:.0f}"
        print(f"{s['bot']!s:<12}{s['kind']!s:<12}{s['budget_s']!s:>8}{s['wins']!s:>5}/{s['games']!s:<4}"
              f"{f['win_rate']:>10.1%}{ci:>16}{f['avg_score']:>11.1f}{latency:>24}{f['decisions_per_min']:>15.0f}")
    for s in summary:
        if float(s["simulations_p50"]):  # type: ignore[arg-type]
            print(f"{s['bot']}: median {float(s['simulations_p50']):.0f} simulations per search")  # type: ignore[arg-type]
    if args.players > 2:
        print("places (games finished 1st / 2nd / ...), average place:")
        for s in summary:
            places = " / ".join(str(s[f"rank_{p}"]) for p in range(1, args.players + 1))
            print(f"  {s['bot']!s:<12}{places:>24}{float(s['avg_rank']):>8.2f}")  # type: ignore[arg-type]
    print(f"outputs: {Path(args.out) / 'games.csv'}, {Path(args.out) / 'summary.csv'}, "
          f"{Path(args.out) / 'winrates.png'}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m torres_ai.tournament", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", required=True, help="comma-separated levels or kinds, e.g. hard,greedy")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--edition", default="rio_grande")
    parser.add_argument("--master", action="store_true")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=None,
                        help="override the wall-clock budget of the searching bots (mcts, ismcts, os-mcts)")
    parser.add_argument("--iterations", type=int, default=None, help="override the iteration budget")
    parser.add_argument("--out", default="tournament-out")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return run(parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())

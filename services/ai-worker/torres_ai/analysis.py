"""Post-game analysis: where a finished game was won and lost, turn by turn, and a better turn where one was found.

Pure (no Celery, no database): :func:`analyse_events` takes a finished game's log and its revealed seed and returns
the analysis as JSON-ready data; the Celery task and the in-process driver only read the log and store the result.

What it computes, per turn (a seat's run of actions from the first of its turn to its ``end_turn``):

* **The curve**: every seat's expected final score share before and after the turn. The game is over, so the curve
  may look at the full record (every hand and deck order). ``quick`` reads it off the static evaluation (each seat's
  projected worth: score, the board as if scored now, cards, reserve; ``bots/evaluation.py``); ``deep`` plays the
  rest of the game out several times from the full position with the rollout policy of the ``hard`` bot (a narrow
  greedy turn plan per seat, a little noise) and averages the final scores, which also gives a win probability.
* **A better turn**: the search of a bot level, run on the mover's *view* at the start of the turn and nothing
  else: :func:`better_turn` takes a view, exactly as a bot does, so it cannot use what the seat did not know then
  (the other hands, any deck order). ``quick`` is the ``medium`` level's beam search (greedy), ``deep`` the ``hard``
  level's Monte-Carlo search over turn plans, both iteration-bound so that the result is a function of the view
  and the seed. The deep search is root-parallel: several independent searches of the same candidate turns, of a
  few iterations each, their visits and values summed (one long search made of short ones, each a unit of work).
* **What the turn lost**: the played turn and the suggestion are both applied to the true position and compared
  after the other seats' answers (the same deterministic reply policy for both, up to the mover's next turn), by
  the margin over the best opponent. A suggestion that stops at a card draw (a plan cannot see past one) is
  continued there by the mover's own policy with the card actually drawn: that is measurement, done on the full
  record like the curve, not part of the advice. Turns whose loss is largest are marked, each with the better turn.
* **Phase scorings**, explained by the engine's own breakdown (``tr.scored_between``), as the replay shows them.

The work is a list of units of a fraction of a second each (a playout, a turn's candidates, one part of its
search, the choice and comparison), computed in slices (see below). Every random choice is seeded from (game id,
turn or version, purpose, :data:`ENGINE_VERSION`), so an analysis is deterministic for a given engine version,
however it is sliced, and a better engine gets a new version (a new analysis beside the old one, never over it).
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import torres_rules as tr
from torres_online import events as ev
from torres_online import lifecycle as lc

from .bots import Budget
from .bots.base import View
from .bots.determinize import sample_state
from .bots.evaluation import projections
from .bots.mcts import MctsBot, best_arm
from .bots.planner import finish, plan_turn

#: Bumped whenever the analysis would compute something else from the same log (a new search, new weights): stored
#: analyses are keyed by it, so a better engine adds analyses and never silently rewrites old ones.
ENGINE_VERSION = "2"

Action = dict[str, Any]


@dataclass(frozen=True)
class Depth:
    """How hard the analysis looks: which search proposes a better turn, and how the curve is estimated."""

    name: str
    search: str  # "greedy" (the medium level's beam) or "mcts" (the hard level's search)
    iterations: int  # mcts iterations per turn (greedy: unused), in ``parts`` searches of equal size
    parts: int  # mcts: independent searches per turn, each its own unit of work (greedy: 0, nothing to search)
    rollouts: int  # curve: playouts per point (0: the static evaluation)
    marked: int  # how many turns (at most) are marked as the ones that lost the most


DEPTHS: dict[str, Depth] = {
    "quick": Depth("quick", "greedy", iterations=1, parts=0, rollouts=0, marked=5),
    # 10 searches of 20 iterations: a part of the slowest turns measured lasts about as long as a hard AI turn, most
    # a tenth of it (docs/ai.md); fewer, longer parts let a human's turn wait longer, more cost CPU (each part tries
    # every candidate first, the bad ones too).
    "deep": Depth("deep", "mcts", iterations=200, parts=10, rollouts=4, marked=8),
}
#: A loss smaller than this (points of margin over the best opponent) is noise of the evaluation, not a mistake.
MIN_LOSS = 1.0
ROLLOUT_NOISE = 1.0  # the deep curve's playouts: jitter (points) that makes the playouts differ
_NO_DEADLINE = 1e9  # iteration budgets only: wall clock must not change a deterministic result


@dataclass(frozen=True)
class Step:
    """One action of the effective game (undone actions removed): who played it, and the states around it."""

    version: int
    seat: int
    action: Action
    before: tr.State
    after: tr.State
    auto: str | None = None


def effective_steps(events: Iterable[lc.LoggedEvent], seed: int) -> list[Step]:
    """The actions that stand in a log, folded with the online rules (an undone action is dropped)."""
    state: tr.State | None = None
    life: lc.Lifecycle | None = None
    steps: list[Step] = []
    for event in events:
        before = state
        state, life = lc.step(state, life, event.type, event.payload, event.version, event.created_at,
                              lambda created: ev.initial_state(created, seed))
        if event.type == ev.ACTION_APPLIED and before is not None:
            steps.append(Step(event.version, event.payload["seat"], event.payload["action"], before, state,
                              event.payload.get("auto")))
        elif event.type == ev.ACTION_UNDONE:
            steps.pop()
    return steps


def turns_of(steps: Sequence[Step]) -> list[list[Step]]:
    """The seats' turns (``turn`` and ``keep_card`` stages), each from its first action to its ``end_turn``; setup
    placements and king moves are no turn (they stay in the curve, between the turns' points)."""
    out: list[list[Step]] = []
    current: list[Step] = []
    for step in steps:
        if step.before.stage not in ("turn", "keep_card"):
            continue
        key = (step.seat, step.before.phase, step.before.round)
        if current and (key != (current[0].seat, current[0].before.phase, current[0].before.round)
                        or current[-1].action["type"] == "end_turn"):
            out.append(current)
            current = []
        current.append(step)
    if current:
        out.append(current)
    return out


def seed_for(game_id: str, at: int, purpose: str) -> int:
    """The seed of one random choice of the analysis: (game, turn or version, purpose, engine version), nothing
    else."""
    digest = hashlib.blake2b(f"{ENGINE_VERSION}:{game_id}:{at}:{purpose}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


# -- the better turn: the seat's view only ------------------------------------------------------------------


def better_turn(view: View, rng: random.Random, depth: Depth) -> list[Action]:
    """The turn the depth's search would play from ``view`` (the mover's view at the start of its turn), as wire
    actions; it ends with ``end_turn`` or right after ``buy_card`` (what follows depends on the card drawn).

    Like a bot's ``decide`` it is given a view, never a State: it cannot use another seat's hand or a deck order,
    because it never has them. Its three steps, each given the view and nothing else, are the analysis's units
    (:meth:`Game.compute`): the candidates, each part of the search, the choice; this is them in one call."""
    candidates = candidate_turns(view, rng, depth)
    parts = [search_part(view, candidates, part, depth) for part in range(depth.parts)]
    return chosen_turn(view, candidates, parts)


def candidate_turns(view: View, rng: random.Random, depth: Depth) -> dict[str, Any]:
    """The turns the search weighs (action codes), from a state sampled from the view
    (``determinize.sample_state``), and the seed of each part of the search (drawn here, so that the whole search
    is a function of the view and ``rng``'s seed). ``greedy``: the beam's best turn alone, nothing to search."""
    seat: int = view["seat"]
    state = sample_state(view, rng)
    if depth.search == "mcts":
        arms = _SEARCH.arms(view, state, rng, Budget(iterations=depth.iterations, seconds=_NO_DEADLINE))
    else:
        arms = [finish(plan_turn(state, seat, rng, width=3, max_expansions=60)[0], rng, seat=seat)]
    return {"arms": arms, "seeds": [rng.getrandbits(64) for _ in range(depth.parts)]}


def search_part(view: View, candidates: dict[str, Any], part: int, depth: Depth) -> dict[str, list[Any]]:
    """One of the ``depth.parts`` independent searches (UCB1 over the candidates, ``iterations / parts`` simulations
    on states sampled from the view): each candidate's visits and summed value."""
    arms: list[list[int]] = candidates["arms"]
    if len(arms) < 2:
        return {"visits": [0] * len(arms), "totals": [0.0] * len(arms)}
    rng = random.Random(candidates["seeds"][part])
    visits, totals = _SEARCH.search(view, arms, rng, depth.iterations // depth.parts,
                                    time.perf_counter() + _NO_DEADLINE)
    return {"visits": visits, "totals": totals}


def chosen_turn(view: View, candidates: dict[str, Any], parts: Sequence[dict[str, list[Any]]]) -> list[Action]:
    """The candidate with the best mean value over every part's simulations summed (the root-parallel
    combination), as wire actions; the only candidate when there was nothing to search."""
    arms: list[list[int]] = candidates["arms"]
    visits = [sum(p["visits"][i] for p in parts) for i in range(len(arms))]
    totals = [sum(p["totals"][i] for p in parts) for i in range(len(arms))]
    # Decoding reads only what every sample shares (the mover's stacks), so any sample of the view serves.
    state = sample_state(view, random.Random(0))
    actions: list[Action] = []
    for code in arms[best_arm(visits, totals)] if arms else []:
        actions.append(tr.decode(state, code))
        state = tr.apply_code(state, code)
    return actions


_SEARCH = MctsBot()  # the hard level's search: its candidates and its bandit


# -- measuring on the full record ---------------------------------------------------------------------------


def margin(state: tr.State, seat: int) -> float:
    """The seat's projected worth minus the best opponent's (the final scores once the game is over)."""
    values = projections(state)
    return values[seat] - max(v for s, v in enumerate(values) if s != seat)


_POLICY = MctsBot()  # its rollout step is the reply policy: a narrow greedy turn plan, one-ply elsewhere


def finish_own_turn(state: tr.State, seat: int, rng: random.Random) -> tr.State:
    """The rest of ``seat``'s turn by its own policy (after a suggested plan stopped at a draw)."""
    guard = 0
    while (state.stage in ("turn", "keep_card") and state.to_move == seat and guard < 16):
        state = _POLICY.rollout_step(state, rng)
        guard += 1
    return state


def outcome(state: tr.State, seat: int, rng: random.Random) -> float:
    """The margin of ``seat`` once every other seat has answered (until the seat's next turn, or the end)."""
    reached = _POLICY.until_turn_of(state, seat, rng, None)
    assert reached is not None  # no deadline
    return margin(reached, seat)


def shares(state: tr.State) -> list[float]:
    """Static estimate of each seat's final score share: its projected worth over the total (negative as 0)."""
    values = [max(0.0, v) for v in projections(state)]
    total = sum(values)
    return [round(v / total, 4) if total else round(1 / len(values), 4) for v in values]


def playout(state: tr.State, rng: random.Random) -> tuple[list[float], int]:
    """Deep curve: one playout to the end with the noisy reply policy; the final score shares and the winner."""
    end = state
    guard = 0
    while end.stage != "over" and guard < 400:
        end = _NOISY.rollout_step(end, rng)
        guard += 1
    total = sum(end.scores) or 1
    return [s / total for s in end.scores], max(range(end.players), key=lambda s: end.scores[s])


_NOISY = MctsBot(rollout_noise=ROLLOUT_NOISE)


@dataclass(frozen=True)
class _Point:
    share: list[float]
    win: list[float] | None


def _final(state: tr.State, depth: Depth) -> _Point:
    total = sum(state.scores) or 1
    best = max(range(state.players), key=lambda s: state.scores[s])
    return _Point([round(s / total, 4) for s in state.scores],
                  [1.0 if s == best else 0.0 for s in range(state.players)] if depth.rollouts else None)


def _wire(actions: Sequence[Action]) -> list[dict[str, Any]]:
    return [{"action": a, "text": tr.action_text(a)} for a in actions]


# -- the work, in units ------------------------------------------------------------------------------------
#
# An analysis is a list of units of work, each a fraction of a second of CPU: one playout of one curve point
# (deep); per turn, its candidate turns, each part of its search (deep) and the choice with the comparison; one
# playout of a marked turn's better position (deep). Their results
# are kept in order (the ``progress`` of a pending analysis), so a slice of work on a worker computes the next
# units until its CPU budget is spent and stops between two units: a human's AI turn waits at most for one unit.
# Each unit is seeded by what it computes (game, version or turn, purpose, engine version), so the results do not
# depend on where the slices fell.

Unit = tuple[str, int, int]  # (kind, version or turn, playout number)


@dataclass
class Game:
    """A finished game as the units need it: its turns, and the true position at every turn boundary."""

    game_id: str
    depth: Depth
    steps: Sequence[Step]
    turns: list[list[Step]]

    def state_at(self, version: int) -> tr.State:
        for turn in self.turns:
            if turn[0].version - 1 == version:
                return turn[0].before
            if turn[-1].version == version:
                return turn[-1].after
        raise KeyError(version)

    def searched(self, index: int) -> bool:
        """Whether the turn gets a better turn: its mover chose it (not the clock), from the start of a turn."""
        first = self.turns[index][0]
        return first.auto is None and first.before.stage == "turn" and first.before.to_move == first.seat

    def start_view(self, index: int) -> View:
        """What the turn's mover saw at its start: all that the search of a better turn is given."""
        first = self.turns[index][0]
        return tr.view(first.before, first.seat)

    def boundaries(self) -> list[int]:
        """The versions of the curve's points, in order, each once."""
        return list(dict.fromkeys(v for t in self.turns for v in (t[0].version - 1, t[-1].version)))

    def plan(self, done: dict[Unit, Any]) -> list[Unit]:
        """Every unit, in the order they are computed: the turns (each after its curve points' playouts, and its
        search in parts), then the playouts of the marked turns' better positions, known once every turn is."""
        units: list[Unit] = []
        planned: set[int] = set()
        for index, turn in enumerate(self.turns):
            for version in (turn[0].version - 1, turn[-1].version):
                if version not in planned and self.depth.rollouts and self.state_at(version).stage != "over":
                    units += [("playout", version, k) for k in range(self.depth.rollouts)]
                planned.add(version)
            if self.searched(index):
                units.append(("candidates", index, 0))
                units += [("search", index, part) for part in range(self.depth.parts)]
            units.append(("turn", index, 0))
        if self.depth.rollouts and all(u in done for u in units):
            for index in marked_turns([done[("turn", i, 0)] for i in range(len(self.turns))], self.depth):
                better = done[("turn", index, 0)]["better"]
                if better is not None and not better["over"]:
                    units += [("better", index, k) for k in range(self.depth.rollouts)]
        return units

    def compute(self, unit: Unit, done: dict[Unit, Any]) -> Any:
        kind, at, k = unit
        if kind == "playout":
            share, winner = playout(self.state_at(at), random.Random(seed_for(self.game_id, at, f"playout:{k}")))
            return {"share": share, "winner": winner}
        if kind == "better":
            suggestion = [a["action"] for a in done[("turn", at, 0)]["better"]["actions"]]
            turn = self.turns[at]
            alt = _apply_better(turn[0].before, turn[0].seat, suggestion, self.game_id, at)
            share, winner = playout(alt, random.Random(seed_for(self.game_id, at, f"better:{k}")))
            return {"share": share, "winner": winner}
        # The search's steps by the module's names, looked up at call time, so that a test can watch what they are
        # given (the view, nothing else).
        if kind == "candidates":
            return candidate_turns(self.start_view(at), random.Random(seed_for(self.game_id, at, "search")),
                                   self.depth)
        if kind == "search":
            return search_part(self.start_view(at), done[("candidates", at, 0)], k, self.depth)
        suggestion = None
        if self.searched(at):
            suggestion = chosen_turn(self.start_view(at), done[("candidates", at, 0)],
                                     [done[("search", at, part)] for part in range(self.depth.parts)])
        return analyse_turn(self.turns, at, self.game_id, suggestion)


def _apply_better(start: tr.State, seat: int, suggestion: list[Action], game_id: str, index: int) -> tr.State:
    alt = start
    for action in suggestion:
        alt = tr.apply(alt, action)  # legal: the legal set depends only on what the seat sees
    return finish_own_turn(alt, seat, random.Random(seed_for(game_id, index, "finish")))


def analyse_turn(turns: Sequence[Sequence[Step]], index: int, game_id: str, suggestion: list[Action] | None
                 ) -> dict[str, Any]:
    """One turn's last unit: the played turn, and (if the search's ``suggestion`` differs from it) the better turn
    and what the turn lost. The curve's figures are added by :func:`summarise` from the playouts (deep) or the
    static evaluation (quick)."""
    turn = turns[index]
    first, last = turn[0], turn[-1]
    seat = first.seat
    start, end = first.before, last.after
    entry: dict[str, Any] = {
        "turn": index, "seat": seat, "phase": start.phase, "round": start.round,
        "from_version": first.version - 1, "to_version": last.version,
        "actions": _wire([s.action for s in turn]), "loss": 0.0, "better": None,
    }
    played = [s.action for s in turn]
    if suggestion and suggestion != played[: len(suggestion)]:
        entry.update(_compare(start, end, seat, suggestion, game_id, index))
    return entry


def marked_turns(entries: Sequence[dict[str, Any]], depth: Depth) -> list[int]:
    """The turns that lost the most (at least :data:`MIN_LOSS`), worst first, at most ``depth.marked``."""
    ranked = sorted((t for t in entries if t["loss"] >= MIN_LOSS), key=lambda t: (-t["loss"], t["turn"]))
    return [t["turn"] for t in ranked[: depth.marked]]


def _compare(start: tr.State, played_end: tr.State, seat: int, suggestion: list[Action], game_id: str,
             index: int) -> dict[str, Any]:
    """The played turn against the suggestion, both on the true position, replies by the same policy."""
    alt = start
    boards = []  # what a replay shows while it plays the better turn out: the position after each action
    for action in suggestion:
        alt = tr.apply(alt, action)  # legal: the legal set depends only on what the seat sees
        boards.append({"position": tr.to_position(alt), "castles": tr.castles_of(alt)})
    alt = finish_own_turn(alt, seat, random.Random(seed_for(game_id, index, "finish")))
    played_value = outcome(played_end, seat, random.Random(seed_for(game_id, index, "reply")))
    alt_value = outcome(alt, seat, random.Random(seed_for(game_id, index, "reply")))
    loss = round(alt_value - played_value, 2)
    if loss <= 0:
        return {"loss": 0.0}
    return {"loss": loss, "better": {
        "actions": _wire(suggestion),
        "continues_after_draw": suggestion[-1]["type"] == "buy_card",
        "margin_played": round(played_value, 2), "margin_better": round(alt_value, 2),
        "score_after": list(alt.scores), "over": alt.stage == "over",
        "static_share_after": shares(alt),
        "boards": boards,
    }}


def _mean(samples: list[dict[str, Any]], players: int) -> _Point:
    share = [round(sum(x["share"][s] for x in samples) / len(samples), 4) for s in range(players)]
    win = [round(sum(1 for x in samples if x["winner"] == s) / len(samples), 4) for s in range(players)]
    return _Point(share, win)


def summarise(game: Game, done: dict[Unit, Any]) -> dict[str, Any]:
    """The whole analysis from every unit's result: the curve, the marked turns and the phase scorings."""
    depth = game.depth
    players = game.steps[-1].after.players if game.steps else 0

    def point(version: int) -> _Point:
        state = game.state_at(version)
        if state.stage == "over":
            return _final(state, depth)
        if depth.rollouts:
            return _mean([done[("playout", version, k)] for k in range(depth.rollouts)], players)
        return _Point(shares(state), None)

    entries = [done[("turn", i, 0)] for i in range(len(game.turns))]
    marked = marked_turns(entries, depth)
    turns = []
    for entry in entries:
        before, after = point(entry["from_version"]), point(entry["to_version"])
        better = entry["better"] if entry["turn"] in marked else None
        if better is not None:
            extra = {k: v for k, v in better.items() if k not in ("over", "static_share_after")}
            if better["over"] or not depth.rollouts:
                alt = (_Point(better["static_share_after"], None) if not better["over"] else
                       _Point([round(s / (sum(better["score_after"]) or 1), 4) for s in better["score_after"]], None))
                better = {**extra, "share_after": alt.share, "win_after": alt.win}
            else:
                alt = _mean([done[("better", entry["turn"], k)] for k in range(depth.rollouts)], players)
                better = {**extra, "share_after": alt.share, "win_after": alt.win}
        turns.append({**{k: v for k, v in entry.items() if k != "better"},
                      "share_before": before.share, "share_after": after.share,
                      "win_before": before.win, "win_after": after.win, "better": better})
    scorings = []
    for step in game.steps:
        breakdown = tr.scored_between(step.before, step.after)
        if breakdown is not None:
            scorings.append({"version": step.version, **breakdown})
    final = game.steps[-1].after if game.steps else None
    return {
        "engine_version": ENGINE_VERSION,
        "depth": depth.name,
        "players": players,
        "final_scores": list(final.scores) if final else [],
        "turns": turns,
        "marked": marked,
        "scorings": scorings,
    }


def run(game: Game, progress: list[dict[str, Any]], cpu_budget: float | None
        ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Compute the units after those in ``progress`` (each ``{"unit": [kind, at, k], "result": ...}``) until
    ``cpu_budget`` seconds of CPU are spent (None: all of them; at least one unit); the progress so far and, once
    every unit is done, the analysis."""
    results = list(progress)
    done: dict[Unit, Any] = {(r["unit"][0], r["unit"][1], r["unit"][2]): r["result"] for r in results}
    started = time.process_time()
    while True:
        # The plan grows only once every unit planned so far is done (the marked turns' playouts): planned again then.
        todo = [u for u in game.plan(done) if u not in done]
        if not todo:
            return results, summarise(game, done)
        for unit in todo:
            if (cpu_budget is not None and len(results) > len(progress)
                    and time.process_time() - started >= cpu_budget):
                return results, None
            done[unit] = result = game.compute(unit, done)
            results.append({"unit": list(unit), "result": result})


def analyse_steps(steps: Sequence[Step], game_id: str, depth: Depth) -> dict[str, Any]:
    """The analysis of a finished game's effective actions (:func:`effective_steps`), in one go."""
    _, result = run(Game(game_id, depth, steps, turns_of(steps)), [], None)
    assert result is not None
    return result


def analyse_events(events: Iterable[lc.LoggedEvent], seed: int, game_id: str, depth: str) -> dict[str, Any]:
    """The analysis of a finished game from its log and revealed seed, at ``depth`` (``quick`` or ``deep``)."""
    return analyse_steps(effective_steps(events, seed), game_id, DEPTHS[depth])


class Engine:
    """The analysis as the game service's plug-in (entry point ``engine`` of ``torres_game.analysis``): the service
    names no module of this package; it finds this object, asks its version and depths, and advances analyses in
    slices of bounded CPU time (:func:`torres_game.analyses.advance`), so that no slice holds a worker long."""

    version: ClassVar[str] = ENGINE_VERSION
    #: What each depth runs and costs; the figures are ``bench/analysis_bench.py``'s (docs/ai.md, "Post-game
    #: analysis"), stated to callers in every analysis answer.
    depths: ClassVar[dict[str, str]] = {
        "quick": "the medium level's beam search per turn, the curve from the static evaluation: 0.5-1.2 s of CPU "
                 "per game (2-4 players)",
        "deep": "the hard level's Monte-Carlo search (200 iterations, in 10 parts) per turn, the curve from 4 "
                "playouts per point: 20-100 s of CPU per game (2-4 players)",
    }

    def advance(self, events: Sequence[lc.LoggedEvent], seed: int, game_id: str, depth: str,
                progress: list[dict[str, Any]], cpu_budget: float
                ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """Compute the next units of work until ``cpu_budget`` seconds of CPU are spent (at least one unit); returns
        the progress so far and, once every unit is done, the whole analysis."""
        steps = effective_steps(events, seed)
        return run(Game(game_id, DEPTHS[depth], steps, turns_of(steps)), progress, cpu_budget)

    @staticmethod
    def turns_done(progress: list[dict[str, Any]]) -> int:
        """How many turns a pending analysis has analysed so far (its other units are curve playouts)."""
        return sum(1 for r in progress if r["unit"][0] == "turn")


ENGINE = Engine()

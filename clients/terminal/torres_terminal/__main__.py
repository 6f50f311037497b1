"""Play Torres in a terminal against random-move opponents.

Type the number of a listed action, or an action as JSON (any legal variant, e.g. a different spread:
{"type": "end_turn", "stack": 0, "spread": [1, 0, 0]}). "board" redraws, "help" explains, "quit" leaves.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable

import torres_rules as tr

HELP = __doc__ or ""


def render(state: tr.State, seat: int) -> str:
    view = tr.view(state, seat)
    lines = [tr.board_text(state), "", tr.status_text(state)]
    if view["hand"] is not None:
        lines.append(f"your hand: {', '.join(view['hand']) or '-'}")
    if view["seen"]:
        lines.append(f"you look at: {', '.join(view['seen'])}")
    return "\n".join(lines)


def columns(items: list[str], per_row: int = 4) -> str:
    width = max(map(len, items)) + 2
    rows = [items[i : i + per_row] for i in range(0, len(items), per_row)]
    return "\n".join("  " + "".join(item.ljust(width) for item in row).rstrip() for row in rows)


def choose(legal: list[dict], reply: str) -> dict | str:
    """The action a reply names, or a message saying why it names none."""
    reply = reply.strip()
    if reply.isdigit():
        index = int(reply)
        if 1 <= index <= len(legal):
            return legal[index - 1]
        return f"pick a number from 1 to {len(legal)}"
    if reply.startswith("{"):
        try:
            action = json.loads(reply)
        except json.JSONDecodeError as e:
            return f"that is not valid JSON: {e.msg}"
        if not isinstance(action, dict):
            return "an action is a JSON object with a \"type\""
        return action
    return "type a number, a JSON action, 'board', 'help' or 'quit'"


def play(
    players: int, edition: str, master: bool, seed: int, seat: int,
    ask: Callable[[str], str] = input, say: Callable[[str], None] = print,
) -> tr.State:
    """One game; the human holds `seat`, every other seat plays uniformly random legal actions."""
    state = tr.new_game(players, seed=seed, edition=edition, master=master)
    bots = random.Random(seed)
    say(f"Torres, {players} players, {edition}{' master version' if master else ''}. You are seat {seat} "
        f"({tr.render.SEAT_MARKS[seat]} on the board).")
    shown_for = None
    while not tr.is_over(state):
        legal = tr.legal_actions(state)
        if state.to_move != seat:
            action = bots.choice(legal)
            say(f"  seat {state.to_move} plays {tr.action_text(action)}")
            state = tr.apply(state, action)
            continue
        if shown_for is not state:
            say("\n" + render(state, seat))
            say("your actions:\n" + columns([f"{i}) {tr.action_text(a)}" for i, a in enumerate(legal, 1)]))
            shown_for = state
        reply = ask("your move> ").strip()
        if reply in ("quit", "q", "exit"):
            say("bye")
            return state
        if reply in ("help", "?"):
            say(HELP)
            continue
        if reply == "board":
            shown_for = None
            continue
        chosen = choose(legal, reply)
        if isinstance(chosen, str):
            say(chosen)
            continue
        try:
            state = tr.apply(state, chosen)
        except tr.IllegalAction as e:
            say(f"illegal: {e}")
    say("\n" + tr.board_text(state))
    say(f"game over. scores {tr.scores(state)}; winner: seat {tr.winner(state)}")
    return state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play Torres in a terminal against random-move bots.")
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--edition", default="rio_grande", choices=tr.EDITIONS)
    parser.add_argument("--master", action="store_true", help="the master version")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal (random if omitted)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 moves first")
    args = parser.parse_args(argv)
    if not 0 <= args.seat < args.players:
        parser.error(f"--seat must be 0..{args.players - 1}")
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    try:
        play(args.players, args.edition, args.master, seed, args.seat)
    except (EOFError, KeyboardInterrupt):
        print("\nbye")
    return 0


if __name__ == "__main__":
    sys.exit(main())

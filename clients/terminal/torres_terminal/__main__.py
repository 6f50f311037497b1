"""Play Torres in a terminal: against random-move bots in this process, or on a running game service.

Type the number of a listed action, or an action as JSON (any legal variant, e.g. a different spread:
{"type": "end_turn", "stack": 0, "spread": [1, 0, 0]}). "board" redraws, "help" explains, "quit" leaves.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable
from typing import Any

import torres_rules as tr
from torres_terminal.games import Game, LocalGame, RemoteGame

HELP = __doc__ or ""


def render(view: dict[str, Any]) -> str:
    lines = [tr.board_text(view), "", tr.status_text(view)]
    if view.get("hand") is not None:
        lines.append(f"your hand: {', '.join(view['hand']) or '-'}")
    if view.get("seen"):
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


def play(game: Game, ask: Callable[[str], str] = input, say: Callable[[str], None] = print) -> dict[str, Any]:
    """The prompt loop: show the position and the legal actions, read a choice, repeat until the game ends.
    Returns the seat's last view."""
    say(f"You are seat {game.seat} ({tr.render.SEAT_MARKS[game.seat]} on the board). Type 'help' for help.")
    shown = False
    while True:
        game.wait_for_turn(say)
        view = game.view()
        if view["stage"] == "over":
            break
        legal = game.legal_actions()
        if not shown:
            say("\n" + render(view))
            say("your actions:\n" + columns([f"{i}) {tr.action_text(a)}" for i, a in enumerate(legal, 1)]))
            shown = True
        reply = ask("your move> ").strip()
        if reply in ("quit", "q", "exit"):
            say("bye")
            return view
        if reply in ("help", "?"):
            say(HELP)
            continue
        if reply == "board":
            shown = False
            continue
        chosen = choose(legal, reply)
        if isinstance(chosen, str):
            say(chosen)
            continue
        refused = game.submit(chosen)
        if refused:
            say(f"illegal: {refused}")
        else:
            shown = False
    say("\n" + tr.board_text(view))
    winner = max(range(view["players"]), key=lambda s: view["scores"][s])
    say(f"game over. scores {view['scores']}; winner: seat {winner}")
    return view


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play Torres in a terminal.")
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--edition", default="rio_grande", choices=tr.EDITIONS)
    parser.add_argument("--master", action="store_true", help="the master version")
    parser.add_argument("--seed", type=int, default=None, help="seed of a local game's deal (random if omitted)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 moves first")
    parser.add_argument("--server", default=os.environ.get("TORRES_SERVER"),
                        help="play on this game service (e.g. http://127.0.0.1:8000) instead of locally")
    parser.add_argument("--api-key", default=os.environ.get("TORRES_API_KEY", ""),
                        help="the game service's key for creating games (env TORRES_API_KEY)")
    parser.add_argument("--level", default="easy", choices=["easy", "medium", "hard"],
                        help="strength of the service's AI seats")
    args = parser.parse_args(argv)
    if not 0 <= args.seat < args.players:
        parser.error(f"--seat must be 0..{args.players - 1}")
    try:
        game: Game
        if args.server:
            game = RemoteGame(args.server, args.api_key, args.players, args.edition, args.master, args.seat,
                              args.level)
        else:
            seed = args.seed if args.seed is not None else random.randrange(2**31)
            game = LocalGame(args.players, args.edition, args.master, seed, args.seat)
        play(game)
    except (EOFError, KeyboardInterrupt):
        print("\nbye")
    return 0


if __name__ == "__main__":
    sys.exit(main())

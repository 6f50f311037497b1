"""Play Torres in a terminal: against bots in this process, or against the AI seats of a running game service.

The game tells what every seat did, in the words of the web client, and each phase's scoring as it happens.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import torres_rules as tr
from torres_online.lifecycle import AI_LEVELS
from torres_terminal.games import Game, Happening, LocalGame, RemoteGame
from torres_terminal.words import action_words, card_name, move_words, outcome_words, scoring_terms, seat_name, t

MARKS = tr.render.SEAT_MARKS

HELP = """How to play: type the number of one of your actions and press Enter.
Or type an action as JSON: any legal variant of a listed one, e.g. another
spread of the leftover blocks:  {"type": "end_turn", "stack": 0, "spread": [1]}
(in JSON stacks count from 0; the listed actions count them from 1, as the
web client does). "board" shows the board again, "help" this, "quit" leaves.
The rules this game follows: docs/rules.md in the project's repository."""

LEGEND = """How to read the board: columns A-H, rows 1-8; each square shows its height
(. = no block) and its figure: a b c d = knights of seats 0 1 2 3, K = king.
Under it, one line per seat: > marks the seat to move, then its score, its
stacks of blocks (one is used up each turn; [n] = the one in use), its knights
in reserve and its cards in hand."""

LEVELS_HELP = ("strength of the service's AI seats: " + "; ".join(f"{k}: {v}" for k, v in AI_LEVELS.items())
               + " (a local game's bots always play random legal moves)")


def width() -> int:
    """The terminal's width in columns (80 where it cannot tell)."""
    return shutil.get_terminal_size((80, 24)).columns


def wrap(text: str, indent: str = "  ") -> str:
    return textwrap.fill(text, width=max(40, width() - 1), subsequent_indent=indent, break_on_hyphens=False)


def seat_label(game: Game, seat: int) -> str:
    """A seat as the game names it, with its mark on the board: "Seat 1 (b)", "Ada (a, you)"."""
    you = f", {t('seat.you')}" if seat == game.seat else ""
    return f"{seat_name(game.seats, seat)} ({MARKS[seat]}{you})"


def stage_line(view: dict[str, Any], game: Game) -> str:
    stage = view["stage"]
    if stage == "turn" or stage == "keep_card":
        parts = [t(f"stage.{stage}", phase=view["phase"], round=view["round"])]
    elif stage == "move_king":
        parts = [t("stage.move_king", before=view["phase"] - 1, phase=view["phase"])]
    else:  # setup, over
        parts = [t(f"stage.{stage}")]
    if view.get("master_card"):
        parts.append(t("turn.master", card=view["master_card"].replace("_", " ")))
    if stage != "over" and view.get("to_move") is not None:
        mover = view["to_move"]
        parts.append(t("turn.yours") if mover == game.seat else t("turn.other", seat=seat_label(game, mover)))
        if stage == "turn":
            parts.append(t("turn.ap", left=view["ap"] - view["ap_spent"], all=view["ap"]))
    return " · ".join(parts)


def seat_lines(view: dict[str, Any], game: Game) -> list[str]:
    lines = []
    hand_sizes = view.get("hand_sizes") or [0] * view["players"]
    labels = [seat_label(game, seat) for seat in range(view["players"])]
    pad = max(map(len, labels))
    for seat in range(view["players"]):
        stacks = view["stacks"][seat]
        chosen = view.get("stack_chosen") if view.get("to_move") == seat else None
        shown = " ".join(f"[{n}]" if i == chosen else str(n) for i, n in enumerate(stacks)) or t("seat.stacks-none")
        on_board = list(view["knights"].values()).count(seat)
        mark = ">" if seat == view.get("to_move") and view["stage"] != "over" else " "
        lines.append(f"{mark} {labels[seat].ljust(pad)}  {t('seat.score', n=view['scores'][seat]):>9} · "
                     f"{t('seat.stacks', list=shown)} · {t('seat.reserve', n=6 - on_board)} · "
                     f"cards {hand_sizes[seat]}")
    return lines


def render(view: dict[str, Any], game: Game) -> str:
    lines = [tr.board_text(view), "", wrap(stage_line(view, game)), *seat_lines(view, game)]
    if view.get("hand") is not None:
        lines.append(wrap(t("seat.cards") + (", ".join(map(card_name, view["hand"])) or t("seat.no-cards"))))
    if view.get("seen"):
        lines.append(wrap("you look at: " + ", ".join(map(card_name, view["seen"]))))
    return "\n".join(lines)


#: Headings under which several actions of one kind are listed together, each by its square(s) alone.
GROUPS = {
    "place_foundation": "Place a foundation block on",
    "place_start_knight": "Place your first knight on",
    "place_king": "Place the king on",
    "place_knight": "Place a new knight (2 AP) on",
    "move_knight": "Move a knight (1 AP)",
}


def action_list(legal: list[dict[str, Any]], total: int | None = None) -> str:
    """The numbered actions, wrapped to the terminal's width: the actions of a kind that come in numbers (placing,
    moving a knight, building from one stack) on one line under their heading, each by its squares; every other
    action on a line of its own, in the web client's words."""
    total = total or width()
    groups: dict[str, list[str]] = {}
    for number, action in enumerate(legal, 1):
        kind = action["type"]
        if kind in GROUPS:
            heading = GROUPS[kind]
            item = f"{action['from']} → {action['to']}" if kind == "move_knight" else action["at"]
        elif kind == "build":
            stack = f" from stack {action['stack'] + 1}" if action.get("stack") is not None else ""
            heading, item = f"Build a block{stack} (1 AP) on", action["at"]
        elif kind == "play_card" and ("from" in action or "at" in action):
            stack = f" from stack {action['stack'] + 1}" if action.get("stack") is not None else ""
            heading = f"Play {card_name(action['card'])}{stack}" + (" on" if "at" in action else "")
            item = f"{action['from']} → {action['to']}" if "from" in action else action["at"]
        elif kind == "move_king" and action.get("to"):
            heading, item = "Move the king to", action["to"]
        elif kind == "end_turn" and action.get("stack") is not None:  # one per stack height: say which goes
            heading, item = f"#{number}", f"{action_words(action)}, using up stack {action['stack'] + 1}"
        else:  # on a line of its own
            heading, item = f"#{number}", action_words(action)
        groups.setdefault(heading, []).append(f"{number}) {item}")
    lines: list[str] = []
    for heading, items in groups.items():
        if heading.startswith("#"):
            lines += [textwrap.fill(item, width=total - 1, initial_indent="  ", subsequent_indent="      ")
                      for item in items]
            continue
        line = f"  {heading}:"
        for item in items:  # an item is never split
            if len(line) + 3 + len(item) > total - 1 and not line.endswith(":"):
                lines.append(line)
                line = "     "
            line += ("  " if line.endswith(":") else "   ") + item
        lines.append(line)
    return "\n".join(lines)


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


def tell(game: Game, news: list[Happening], say: Callable[[str], None]) -> None:
    """What happened, one sentence per turn of another seat ("Seat 1 (b): builds a block on D4 from stack 1,
    ends the turn."), and every phase scoring, seat by seat."""
    turn: list[str] = []
    mover: int | None = None

    def flush() -> None:
        if turn and mover is not None:
            say(wrap(f"{seat_label(game, mover)}: {', '.join(turn)}."))
        turn.clear()

    for happening in news:
        if happening.seat != mover:
            flush()
            mover = happening.seat
        if happening.action is not None:
            words = move_words(happening.action) + (t("log.auto") if happening.auto else "")
        else:
            words = t(f"log.{happening.event}")
        if happening.seat != game.seat or happening.auto or happening.action is None:
            turn.append(words)  # the reader's own moves are those it just typed
        kind = (happening.action or {}).get("type")
        if kind in ("end_turn", "move_king") or happening.action is None:
            flush()
        if happening.scoring:
            flush()
            say(f"Scoring of phase {happening.scoring['phase']}:")
            for part in happening.scoring["seats"]:
                say(wrap(f"  {seat_label(game, part['seat'])}: {scoring_terms(part, list(happening.castles))}",
                         indent="      "))
    flush()


def play(game: Game, ask: Callable[[str], str] = input, say: Callable[[str], None] = print) -> dict[str, Any]:
    """The prompt loop: show the position and the legal actions, read a choice, repeat until the game ends.
    Returns the seat's last view."""
    say(wrap(f"You are {seat_label(game, game.seat)}; the other seats: {game.opponents}. Type 'help' for help."))
    say(LEGEND)
    shown = False
    while True:
        view = game.view()
        if view["stage"] != "over" and view["to_move"] != game.seat:
            if isinstance(game, RemoteGame):
                say(t("controls.waiting", seat=seat_label(game, view["to_move"])))
            game.wait_for_turn()
            view = game.view()
        tell(game, game.news(), say)
        if view["stage"] == "over":
            break
        legal = game.legal_actions()
        if not shown:
            say("\n" + render(view, game))
            say("your actions (type a number):\n" + action_list(legal))
            shown = True
        reply = ask("your move> ").strip()
        if reply in ("quit", "q", "exit"):
            say("bye")
            return view
        if reply in ("help", "?"):
            say(HELP + "\n" + LEGEND)
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
    say("\n" + render(view, game))
    say(t("final.heading") + ":")
    for seat in sorted(range(view["players"]), key=lambda s: -view["scores"][s]):
        say(f"  {seat_label(game, seat)}: {view['scores'][seat]}")
    say(outcome_words(game.winners(), view["scores"], game.seat, game.seats))
    return view


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Play Torres in a terminal: locally against bots that play random legal moves, or with "
                    "--server against the AI seats of a running game service (their strength: --level).")
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--edition", default="rio_grande", choices=tr.EDITIONS)
    parser.add_argument("--master", action="store_true", help="the master version")
    parser.add_argument("--seed", type=int, default=None, help="seed of a local game's deal (random if omitted)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 moves first")
    parser.add_argument("--server", default=os.environ.get("TORRES_SERVER"),
                        help="play on this game service (e.g. http://127.0.0.1:8000) instead of locally")
    parser.add_argument("--api-key", default=os.environ.get("TORRES_API_KEY", ""),
                        help="the game service's key for creating games (env TORRES_API_KEY)")
    parser.add_argument("--level", default="easy", choices=list(AI_LEVELS), help=LEVELS_HELP)
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

"""Actions, moves, scorings and the result in words: the English of the web client's table (clients/web/js/
strings.js, whose `do.*`, `log.*`, `preview.*` and `outcome.*` strings these are; a test keeps them equal), so
that a game reads the same in a terminal and in a browser. Stacks are numbered from 1, as on the web client's
buttons; seats keep their numbers ("Seat 0"), as the web client names a seat without a display name."""

from __future__ import annotations

from typing import Any

#: The web client's English strings this client uses, under their keys in strings.js.
STRINGS: dict[str, str] = {
    "seat.name": "Seat {n}",
    "seat.you": "you",
    "seat.score": "score {n}",
    "seat.stacks": "stacks {list}",
    "seat.stacks-none": "none",
    "seat.reserve": "knights in reserve {n}",
    "seat.cards": "Cards: ",
    "seat.no-cards": "no cards",
    "stage.setup": "setup",
    "stage.turn": "phase {phase} of 3, round {round}",
    "stage.keep_card": "phase {phase}, round {round}: choosing a card to keep",
    "stage.move_king": "between phases {before} and {phase}: the king may move",
    "stage.over": "game over",
    "turn.master": "master card: {card}",
    "turn.yours": "your turn",
    "turn.other": "{seat} to move",
    "turn.ap": "AP left {left} of {all}",
    "controls.waiting": "Waiting for {seat}…",
    "final.heading": "Final score",
    "do.place_foundation": "Place a foundation block on {at}",
    "do.place_start_knight": "Place your first knight on {at}",
    "do.place_king": "Place the king on {at}",
    "do.place_knight": "Place a new knight on {at} (2 AP)",
    "do.move_knight": "Move the knight {from} → {to} (1 AP)",
    "do.build": "Build a block on {at}{stack} (1 AP)",
    "do.from-stack": " from stack {n}",
    "do.buy_card": "Buy an action card (1 AP)",
    "do.keep_card": "Keep {card}",
    "do.keep_card-rest": "Keep {card}; put {rest} back on the {where}",
    "do.rest.top": "top",
    "do.rest.bottom": "bottom",
    "do.play_card": "Play {card}{target}",
    "do.target-move": " {from} → {to}",
    "do.target-at": " on {at}{stack}",
    "do.advance_track": "Advance one step on the score track (1 AP)",
    "do.end_turn": "End the turn",
    "do.move_king": "Move the king to {to}",
    "do.leave_king": "Leave the king where it is",
    "log.place_foundation": "places a foundation block on {at}",
    "log.place_start_knight": "places a first knight on {at}",
    "log.place_king": "places the king on {at}",
    "log.place_knight": "places a new knight on {at}",
    "log.move_knight": "moves a knight {from} → {to}",
    "log.build": "builds a block on {at}{stack}",
    "log.buy_card": "buys an action card",
    "log.keep_card": "keeps {card}",
    "log.keep_card-hidden": "keeps an action card",
    "log.play_card": "plays {card}{target}",
    "log.advance_track": "advances one step on the score track",
    "log.end_turn": "ends the turn",
    "log.move_king": "moves the king to {to}",
    "log.leave_king": "leaves the king where it is",
    "log.auto": " (automatic: the seat left the game)",
    "log.resigned": "gives up",
    "log.timed_out": "ran out of time",
    "log.abandoned": "The game was ended by its portal",
    "log.action_undone": "takes back a move",
    "preview.castle.one": "castle of {area} square at {at} × level {level} = {points}",
    "preview.castle.other": "castle of {area} squares at {at} × level {level} = {points}",
    "preview.king": "king bonus {points}",
    "preview.master": "master card {points}",
    "preview.collision": "+{points} as no two players share a score",
    "preview.nothing": "no knight in a castle",
    "preview.total": "+{gained} (score {score})",
    "outcome.win-you.one": "You win with {points} point.",
    "outcome.win-you.other": "You win with {points} points.",
    "outcome.win-seat.one": "{name} wins with {points} point.",
    "outcome.win-seat.other": "{name} wins with {points} points.",
    "outcome.tie.one": "A tie for first place between {names} with {points} point each.",
    "outcome.tie.other": "A tie for first place between {names} with {points} points each.",
    "outcome.tie-you": "you",
    "outcome.and": " and ",
    "outcome.none": "No winner.",
    "card.climb_two": "Climb two",
    "card.block_under_knight": "Block under knight",
    "card.extra_block": "Extra block",
    "card.castle_gate": "Castle gate",
    "card.diagonal": "Diagonal",
    "card.six_ap": "Six AP",
    "card.seven_ap": "Seven AP",
    "card.move_block": "Move a block",
    "card.reposition_knight": "Reposition knight",
    "card.jump": "Jump",
}


def t(key: str, **params: Any) -> str:
    """The string ``key`` with its ``{name}`` slots filled in (a slot with no parameter stays as it is)."""
    text = STRINGS[key]
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def counted(key: str, count: int, **params: Any) -> str:
    """The form of ``key`` for ``count`` (English: one, other)."""
    return t(f"{key}.{'one' if count == 1 else 'other'}", **params)


def card_name(card: str) -> str:
    return t(f"card.{card}") if f"card.{card}" in STRINGS else card.replace("_", " ")


def _stack(action: dict[str, Any]) -> str:
    return t("do.from-stack", n=action["stack"] + 1) if action.get("stack") is not None else ""


def _target(action: dict[str, Any]) -> str:
    if "from" in action:
        return t("do.target-move", **{"from": action["from"], "to": action["to"]})
    if "at" in action:
        return t("do.target-at", at=action["at"], stack=_stack(action))
    return ""


def action_words(action: dict[str, Any]) -> str:
    """A legal action as offered to the player: "Build a block on D4 from stack 1 (1 AP)"."""
    kind = action["type"]
    if kind in ("place_foundation", "place_start_knight", "place_king", "place_knight"):
        return t(f"do.{kind}", at=action["at"])
    if kind == "move_knight":
        return t("do.move_knight", **{"from": action["from"], "to": action["to"]})
    if kind == "build":
        return t("do.build", at=action["at"], stack=_stack(action))
    if kind in ("buy_card", "advance_track", "end_turn"):
        return t(f"do.{kind}")
    if kind == "keep_card":
        rest = ", ".join(card_name(c) for c in action.get("order") or [])
        if not rest:
            return t("do.keep_card", card=card_name(action["card"]))
        where = t(f"do.rest.{action['rest']}") if f"do.rest.{action.get('rest')}" in STRINGS else action.get("rest")
        return t("do.keep_card-rest", card=card_name(action["card"]), rest=rest, where=where)
    if kind == "play_card":
        return t("do.play_card", card=card_name(action["card"]), target=_target(action))
    if kind == "move_king":
        return t("do.move_king", to=action["to"]) if action.get("to") else t("do.leave_king")
    return str(kind).replace("_", " ")


def move_words(action: dict[str, Any]) -> str:
    """An applied action as the move log says it: "builds a block on D4 from stack 1". A kept card is named only
    when the action names it (the reader's own)."""
    kind = action["type"]
    if kind in ("place_foundation", "place_start_knight", "place_king", "place_knight"):
        return t(f"log.{kind}", at=action["at"])
    if kind == "move_knight":
        return t("log.move_knight", **{"from": action["from"], "to": action["to"]})
    if kind == "build":
        return t("log.build", at=action["at"], stack=_stack(action))
    if kind in ("buy_card", "advance_track", "end_turn"):
        return t(f"log.{kind}")
    if kind == "keep_card":
        return t("log.keep_card", card=card_name(action["card"])) if action.get("card") else t("log.keep_card-hidden")
    if kind == "play_card":
        return t("log.play_card", card=card_name(action["card"]), target=_target(action))
    if kind == "move_king":
        return t("log.move_king", to=action["to"]) if action.get("to") else t("log.leave_king")
    return str(kind).replace("_", " ")


def seat_name(seats: list[dict[str, Any]] | None, seat: int) -> str:
    """What the web client calls a seat: the name its portal gave it, else "Seat n"."""
    name = (seats[seat].get("display_name") if seats and seat < len(seats) else None) or None
    return name or t("seat.name", n=seat)


def scoring_terms(part: dict[str, Any], castles: list[dict[str, Any]]) -> str:
    """One seat's part of a phase scoring (the engine's breakdown) in words, as the web client says it."""
    terms = []
    for c in part["castles"]:
        squares = castles[c["castle"]]["squares"] if c["castle"] < len(castles) else ["?"]
        terms.append(counted("preview.castle", c["area"], area=c["area"], at=squares[0], level=c["level"],
                             points=c["points"]))
    if part.get("king_bonus"):
        terms.append(t("preview.king", points=part["king_bonus"]))
    if part.get("master_points"):
        terms.append(t("preview.master", points=part["master_points"]))
    if part.get("collision"):
        terms.append(t("preview.collision", points=part["collision"]))
    return ("; ".join(terms) if terms else t("preview.nothing")) + " → " + t(
        "preview.total", gained=part["gained"], score=part["score"])


def outcome_words(winners: list[int], scores: list[int], me: int | None,
                  seats: list[dict[str, Any]] | None = None) -> str:
    """Who won, as the web client's final box says it."""
    if len(winners) == 1:
        seat = winners[0]
        if seat == me:
            return counted("outcome.win-you", scores[seat], points=scores[seat])
        return counted("outcome.win-seat", scores[seat], name=seat_name(seats, seat), points=scores[seat])
    if winners:
        names = t("outcome.and").join(t("outcome.tie-you") if s == me else seat_name(seats, s) for s in winners)
        return counted("outcome.tie", scores[winners[0]], names=names, points=scores[winners[0]])
    return t("outcome.none")

"""The three event types, and the fold that turns a game's log back into a rules ``State``.

Events are facts in the rules package's own vocabulary (wire-form actions), so the log stays
readable and any state can be rebuilt by ``new_game`` followed by ``apply`` per action. The fold
is the only code that interprets events; the API, verify and the snapshots all go through it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import Any

import torres_rules as tr

from .store.base import NewEvent, StoredEvent

GAME_CREATED = "game_created"
ACTION_APPLIED = "action_applied"
GAME_ENDED = "game_ended"

#: Action types whose wire form carries hidden information (RULES.md section 13). Their events get
#: a random salt, so the public hash chain cannot be brute-forced to recover a redacted field.
SECRET_ACTION_TYPES = frozenset({"keep_card"})


def seed_commitment(seed: int) -> str:
    """The public promise made at creation: SHA-256 of the seed's decimal text."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def game_created(
    *, edition: str, master: bool, options: dict[str, Any], seats: list[dict[str, Any]], seed: int
) -> NewEvent:
    return NewEvent(
        GAME_CREATED,
        {
            "edition": edition,
            "master": master,
            "options": options,
            "players": len(seats),
            "seats": seats,
            "seed_commitment": seed_commitment(seed),
        },
    )


def action_applied(seat: int, action: dict[str, Any]) -> NewEvent:
    payload: dict[str, Any] = {"seat": seat, "action": action}
    if action.get("type") in SECRET_ACTION_TYPES:
        payload["salt"] = secrets.token_hex(16)
    return NewEvent(ACTION_APPLIED, payload)


def game_ended(state: tr.State, seed: int) -> NewEvent:
    return NewEvent(GAME_ENDED, {"scores": list(tr.scores(state)), "winner": tr.winner(state), "seed": str(seed)})


def event_text(event_type: str, payload: dict[str, Any]) -> str:
    """The event in words for a move log, from the (possibly redacted) payload the reader gets, so the text
    never says more than the payload: actions through the engine's ``action_text``."""
    if event_type == ACTION_APPLIED:
        action = payload.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            return event_type  # the store keeps any payload; a log reader must not fail on one
        try:
            if "rest" in action and "order" not in action:  # the owner's redacted keep_card: order stays secret
                rest = action["rest"]
                return f"{tr.action_text({k: v for k, v in action.items() if k != 'rest'})} rest {rest}"
            return tr.action_text(action)
        except (KeyError, TypeError):
            return action["type"]
    if event_type == GAME_CREATED:
        master = ", master version" if payload.get("master") else ""
        return f"game created: {payload.get('players')} players, {payload.get('edition')} edition{master}"
    if event_type == GAME_ENDED:
        scores = ", ".join(str(s) for s in payload.get("scores", []))
        return f"game over: scores {scores}; seat {payload.get('winner')} wins"
    return event_type


def initial_state(created: dict[str, Any], seed: int) -> tr.State:
    return tr.new_game(
        players=created["players"], seed=seed, edition=created["edition"], master=created["master"],
        **created.get("options", {}),
    )


def fold(events: Iterable[StoredEvent], seed: int, state: tr.State | None = None) -> tr.State | None:
    """Apply events in order to ``state`` (or start from ``game_created``); ``game_ended`` changes nothing."""
    for event in events:
        if event.type == GAME_CREATED:
            state = initial_state(event.payload, seed)
        elif event.type == ACTION_APPLIED:
            if state is None:
                raise ValueError(f"version {event.version}: action before game_created")
            state = tr.apply(state, event.payload["action"])
    return state


def summary_of(state: tr.State) -> dict[str, Any]:
    """The projection stored on the games row, so lists and summaries need no fold.

    Read straight from the state's fields (the same values ``to_position()`` copies): this runs on every
    action, and building the whole position just for four fields was a measurable share of a request.
    """
    over = tr.is_over(state)
    return {
        "stage": state.stage,
        "phase": state.phase,
        "round": state.round,
        "to_move": None if over else state.to_move,
        "scores": list(tr.scores(state)),
        "winner": tr.winner(state) if over else None,
    }

"""The event types, and the fold that turns a game's log back into a rules ``State`` and its lifecycle.

Events are facts in the rules package's own vocabulary (wire-form actions), so the log stays
readable and any state can be rebuilt by ``new_game`` followed by ``apply`` per action. Online play
adds a few more (:mod:`torres_game.lifecycle`: timeouts, resignations, abandonment, undo), folded by
the same loop. The fold is the only code that interprets events; the API, verify and the snapshots
all go through it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import Any

import torres_rules as tr

from . import lifecycle as lc
from .lifecycle import (
    ABANDONED,
    ACTION_APPLIED,
    ACTION_UNDONE,
    GAME_CREATED,
    GAME_ENDED,
    RESIGNED,
    TIMED_OUT,
    Lifecycle,
)
from .store.base import NewEvent, StoredEvent
from .store.hashing import format_time

__all__ = ["ABANDONED", "ACTION_APPLIED", "ACTION_UNDONE", "GAME_CREATED", "GAME_ENDED", "RESIGNED", "TIMED_OUT"]

#: Action types whose wire form carries hidden information (RULES.md section 13). Their events get
#: a random salt, so the public hash chain cannot be brute-forced to recover a redacted field.
SECRET_ACTION_TYPES = frozenset({"keep_card"})


def seed_commitment(seed: int) -> str:
    """The public promise made at creation: SHA-256 of the seed's decimal text."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def game_created(
    *, edition: str, master: bool, options: dict[str, Any], seats: list[dict[str, Any]], seed: int,
    online: lc.Settings | None = None,
) -> NewEvent:
    """``online`` (clocks, timeout policy, undo) is recorded only when it differs from the defaults."""
    payload: dict[str, Any] = {
        "edition": edition,
        "master": master,
        "options": options,
        "players": len(seats),
        "seats": seats,
        "seed_commitment": seed_commitment(seed),
    }
    if online is not None and online != lc.Settings():
        payload["online"] = online.to_json()
    return NewEvent(GAME_CREATED, payload)


def action_applied(seat: int, action: dict[str, Any], *, auto: str | None = None) -> NewEvent:
    """``auto`` names why the service played this action for the seat ("forfeit": a forfeited seat passes)."""
    payload: dict[str, Any] = {"seat": seat, "action": action}
    if auto is not None:
        payload["auto"] = auto
    if action.get("type") in SECRET_ACTION_TYPES:
        payload["salt"] = secrets.token_hex(16)
    return NewEvent(ACTION_APPLIED, payload)


def game_ended(state: tr.State, seed: int, life: Lifecycle, *, abandoned: bool = False) -> NewEvent:
    """The result: scores, ranks (forfeited seats last), whether it is rated, why it ended, and the seed.
    The reason follows from the log (so verify can recompute the whole payload): "abandoned" after an
    ``abandoned`` event, "completed" after the third scoring, else "forfeit" (fewer than two seats left)."""
    reason = "abandoned" if abandoned else "completed" if tr.is_over(state) else "forfeit"
    return NewEvent(GAME_ENDED, {**lc.result(state, life, reason=reason), "seed": str(seed)})


def timed_out(seat: int, life: Lifecycle, deadline: str) -> NewEvent:
    s = life.settings
    payload: dict[str, Any] = {"seat": seat, "deadline": deadline, "policy": s.timeout_policy}
    if s.timeout_policy == "ai":
        payload |= {"scope": s.ai_scope, "level": s.ai_level}
    return NewEvent(TIMED_OUT, payload)


def resigned(seat: int) -> NewEvent:
    return NewEvent(RESIGNED, {"seat": seat})


def abandoned(reason: str) -> NewEvent:
    return NewEvent(ABANDONED, {"reason": reason})


def action_undone(seat: int, undone_version: int) -> NewEvent:
    return NewEvent(ACTION_UNDONE, {"seat": seat, "undone_version": undone_version})


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
        return f"game over: scores {scores}; {outcome_text(payload)}"
    return event_type


def outcome_text(result: dict[str, Any]) -> str:
    """Who won, in words: one seat, or the seats sharing the first place (``winners``; logs written before it
    existed name only ``winner``)."""
    winner = result.get("winner")
    if winner is not None:
        return f"seat {winner} wins"
    tied = result.get("winners") or []
    if len(tied) > 1:
        return "a tie between seats " + " and ".join(str(seat) for seat in tied)
    return "no winner"


def initial_state(created: dict[str, Any], seed: int) -> tr.State:
    return tr.new_game(
        players=created["players"], seed=seed, edition=created["edition"], master=created["master"],
        **created.get("options", {}),
    )


def fold(events: Iterable[StoredEvent], seed: int, state: tr.State | None = None) -> tr.State | None:
    """The rules state after ``events`` from the start (the first one is ``game_created``)."""
    if state is not None:
        raise ValueError("fold the lifecycle too: use fold_game from a (state, lifecycle) base")
    game = fold_game(events, seed)
    return None if game is None else game[0]


def fold_game(
    events: Iterable[StoredEvent], seed: int, base: tuple[tr.State, Lifecycle] | None = None
) -> tuple[tr.State, Lifecycle] | None:
    """Apply events in order to ``base`` (or start from ``game_created``): the state and the lifecycle."""
    state, life = base if base is not None else (None, None)
    for event in events:
        state, life = lc.step(state, life, event.type, event.payload, event.version, event.created_at,
                              lambda created: initial_state(created, seed))
    return None if state is None or life is None else (state, life)


def summary_of(state: tr.State, life: Lifecycle) -> dict[str, Any]:
    """The projection stored on the games row, so lists and summaries need no fold, and the enforcer finds
    the games whose ``deadline`` passed with one indexed query.

    Read straight from the state's fields (the same values ``to_position()`` copies): this runs on every
    action, and building the whole position just for four fields was a measurable share of a request.
    """
    over = life.over or tr.is_over(state)
    deadline = life.deadline()
    best, winner = lc.winners(lc.ranks(state, life)) if over else ([], None)
    return {
        "stage": state.stage,
        "phase": state.phase,
        "round": state.round,
        "to_move": None if over else state.to_move,
        "scores": list(tr.scores(state)),
        "winner": winner,
        "winners": best,
        "deadline": None if deadline is None else format_time(deadline),
    }

"""The events the service appends, their words for a move log, and the summary it keeps on the games row.

The vocabulary itself (event types, the seed, the fold) is :mod:`torres_audit`'s, the package a third party
installs to verify a game record: the service builds and folds events with the same definitions the
verifier checks them with. The fold (:func:`torres_online.lifecycle.fold_game`) is the only code that
interprets events; the API, verify and the snapshots all go through it.
"""

from __future__ import annotations

import secrets
from typing import Any

import torres_rules as tr
from torres_online import events as ev
from torres_online import lifecycle as lc
from torres_online.lifecycle import Lifecycle, format_time

from .store.base import NewEvent


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
        "seed_commitment": ev.seed_commitment(seed),
    }
    if online is not None and online != lc.Settings():
        payload["online"] = online.to_json()
    return NewEvent(ev.GAME_CREATED, payload)


def action_applied(seat: int, action: dict[str, Any], *, auto: str | None = None) -> NewEvent:
    """``auto`` names why the service played this action for the seat ("forfeit": a forfeited seat passes)."""
    payload: dict[str, Any] = {"seat": seat, "action": action}
    if auto is not None:
        payload["auto"] = auto
    if action.get("type") in ev.SECRET_ACTION_TYPES:
        payload["salt"] = secrets.token_hex(16)
    return NewEvent(ev.ACTION_APPLIED, payload)


def game_ended(state: tr.State, seed: int, life: Lifecycle, *, abandoned: bool = False) -> NewEvent:
    """The result: scores, ranks (forfeited seats last), whether it is rated, why it ended, and the seed
    (:func:`torres_online.lifecycle.ended_payload`, which the verifier recomputes)."""
    return NewEvent(ev.GAME_ENDED, lc.ended_payload(state, seed, life, abandoned=abandoned))


def timed_out(seat: int, life: Lifecycle, deadline: str) -> NewEvent:
    return NewEvent(ev.TIMED_OUT, lc.timeout_payload(seat, life, deadline))


def resigned(seat: int) -> NewEvent:
    return NewEvent(ev.RESIGNED, {"seat": seat})


def abandoned(reason: str) -> NewEvent:
    return NewEvent(ev.ABANDONED, {"reason": reason})


def action_undone(seat: int, undone_version: int) -> NewEvent:
    return NewEvent(ev.ACTION_UNDONE, {"seat": seat, "undone_version": undone_version})


def event_text(event_type: str, payload: dict[str, Any]) -> str:
    """The event in words for a move log, from the (possibly redacted) payload the reader gets, so the text
    never says more than the payload: actions through the engine's ``action_text``."""
    if event_type == ev.ACTION_APPLIED:
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
    if event_type == ev.GAME_CREATED:
        master = ", master version" if payload.get("master") else ""
        return f"game created: {payload.get('players')} players, {payload.get('edition')} edition{master}"
    if event_type == ev.GAME_ENDED:
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

"""The replay of a game's log: every event checked against the rules and the online-play rules, in order.

The hash chain (:func:`torres_audit.chain.check_chain`) shows a log was not altered *after* it was written;
it cannot show the log was honest when written, since whoever holds the database can write a whole new
chain. The replay closes that gap: from the revealed seed it rebuilds the deal and every deck, applies each
action through the rules engine, and holds each lifecycle event (timeout, resignation, undo, abandonment,
automatic pass, the end) to the rule the service follows when it appends one. It folds with
:mod:`torres_online.lifecycle`, the service's own fold, so it judges exactly what the service did.

It reports the *first* problem: once one event is wrong, every later one is suspect.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torres_rules as tr
from torres_online import events as ev
from torres_online import lifecycle as lc
from torres_online.lifecycle import LoggedEvent, format_time, parse_time

from .chain import Problem, same

#: The schema version every event of this specification carries.
SCHEMA_VERSION = 1

#: Each event type's payload members: (required, optional). Anything else is refused, so a member a forger
#: adds (or one a future schema adds) is never silently ignored by a verifier that does not know it.
PAYLOAD_MEMBERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    ev.GAME_CREATED: (frozenset({"edition", "master", "options", "players", "seats", "seed_commitment"}),
                   frozenset({"online"})),
    ev.ACTION_APPLIED: (frozenset({"seat", "action"}), frozenset({"auto", "salt"})),
    ev.ACTION_UNDONE: (frozenset({"seat", "undone_version"}), frozenset()),
    ev.TIMED_OUT: (frozenset({"seat", "deadline", "policy"}), frozenset({"scope", "level"})),
    ev.RESIGNED: (frozenset({"seat"}), frozenset()),
    ev.ABANDONED: (frozenset({"reason"}), frozenset()),
    ev.GAME_ENDED: (frozenset({"scores", "winner", "winners", "ranks", "forfeited", "reason", "rated", "seed"}),
                 frozenset()),
}

_SALT = re.compile(r"[0-9a-f]{32}")


@dataclass
class Replay:
    """What the replay found: the first problem (or None), the game as folded, and what it went through."""

    problem: Problem | None
    state: tr.State | None = None
    life: lc.Lifecycle | None = None
    ended: bool = False
    counts: Counter[str] = field(default_factory=Counter)


class _Refused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _is_seat(value: Any, life: lc.Lifecycle) -> bool:
    return _is_int(value) and 0 <= value < len(life.kinds)


def _check_members(event: LoggedEvent) -> None:
    payload = event.payload
    if not isinstance(payload, dict):
        raise _Refused(f"{event.type} payload is not an object")
    required, optional = PAYLOAD_MEMBERS[event.type]
    missing = sorted(required - payload.keys())
    if missing:
        raise _Refused(f"{event.type} payload lacks {', '.join(missing)}")
    unknown = sorted(payload.keys() - required - optional)
    if unknown:
        raise _Refused(f"{event.type} payload has unknown members {', '.join(unknown)}")


def _check_time(at: Any) -> None:
    """Times are hashed as text, so only one text per moment is valid: UTC, microseconds, ``+00:00``."""
    try:
        canonical = isinstance(at, str) and format_time(parse_time(at)) == at
    except ValueError:
        canonical = False
    if not canonical:
        raise _Refused(f"created_at {at!r} is not a UTC time in the canonical form (YYYY-MM-DDTHH:MM:SS.ffffff+00:00)")


def _check_in_time(seat: int, life: lc.Lifecycle, at: str, what: str) -> None:
    """The service refuses a seat's move or undo recorded after its deadline (409 time_up)."""
    deadline = life.deadline()
    if deadline is not None and parse_time(at) > deadline:
        raise _Refused(f"seat {seat} {what} at {at}, after its deadline {format_time(deadline)}")


#: The members of ``game_created.online`` and the bounds of its seconds (the service's own, docs/audit.md section 3).
SECONDS = {"turn_seconds": (0.01, 30 * 86400.0), "bank_seconds": (0.01, 90 * 86400.0),
           "increment_seconds": (0.0, 30 * 86400.0)}
TIMEOUT_MEMBERS = frozenset({"policy", "scope", "level"})


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_seconds(value: Any, name: str) -> bool:
    low, high = SECONDS[name]
    return isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high


def _check_online(online: Any) -> None:
    """The settings are typed as the service writes them: a clock's seconds are numbers in the service's bounds
    (a text or a bool is not a number of seconds, and no deadline may fall beyond the calendar), undo a bool."""
    if not isinstance(online, dict) or online.keys() != {"clock", "timeout", "undo"}:
        raise _Refused("game_created's online is {clock, timeout, undo}")
    clock, timeout = online["clock"], online["timeout"]
    if not isinstance(clock, dict) or clock.keys() != SECONDS.keys() or not all(
            (clock[name] is None and name != "increment_seconds") or _is_seconds(clock[name], name)
            for name in SECONDS):
        raise _Refused("game_created's clock is {turn_seconds, bank_seconds: null or seconds, increment_seconds: "
                       "seconds}, each within the service's bounds")
    if not isinstance(timeout, dict) or timeout.keys() != TIMEOUT_MEMBERS or timeout["policy"] not in lc.POLICIES \
            or timeout["scope"] not in lc.AI_SCOPES or not isinstance(timeout["level"], str):
        raise _Refused(f"game_created's timeout is {{policy: {'|'.join(lc.POLICIES)}, scope: "
                       f"{'|'.join(lc.AI_SCOPES)}, level: text}}")
    if not isinstance(online["undo"], bool):
        raise _Refused("game_created's undo is true or false")


def _check_created(payload: dict[str, Any], seed: int) -> None:
    if not same(payload["seed_commitment"], ev.seed_commitment(seed)):
        raise _Refused("seed commitment does not match the game's seed")
    for name, kind, what in (("edition", str, "text"), ("master", bool, "true or false"),
                             ("options", dict, "an object")):
        if not isinstance(payload[name], kind):
            raise _Refused(f"game_created's {name} is not {what}")
    seats = payload["seats"]
    players = payload["players"]
    if not isinstance(seats, list) or not _is_int(players) or len(seats) != players:
        raise _Refused(f"game_created lists {len(seats) if isinstance(seats, list) else 'no'} seats for "
                       f"{players!r} players")
    for number, seat in enumerate(seats):
        if not isinstance(seat, dict) or not same(seat.get("seat"), number) or seat.get("kind") not in ("human", "ai"):
            raise _Refused(f"game_created seat {number} is not {{seat: {number}, kind: human|ai, ...}}")
    if "online" in payload:
        _check_online(payload["online"])


def _check_action(event: LoggedEvent, state: tr.State, life: lc.Lifecycle, due: str | None) -> None:
    payload = event.payload
    seat = payload["seat"]
    to_move = None if tr.is_over(state) else state.to_move
    if seat != to_move:
        raise _Refused(f"seat {seat} acted but seat {to_move} was to move")
    action = payload["action"]
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise _Refused(f"illegal action: {action!r} is not an action in wire form")
    secret = action["type"] in ev.SECRET_ACTION_TYPES
    if secret and not (isinstance(payload.get("salt"), str) and _SALT.fullmatch(payload["salt"])):
        raise _Refused(f"a {action['type']} event needs a salt of 32 hex digits (its action is hidden from readers)")
    if not secret and "salt" in payload:
        raise _Refused(f"a {action['type']} event has a salt, which only hidden actions carry")
    auto = payload.get("auto")
    if auto is not None:
        if auto != "forfeit":
            raise _Refused(f"unknown automatic action {auto!r}")
        if due != lc.PASS:
            raise _Refused(f"an automatic pass for seat {to_move}, which has not left the game")
        expected = lc.pass_action(state)
        if not same(action, expected):
            raise _Refused(f"the automatic pass of seat {seat} is {action}, the service passes with {expected}")
        return
    _check_in_time(seat, life, event.created_at, "acted")


def _check_undo(event: LoggedEvent, state: tr.State, life: lc.Lifecycle) -> None:
    payload = event.payload
    seat, undone = payload["seat"], payload["undone_version"]
    if not life.settings.undo:
        raise _Refused("an undo, but the game was created with undo switched off")
    to_move = None if tr.is_over(state) else state.to_move
    if seat != to_move:
        raise _Refused(f"seat {seat} took back a move but seat {to_move} was to move")
    _check_in_time(seat, life, event.created_at, "took back a move")
    last = life.undo[-1][0] if life.undo else None
    if not same(undone, last):
        raise _Refused(f"undo of version {undone}, but the action that may be taken back is "
                       f"{'none' if last is None else f'version {last}'}")


def _check_timeout(event: LoggedEvent, life: lc.Lifecycle) -> None:
    payload = event.payload
    deadline = life.deadline()
    if deadline is None:
        raise _Refused("a timeout, but no clock was running (an untimed game, or the seat to move is played by "
                       "the AI or has left)")
    if payload["seat"] != life.mover:
        raise _Refused(f"a timeout of seat {payload['seat']}, but seat {life.mover}'s clock was running")
    if payload["deadline"] != format_time(deadline):
        raise _Refused(f"the timeout names the deadline {payload['deadline']}, the clocks give {format_time(deadline)}")
    if parse_time(event.created_at) < deadline:
        raise _Refused(f"the timeout was recorded at {event.created_at}, before the deadline {format_time(deadline)}")
    expected = lc.timeout_payload(payload["seat"], life, payload["deadline"])
    if not same(payload, expected):
        raise _Refused(f"the timeout says {payload}, the game's settings give {expected}")


def _due_text(due: str, state: tr.State, life: lc.Lifecycle, abandoned: bool) -> str:
    if due == lc.PASS:
        return f"seat {state.to_move} has left the game, so its automatic pass"
    why = ("it was abandoned" if abandoned else "the third scoring is over" if tr.is_over(state)
           else "fewer than two seats are left")
    return f"the game had to end ({why}): game_ended"


def replay(
    events: Sequence[LoggedEvent], seed: int, *, after_event: Callable[[int, tr.State], str | None] | None = None,
) -> Replay:
    """Replay ``events`` (a whole log, from ``game_created``) with the revealed ``seed``. ``after_event(version,
    state)`` may name a problem with the state after each event (the service compares its snapshots)."""
    out = Replay(None)
    state: tr.State | None = None
    life: lc.Lifecycle | None = None
    abandoned = False
    due: str | None = None
    version = 0
    for event in events:
        version = event.version
        try:
            if out.ended:
                raise _Refused("event after game_ended")
            if event.type not in PAYLOAD_MEMBERS:
                raise _Refused(f"unknown event type {event.type!r}")
            if event.type == ev.GAME_CREATED and version != 1:
                raise _Refused("game_created is not the first event")
            if state is None and event.type != ev.GAME_CREATED:
                raise _Refused(f"{event.type} before game_created")
            if getattr(event, "schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
                raise _Refused(f"schema_version {getattr(event, 'schema_version', None)!r}: this verifier knows "
                               f"schema {SCHEMA_VERSION}")
            _check_time(event.created_at)
            _check_members(event)
            payload = event.payload
            if state is not None and life is not None:
                auto_pass = event.type == ev.ACTION_APPLIED and payload.get("auto") is not None
                if due == lc.END and event.type != ev.GAME_ENDED:
                    raise _Refused(f"{_due_text(due, state, life, abandoned)} had to follow version {version - 1}, "
                                   f"but {event.type} follows")
                if due == lc.PASS and not auto_pass:
                    raise _Refused(f"{_due_text(due, state, life, abandoned)} had to follow version {version - 1}, "
                                   f"but {event.type} follows")
                if "seat" in payload and not _is_seat(payload["seat"], life):
                    raise _Refused(f"seat {payload['seat']!r} is not a seat of this game")
            if event.type == ev.GAME_CREATED:
                _check_created(payload, seed)
            elif state is None or life is None:  # unreachable (checked above); keeps the types exact
                raise _Refused(f"{event.type} before game_created")
            elif event.type == ev.ACTION_APPLIED:
                _check_action(event, state, life, due)
                out.counts["automatic passes" if payload.get("auto") else "actions"] += 1
                kind = payload["action"]["type"]
                if kind == "buy_card":
                    out.counts["cards drawn"] += 1
            elif event.type == ev.ACTION_UNDONE:
                _check_undo(event, state, life)
                out.counts["undos"] += 1
            elif event.type == ev.TIMED_OUT:
                _check_timeout(event, life)
                out.counts["timeouts"] += 1
            elif event.type == ev.RESIGNED:
                if payload["seat"] in life.forfeited:
                    raise _Refused(f"seat {payload['seat']} resigned, but it had already left the game")
                out.counts["resignations"] += 1
            elif event.type == ev.ABANDONED:
                if not isinstance(payload["reason"], str):
                    raise _Refused("an abandonment without a reason in words")
                abandoned = True
                out.counts["abandonments"] += 1
            elif event.type == ev.GAME_ENDED:
                if due != lc.END:
                    raise _Refused("game_ended but the folded game is not over")
                expected = lc.ended_payload(state, seed, life, abandoned=abandoned)
                if not same(payload, expected):
                    raise _Refused(f"game_ended says {payload}, the fold gives {expected}")
                out.ended = True
            try:
                state, life = lc.step(state, life, event.type, payload, version, event.created_at,
                                      lambda created: ev.initial_state(created, seed))
            except (tr.IllegalAction, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
                if event.type == ev.GAME_CREATED:
                    raise _Refused(f"the creation parameters are not a game of Torres: {exc}") from exc
                raise _Refused(f"illegal action: {exc}") from exc
            due = lc.follow_up(state, life, abandoned=abandoned)
            if after_event is not None:
                reason = after_event(version, state)
                if reason is not None:
                    raise _Refused(reason)
        except _Refused as refused:
            out.problem = Problem(version, refused.reason)
            break
    out.state, out.life = state, life
    if out.problem is None and state is not None and life is not None and not out.ended and due is not None:
        if due == lc.END and tr.is_over(state):
            out.problem = Problem(version, "the game is over but no game_ended was recorded")
        else:
            out.problem = Problem(version, f"the log stops at version {version}, but "
                                           f"{_due_text(due, state, life, abandoned)} had to follow it")
    return out

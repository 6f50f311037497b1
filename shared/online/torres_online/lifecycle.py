"""Online play around the rules: clocks, timeouts, forfeits, resignation, abandonment and undo.

The rules package knows a game of Torres; a game *on a portal* also has clocks, seats that leave and
misclicks taken back. All of it is derived from the event log like the rules state: :class:`Lifecycle`
is folded event by event next to the ``State`` (:func:`step`), using the time each event was recorded by
the service (``created_at``), never a process's memory, so a restarted service or a second replica reaches
the same clocks and deadlines. The settings are chosen at creation and stored in ``game_created``.

This module is the one fold of a game's log: the game service folds with it to serve and to decide, and the
offline verifier folds with it to check, so what a record proves is what the service did (docs/audit.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import torres_rules as tr

from . import events as ev

#: The AI levels a seat may be given, at creation or when the AI takes over a seat that timed out, and what a player
#: meets at each by default (docs/ai.md): the game service accepts these, the AI workers play them (their
#: configuration says with which bot), the clients offer them.
AI_LEVELS = {
    "easy": "random legal moves",
    "medium": "plans each turn greedily",
    "hard": "Monte-Carlo search over turn plans",
}
#: Actions after which nothing before them may be undone: they reveal hidden information (a card drawn and
#: looked at, a card from a hand shown) or take back nothing (keep_card follows a draw).
CLOSES_UNDO = frozenset({"buy_card", "keep_card", "play_card"})
#: Actions that end the rules' turn (RULES 5: "a turn ends only when the player ends it"); each setup
#: placement and the king's move between phases is a whole turn of its own. Who moves next does not matter:
#: the same seat may move again after a phase scoring (it moves the king, or starts the next round).
ENDS_TURN = frozenset({"end_turn", "move_king", "place_foundation", "place_start_knight", "place_king"})
POLICIES = ("forfeit", "ai")
AI_SCOPES = ("turn", "game")


@dataclass(frozen=True)
class Settings:
    """What a game's creator chose; the defaults are an untimed game with undo."""

    turn_seconds: float | None = None  # a limit per turn
    bank_seconds: float | None = None  # a time bank per seat (Fischer) ...
    increment_seconds: float = 0.0  # ... credited at the end of each of the seat's turns
    timeout_policy: str = "forfeit"  # "forfeit" | "ai"
    ai_scope: str = "turn"  # with "ai": the AI plays the rest of the "turn" or of the "game"
    ai_level: str = "easy"
    undo: bool = True

    @property
    def clocked(self) -> bool:
        return self.turn_seconds is not None or self.bank_seconds is not None

    @classmethod
    def from_request(cls, clock: dict[str, Any] | None, timeout: dict[str, Any] | None,
                     undo: bool | None) -> Settings:
        clock = clock or {}
        timeout = timeout or {}
        settings = cls(
            turn_seconds=clock.get("turn_seconds"), bank_seconds=clock.get("bank_seconds"),
            increment_seconds=clock.get("increment_seconds", 0.0) or 0.0,
            timeout_policy=timeout.get("policy", "forfeit"), ai_scope=timeout.get("scope", "turn"),
            ai_level=timeout.get("level", "easy"), undo=True if undo is None else undo,
        )
        if settings.increment_seconds and settings.bank_seconds is None:
            raise ValueError("increment_seconds needs bank_seconds (a Fischer clock)")
        if settings.timeout_policy not in POLICIES or settings.ai_scope not in AI_SCOPES:
            raise ValueError(f"timeout policy must be one of {POLICIES}, scope one of {AI_SCOPES}")
        return settings

    def to_json(self) -> dict[str, Any]:
        """The ``online`` member of ``game_created`` (omitted there when everything is default)."""
        return {
            "clock": {"turn_seconds": self.turn_seconds, "bank_seconds": self.bank_seconds,
                      "increment_seconds": self.increment_seconds},
            "timeout": {"policy": self.timeout_policy, "scope": self.ai_scope, "level": self.ai_level},
            "undo": self.undo,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Settings:
        if not data:
            return cls()
        return cls.from_request(data.get("clock"), data.get("timeout"), data.get("undo"))


def format_time(moment: datetime) -> str:
    """Timestamps enter the log (and its hash) as UTC ISO text with microseconds, which both backends round-trip."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class LoggedEvent(Protocol):
    """What the fold reads of an event (a stored event, a record's event)."""

    @property
    def version(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def payload(self) -> dict[str, Any]: ...
    @property
    def created_at(self) -> str: ...


@dataclass(frozen=True)
class Lifecycle:
    """Everything about a game beyond the rules state, as of one version."""

    settings: Settings
    kinds: tuple[str, ...]  # "human" | "ai" per seat
    mover: int | None = None  # the seat whose clock runs
    turn_start: str | None = None  # when that seat became the one to move
    banks: tuple[float, ...] | None = None  # bank left per seat at the start of its current/next turn
    forfeited: tuple[int, ...] = ()
    ai_control: tuple[tuple[int, str], ...] = ()  # (seat, "turn"|"game") played by the AI after a timeout
    undo: tuple[tuple[int, tr.State], ...] = field(default=(), compare=False)  # (version, state before)
    acted: bool = False  # any seat acted yet, passes for forfeited seats aside (a game ended before is unrated)
    over: bool = False

    @classmethod
    def start(cls, created: dict[str, Any], state: tr.State, at: str) -> Lifecycle:
        settings = Settings.from_json(created.get("online"))
        kinds = tuple(seat["kind"] for seat in created["seats"])
        banks = None if settings.bank_seconds is None else tuple(settings.bank_seconds for _ in kinds)
        return cls(settings, kinds, mover=state.to_move, turn_start=at, banks=banks)

    # -- questions -----------------------------------------------------------------------

    def ai_plays(self, seat: int) -> bool:
        return self.kinds[seat] == "ai" or any(s == seat for s, _ in self.ai_control)

    def active_seats(self) -> list[int]:
        return [seat for seat in range(len(self.kinds)) if seat not in self.forfeited]

    def deadline(self) -> datetime | None:
        """When the seat to move runs out of time; None without a clock, for AI-played or forfeited seats."""
        s = self.settings
        seat = self.mover
        if self.over or seat is None or not s.clocked or self.turn_start is None or self.ai_plays(seat) \
                or seat in self.forfeited:
            return None
        allowed = [x for x in (s.turn_seconds, self.banks[seat] if self.banks else None) if x is not None]
        return parse_time(self.turn_start) + timedelta(seconds=min(allowed))

    def clock_view(self, now: datetime) -> dict[str, Any] | None:
        """The public clock: settings, each seat's bank (the mover's as of ``now``), the mover's deadline."""
        s = self.settings
        if not s.clocked:
            return None
        deadline = self.deadline()
        banks = list(self.banks) if self.banks is not None else None
        if banks is not None and self.mover is not None and self.turn_start is not None and not self.over:
            banks[self.mover] = max(0.0, banks[self.mover] - (now - parse_time(self.turn_start)).total_seconds())
        return {
            "turn_seconds": s.turn_seconds, "bank_seconds": s.bank_seconds, "increment_seconds": s.increment_seconds,
            "to_move": None if self.over else self.mover,
            "turn_started_at": None if self.over else self.turn_start,
            "deadline": None if deadline is None else format_time(deadline),
            "seconds_left": None if deadline is None else max(0.0, round((deadline - now).total_seconds(), 3)),
            "banks": None if banks is None else [round(b, 3) for b in banks],
        }

    def public(self, now: datetime) -> dict[str, Any]:
        """The lifecycle part of every view: public to all seats and spectators."""
        return {
            "clock": self.clock_view(now),
            "timeout_policy": {"policy": self.settings.timeout_policy, "scope": self.settings.ai_scope,
                               "level": self.settings.ai_level},
            "forfeited": list(self.forfeited),
            "ai_controlled": [seat for seat, _ in self.ai_control],
            "undo_enabled": self.settings.undo,
            "can_undo": bool(self.undo) and not self.over,
        }

    # -- transitions ---------------------------------------------------------------------

    def after(self, state: tr.State, at: str) -> Lifecycle:
        """Settle the clocks once ``state`` holds: when the seat to move changed, the previous one's turn
        ended at ``at`` (its bank is charged and credited), the new one's clock starts, undo closes."""
        new_mover = None if self.over or tr.is_over(state) else state.to_move
        if new_mover == self.mover:
            return self
        banks = self.banks
        if banks is not None and self.mover is not None and self.turn_start is not None:
            spent = (parse_time(at) - parse_time(self.turn_start)).total_seconds()
            left = max(0.0, banks[self.mover] - spent) + self.settings.increment_seconds
            banks = (*banks[:self.mover], left, *banks[self.mover + 1:])
        control = tuple((seat, scope) for seat, scope in self.ai_control if scope == "game" or seat != self.mover)
        return replace(self, mover=new_mover, turn_start=at, banks=banks, ai_control=control, undo=())

    # -- snapshots -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "settings": self.settings.to_json(), "kinds": list(self.kinds), "mover": self.mover,
            "turn_start": self.turn_start, "banks": None if self.banks is None else list(self.banks),
            "forfeited": list(self.forfeited), "ai_control": [list(c) for c in self.ai_control],
            "undo": [[v, s.to_position()] for v, s in self.undo], "acted": self.acted, "over": self.over,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Lifecycle:
        return cls(
            settings=Settings.from_json(data["settings"]), kinds=tuple(data["kinds"]), mover=data["mover"],
            turn_start=data["turn_start"], banks=None if data["banks"] is None else tuple(data["banks"]),
            forfeited=tuple(data["forfeited"]), ai_control=tuple((s, scope) for s, scope in data["ai_control"]),
            undo=tuple((v, tr.from_position(p)) for v, p in data["undo"]), acted=data["acted"], over=data["over"],
        )


def step(state: tr.State | None, life: Lifecycle | None, type_: str, payload: dict[str, Any], version: int,
         at: str, initial: Callable[[dict[str, Any]], tr.State]) -> tuple[tr.State, Lifecycle]:
    """Fold one event. ``initial(payload)`` builds the state of ``game_created`` (it needs the secret seed)."""
    if type_ == ev.GAME_CREATED:
        state = initial(payload)
        return state, Lifecycle.start(payload, state, at)
    if state is None or life is None:
        raise ValueError(f"version {version}: {type_} before game_created")
    if type_ == ev.ACTION_APPLIED:
        action = payload["action"]
        before = state
        state = tr.apply(state, action)
        undoable = (life.settings.undo and not payload.get("auto") and payload.get("seat") == before.to_move
                    and within_turn(action["type"], before, state))
        life = replace(life, acted=life.acted or not payload.get("auto"),
                       undo=(*life.undo, (version, before)) if undoable else ())
        return state, life.after(state, at)
    if type_ == ev.ACTION_UNDONE:
        if not life.undo or life.undo[-1][0] != payload["undone_version"]:
            raise ValueError(f"version {version}: undo of {payload['undone_version']} is not the last undoable")
        return life.undo[-1][1], replace(life, undo=life.undo[:-1])
    if type_ == ev.TIMED_OUT:
        seat = payload["seat"]
        if payload["policy"] == "forfeit":
            life = replace(life, forfeited=tuple(sorted({*life.forfeited, seat})), undo=())
        else:
            life = replace(life, ai_control=(*life.ai_control, (seat, payload["scope"])), undo=())
        return state, life
    if type_ == ev.RESIGNED:
        seat = payload["seat"]
        control = tuple(c for c in life.ai_control if c[0] != seat)
        return state, replace(life, forfeited=tuple(sorted({*life.forfeited, seat})), ai_control=control, undo=())
    if type_ == ev.GAME_ENDED:
        return state, replace(life, over=True, undo=())
    if type_ == ev.ABANDONED:
        return state, life
    raise ValueError(f"version {version}: unknown event type {type_!r}")


def within_turn(action_type: str, before: tr.State, after: tr.State) -> bool:
    """Whether an action stays inside the rules' turn, so that undo may take it back: it neither ends the turn
    nor reveals anything, and the stage, phase, round and seat to move are the same after it. Anything that
    could cross a phase scoring changes the phase or the stage, so a scoring can never be taken back."""
    return (action_type not in CLOSES_UNDO and action_type not in ENDS_TURN
            and before.stage == after.stage == "turn"
            and (before.phase, before.round, before.to_move) == (after.phase, after.round, after.to_move))


def pass_action(state: tr.State) -> dict[str, Any]:
    """What a forfeited seat does when it is to move: end its turn (its knights stay), leave the king where
    it is, or else the first legal choice (setup placements, a card to keep), so the game goes on."""
    legal = tr.legal_actions(state)
    for wanted in ("end_turn", "move_king"):
        for action in legal:
            if action["type"] == wanted and (wanted != "move_king" or action.get("to") is None):
                return action
    return legal[0]


def ranks(state: tr.State, life: Lifecycle) -> list[int]:
    """Finishing ranks (0 = best): seats still in play by the rules' order (winner first, then score), every
    forfeited seat after them, sharing the last rank."""
    winner = tr.winner(state)
    scores = tr.scores(state)
    keys = {seat: (seat != winner, -scores[seat]) for seat in life.active_seats()}
    ordered = sorted(set(keys.values()))
    out = [ordered.index(keys[seat]) if seat in keys else len(ordered) for seat in range(len(life.kinds))]
    return out


def winners(order: list[int]) -> tuple[list[int], int | None]:
    """The seats sharing the best rank, and the winner: the one such seat, or None when several share it (an
    abandoned game with equal scores; the rules' own end leaves no tie, RULES 8)."""
    best = [seat for seat, rank in enumerate(order) if rank == 0]
    return best, best[0] if len(best) == 1 else None


def result(state: tr.State, life: Lifecycle, *, reason: str) -> dict[str, Any]:
    """The ``game_ended`` payload's result part (the seed is added by the caller): what ratings read."""
    order = ranks(state, life)
    best, winner = winners(order)
    return {
        "scores": list(tr.scores(state)),
        "winner": winner,
        "winners": best,
        "ranks": order,
        "forfeited": list(life.forfeited),
        "reason": reason,
        "rated": life.acted,
    }


def ended_payload(state: tr.State, seed: int, life: Lifecycle, *, abandoned: bool = False) -> dict[str, Any]:
    """The whole ``game_ended`` payload: the result, why the game ended, and the seed revealed. The reason
    follows from the log, so a verifier recomputes the payload exactly: "abandoned" after an ``abandoned``
    event, "completed" after the third scoring, else "forfeit" (fewer than two seats left)."""
    reason = "abandoned" if abandoned else "completed" if tr.is_over(state) else "forfeit"
    return {**result(state, life, reason=reason), "seed": str(seed)}


def timeout_payload(seat: int, life: Lifecycle, deadline: str) -> dict[str, Any]:
    """The ``timed_out`` payload: the seat, the deadline it missed, and the policy the game was created with."""
    s = life.settings
    payload: dict[str, Any] = {"seat": seat, "deadline": deadline, "policy": s.timeout_policy}
    if s.timeout_policy == "ai":
        payload |= {"scope": s.ai_scope, "level": s.ai_level}
    return payload


#: What :func:`follow_up` may ask for: the end of the game, or an automatic pass of a seat that left.
END, PASS = "end", "pass"


def follow_up(state: tr.State, life: Lifecycle, *, abandoned: bool) -> str | None:
    """What must follow at once, in the same append, once an event is folded: :data:`END` (``game_ended``)
    after the third scoring, when fewer than two seats are left, or after ``abandoned``; :data:`PASS` (an
    ``action_applied`` with ``auto: "forfeit"`` and :func:`pass_action`) when a forfeited seat is to move;
    None when the game waits for a seat. The service appends what this says; the verifier demands it."""
    if life.over:
        return None
    if abandoned or tr.is_over(state) or len(life.active_seats()) < 2:
        return END
    if state.to_move in life.forfeited:
        return PASS
    return None


def fold_game(
    events: Iterable[LoggedEvent], seed: int, base: tuple[tr.State, Lifecycle] | None = None
) -> tuple[tr.State, Lifecycle] | None:
    """Apply events in order to ``base`` (or start from ``game_created``): the state and the lifecycle."""
    state, life = base if base is not None else (None, None)
    for event in events:
        state, life = step(state, life, event.type, event.payload, event.version, event.created_at,
                           lambda created: ev.initial_state(created, seed))
    return None if state is None or life is None else (state, life)


def fold(events: Iterable[LoggedEvent], seed: int) -> tr.State | None:
    """The rules state after ``events`` from the start (the first one is ``game_created``)."""
    game = fold_game(events, seed)
    return None if game is None else game[0]

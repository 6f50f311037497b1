"""Verification of a game's log: the hash chain, then a re-fold through the rules.

Pure (no store access), so it can check a log from anywhere: the service's verify endpoint, an
exported log, a test that forged one. It reports the *first* inconsistency, since every later
event is suspect once one is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torres_rules as tr

from . import events as ev
from . import lifecycle as lc
from .store.base import Snapshot, StoredEvent
from .store.hashing import GENESIS_HASH


def verify_log(
    game_id: str,
    log_events: Sequence[StoredEvent],
    *,
    seed: int,
    recorded_version: int,
    snapshot: Snapshot | None = None,
) -> dict[str, Any]:
    """Check versions, links, hashes, the seed commitment, every action's legality and turn, the
    end, an optional snapshot and the recorded version; return an ok/first-inconsistency report."""
    prev, ended, abandoned = GENESIS_HASH, False, False
    state: tr.State | None = None
    life: lc.Lifecycle | None = None
    last = log_events[-1].version if log_events else 0

    def report(version: int, reason: str) -> dict[str, Any]:
        return {"game_id": game_id, "ok": False, "events": len(log_events), "version": last,
                "first_inconsistency": {"version": version, "reason": reason}}

    for expected, event in enumerate(log_events, start=1):
        v = event.version
        if v != expected:
            return report(expected, f"version gap: found {v} where {expected} was expected")
        if event.prev_hash != prev:
            return report(v, "prev_hash does not match the previous event's hash")
        if event.recomputed_hash() != event.hash:
            return report(v, "hash mismatch: the stored event was altered")
        prev = event.hash
        if ended:
            return report(v, "event after game_ended")
        if event.type == ev.GAME_CREATED:
            if v != 1:
                return report(v, "game_created is not the first event")
            if event.payload.get("seed_commitment") != ev.seed_commitment(seed):
                return report(v, "seed commitment does not match the game's seed")
        elif state is None or life is None:
            return report(v, f"{event.type} before game_created")
        elif event.type == ev.ACTION_APPLIED:
            to_move = None if tr.is_over(state) else state.to_position().get("to_move")
            if event.payload.get("seat") != to_move:
                return report(v, f"seat {event.payload.get('seat')} acted but seat {to_move} was to move")
            if event.payload.get("auto") and to_move not in life.forfeited:
                return report(v, f"an automatic pass for seat {to_move}, which has not left the game")
        elif event.type == ev.GAME_ENDED:
            if not (tr.is_over(state) or abandoned or len(life.active_seats()) < 2):
                return report(v, "game_ended but the folded game is not over")
            expected_payload = ev.game_ended(state, seed, life, abandoned=abandoned).payload
            if event.payload != expected_payload:
                return report(v, f"game_ended says {event.payload}, the fold gives {expected_payload}")
            ended = True
        elif event.type == ev.ABANDONED:
            abandoned = True
        elif event.type not in (ev.ACTION_UNDONE, ev.TIMED_OUT, ev.RESIGNED):
            return report(v, f"unknown event type {event.type!r}")
        try:
            state, life = lc.step(state, life, event.type, event.payload, v, event.created_at,
                                  lambda created: ev.initial_state(created, seed))
        except (tr.IllegalAction, ValueError, KeyError, TypeError) as exc:
            return report(v, f"illegal action: {exc}")
        if snapshot is not None and snapshot.version == v and snapshot.position != state.to_position():
            return report(v, "snapshot differs from the fold (a cache: delete it to rebuild)")
    if state is not None and tr.is_over(state) and not ended:
        return report(last, "the game is over but no game_ended was recorded")
    if recorded_version != last:
        return report(last, f"the games row says version {recorded_version}, the log ends at {last}")
    return {"game_id": game_id, "ok": True, "events": len(log_events), "version": last, "first_inconsistency": None}

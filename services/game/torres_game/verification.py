"""``/verify``: the service's own check of a game's log, with the same audit an outsider runs on a record.

The chain and the replay are :mod:`torres_audit`'s (:func:`~torres_audit.chain.check_chain`,
:func:`~torres_audit.replay.replay`), so ``/verify`` and ``python -m torres_audit verify`` can never judge a
log differently. What only the service has is checked here: its snapshots (a cache that must agree with the
fold) and the version on the games row. Pure (no store access): it checks a log from anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torres_rules as tr
from torres_audit.chain import Problem, check_chain
from torres_audit.replay import replay

from .store.base import Snapshot, StoredEvent


def verify_log(
    game_id: str,
    log_events: Sequence[StoredEvent],
    *,
    seed: int,
    recorded_version: int,
    snapshot: Snapshot | None = None,
) -> dict[str, Any]:
    """Check versions, links, hashes, the seed commitment, every action's legality and turn, the lifecycle
    events, the end, an optional snapshot and the recorded version; return an ok/first-inconsistency report."""
    last = log_events[-1].version if log_events else 0

    def snapshot_agrees(version: int, state: tr.State) -> str | None:
        if snapshot is not None and snapshot.version == version and snapshot.position != state.to_position():
            return "snapshot differs from the fold (a cache: delete it to rebuild)"
        return None

    problems = [p for p in (check_chain(game_id, log_events),
                            replay(log_events, seed, after_event=snapshot_agrees).problem) if p is not None]
    if not problems and recorded_version != last:
        problems.append(Problem(last, f"the games row says version {recorded_version}, the log ends at {last}"))
    # The chain's problem wins a tie: an altered event is reported as altered, not as the illegal move it became.
    first = min(problems, key=lambda p: p.version) if problems else None
    return {"game_id": game_id, "ok": first is None, "events": len(log_events), "version": last,
            "first_inconsistency": None if first is None else {"version": first.version, "reason": first.reason}}

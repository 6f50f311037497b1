"""Public facts the engine derives, in wire form: the castles of a position and a phase scoring's breakdown.

Clients show them (castle outlines, "castle of 5 x level 2 = 10", the coming scoring as it stands) and must not
re-derive them: a second copy of the scoring rules in another language drifts from this one. Both read only public
fields (heights, knights, king, scores, phase, master card), so they may go to any reader, a spectator included.

Castles are listed in a stable order, by their lowest square (A1 first, then B1, ...), whatever order the
engine's incremental tables hold them in; a scoring refers to castles by their index in that list.
"""

from __future__ import annotations

from typing import Any

from .board import square_name
from .scoring import castle_levels, phase_points, phase_scoring
from .state import NO_FIGURE, State


def _wire_order(state: State) -> list[int]:
    """Engine castle indices in wire order (by lowest square)."""
    members = state.castles.members
    return sorted(range(len(members)), key=lambda c: members[c][0])


def castles_of(state: State) -> list[dict[str, Any]]:
    """Each castle of the position: its squares (sorted like `heights`' keys: A1, B1, ..., H8), its base area, and
    whether the king stands in it (RULES 1, 6.2)."""
    castles = state.castles
    king_castle = castles.of[state.king] if state.king != NO_FIGURE else None  # no king before setup places it
    return [{"squares": [square_name(sq) for sq in castles.members[c]], "area": castles.areas[c],
             "king": c == king_castle}
            for c in _wire_order(state)]


def scoring_breakdown(state: State) -> dict[str, Any]:
    """What the end of `state.phase` pays from this position, per seat: each castle counted (its index in
    `castles_of`, base area, highest level of the seat's knights there, points = area x level), the king bonus,
    the master card's points, the squares the no-shared-scores rule (8) added, and the score gained and reached.
    The points and scores are the very ones the engine awards (`scoring.phase_points`, `scoring.phase_scoring`)."""
    index = {c: i for i, c in enumerate(_wire_order(state))}
    areas = state.castles.areas
    castle, king, master = phase_points(state)
    scores = phase_scoring(state)
    seats = []
    for seat in range(state.players):
        counted = sorted((index[c], areas[c], level) for c, level in castle_levels(state, seat).items())
        gained = scores[seat] - state.scores[seat]
        seats.append({
            "seat": seat,
            "castles": [{"castle": i, "area": area, "level": level, "points": area * level}
                        for i, area, level in counted],
            "castle_points": castle[seat],
            "king_bonus": king[seat],
            "master_points": master[seat],
            "collision": gained - castle[seat] - king[seat] - master[seat],
            "gained": gained,
            "score": scores[seat],
        })
    return {"phase": state.phase, "master_card": state.master_card, "seats": seats}


#: The stages in which a phase is under way, so that "if it ended now" has an answer: a turn, a card being kept,
#: and the king's move before the phase it opens (the engine has already counted that phase). Not the setup (no
#: king yet) and not after the end.
_PREVIEW_STAGES = frozenset({"turn", "keep_card", "move_king"})


def phase_preview(state: State) -> dict[str, Any] | None:
    """What the end of the current phase would pay if it ended in this very position (`scoring_breakdown`), for a
    player to see the coming scoring while playing; None where no phase is under way. Like the breakdown it reads
    public fields only, so it is the same for every reader and may go to a spectator."""
    if state.stage not in _PREVIEW_STAGES:
        return None
    return scoring_breakdown(state)


def scored_between(before: State, after: State) -> dict[str, Any] | None:
    """The breakdown of the phase scoring that happened between two consecutive states (`after` is `before`
    with one action applied), or None if that action scored no phase. The action that scores is the last
    `end_turn` of a phase, which changes neither the board nor the scores before the scoring, so the breakdown is
    `before`'s; its scores are checked against `after`'s, so a future rule that breaks this fails loudly."""
    ended = (after.stage == "over" and before.stage != "over") or (
        after.stage == "move_king" and after.phase == before.phase + 1)
    if not ended:
        return None
    breakdown = scoring_breakdown(before)
    reached = [seat["score"] for seat in breakdown["seats"]]
    if reached != list(after.scores):
        raise ValueError(f"the phase {before.phase} scoring of this position gives {reached}, "
                         f"not the scores after it {list(after.scores)}: not consecutive states")
    return breakdown

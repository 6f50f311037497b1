from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.scored_castle import ScoredCastle


T = TypeVar("T", bound="SeatScoring")


@_attrs_define
class SeatScoring:
    """
    Attributes:
        seat (int | Unset):
        castles (list[ScoredCastle] | Unset): each castle counted
        castle_points (int | Unset):
        king_bonus (int | Unset): 5 / 10 / 15 for a knight at exactly the phase's level in the king's castle
        master_points (int | Unset): the master card's points (0 without one)
        collision (int | Unset): squares added by the rule that no two players share a positive score (RULES 8)
        gained (int | Unset): castle_points + king_bonus + master_points + collision
        score (int | Unset): the score after this scoring
    """

    seat: int | Unset = UNSET
    castles: list[ScoredCastle] | Unset = UNSET
    castle_points: int | Unset = UNSET
    king_bonus: int | Unset = UNSET
    master_points: int | Unset = UNSET
    collision: int | Unset = UNSET
    gained: int | Unset = UNSET
    score: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        seat = self.seat

        castles: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.castles, Unset):
            castles = []
            for castles_item_data in self.castles:
                castles_item = castles_item_data.to_dict()
                castles.append(castles_item)

        castle_points = self.castle_points

        king_bonus = self.king_bonus

        master_points = self.master_points

        collision = self.collision

        gained = self.gained

        score = self.score

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if seat is not UNSET:
            field_dict["seat"] = seat
        if castles is not UNSET:
            field_dict["castles"] = castles
        if castle_points is not UNSET:
            field_dict["castle_points"] = castle_points
        if king_bonus is not UNSET:
            field_dict["king_bonus"] = king_bonus
        if master_points is not UNSET:
            field_dict["master_points"] = master_points
        if collision is not UNSET:
            field_dict["collision"] = collision
        if gained is not UNSET:
            field_dict["gained"] = gained
        if score is not UNSET:
            field_dict["score"] = score

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.scored_castle import ScoredCastle

        d = dict(src_dict)
        seat = d.pop("seat", UNSET)

        _castles = d.pop("castles", UNSET)
        castles: list[ScoredCastle] | Unset = UNSET
        if _castles is not UNSET:
            castles = []
            for castles_item_data in _castles:
                castles_item = ScoredCastle.from_dict(castles_item_data)

                castles.append(castles_item)

        castle_points = d.pop("castle_points", UNSET)

        king_bonus = d.pop("king_bonus", UNSET)

        master_points = d.pop("master_points", UNSET)

        collision = d.pop("collision", UNSET)

        gained = d.pop("gained", UNSET)

        score = d.pop("score", UNSET)

        seat_scoring = cls(
            seat=seat,
            castles=castles,
            castle_points=castle_points,
            king_bonus=king_bonus,
            master_points=master_points,
            collision=collision,
            gained=gained,
            score=score,
        )

        return seat_scoring

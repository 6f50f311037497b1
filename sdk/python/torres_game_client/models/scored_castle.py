from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ScoredCastle")


@_attrs_define
class ScoredCastle:
    """
    Attributes:
        castle (int | Unset): index into the response's `castles`
        area (int | Unset):
        level (int | Unset): highest level of the seat's knights in that castle
        points (int | Unset): area x level
    """

    castle: int | Unset = UNSET
    area: int | Unset = UNSET
    level: int | Unset = UNSET
    points: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        castle = self.castle

        area = self.area

        level = self.level

        points = self.points

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if castle is not UNSET:
            field_dict["castle"] = castle
        if area is not UNSET:
            field_dict["area"] = area
        if level is not UNSET:
            field_dict["level"] = level
        if points is not UNSET:
            field_dict["points"] = points

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        castle = d.pop("castle", UNSET)

        area = d.pop("area", UNSET)

        level = d.pop("level", UNSET)

        points = d.pop("points", UNSET)

        scored_castle = cls(
            castle=castle,
            area=area,
            level=level,
            points=points,
        )

        return scored_castle

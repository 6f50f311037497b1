from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Castle")


@_attrs_define
class Castle:
    """
    Attributes:
        squares (list[str] | Unset): its squares, A1 B1 ... H8 order
        area (int | Unset): base area (number of squares)
        king (bool | Unset): the king stands in it
    """

    squares: list[str] | Unset = UNSET
    area: int | Unset = UNSET
    king: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        squares: list[str] | Unset = UNSET
        if not isinstance(self.squares, Unset):
            squares = self.squares

        area = self.area

        king = self.king

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if squares is not UNSET:
            field_dict["squares"] = squares
        if area is not UNSET:
            field_dict["area"] = area
        if king is not UNSET:
            field_dict["king"] = king

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        squares = cast(list[str], d.pop("squares", UNSET))

        area = d.pop("area", UNSET)

        king = d.pop("king", UNSET)

        castle = cls(
            squares=squares,
            area=area,
            king=king,
        )

        return castle

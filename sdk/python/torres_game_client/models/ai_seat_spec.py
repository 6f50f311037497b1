from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.ai_seat_spec_kind import AiSeatSpecKind
from ..models.ai_seat_spec_level import AiSeatSpecLevel
from ..types import UNSET, Unset

T = TypeVar("T", bound="AiSeatSpec")


@_attrs_define
class AiSeatSpec:
    """
    Attributes:
        kind (AiSeatSpecKind):
        level (AiSeatSpecLevel | Unset): default: easy
        display_name (str | Unset): what clients call the seat (default: Seat <n>)
    """

    kind: AiSeatSpecKind
    level: AiSeatSpecLevel | Unset = UNSET
    display_name: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        level: str | Unset = UNSET
        if not isinstance(self.level, Unset):
            level = self.level.value

        display_name = self.display_name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if level is not UNSET:
            field_dict["level"] = level
        if display_name is not UNSET:
            field_dict["display_name"] = display_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = AiSeatSpecKind(d.pop("kind"))

        _level = d.pop("level", UNSET)
        level: AiSeatSpecLevel | Unset
        if isinstance(_level, Unset):
            level = UNSET
        else:
            level = AiSeatSpecLevel(_level)

        display_name = d.pop("display_name", UNSET)

        ai_seat_spec = cls(
            kind=kind,
            level=level,
            display_name=display_name,
        )

        return ai_seat_spec

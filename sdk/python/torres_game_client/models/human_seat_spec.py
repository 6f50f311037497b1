from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.human_seat_spec_kind import HumanSeatSpecKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="HumanSeatSpec")


@_attrs_define
class HumanSeatSpec:
    """
    Attributes:
        kind (HumanSeatSpecKind):
        player_id (str | Unset): the matchmaker's or portal's id of the player
        display_name (str | Unset): what clients call the seat (default: Seat <n>)
    """

    kind: HumanSeatSpecKind
    player_id: str | Unset = UNSET
    display_name: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        player_id = self.player_id

        display_name = self.display_name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if player_id is not UNSET:
            field_dict["player_id"] = player_id
        if display_name is not UNSET:
            field_dict["display_name"] = display_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = HumanSeatSpecKind(d.pop("kind"))

        player_id = d.pop("player_id", UNSET)

        display_name = d.pop("display_name", UNSET)

        human_seat_spec = cls(
            kind=kind,
            player_id=player_id,
            display_name=display_name,
        )

        return human_seat_spec

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Seat")


@_attrs_define
class Seat:
    """
    Attributes:
        seat (int | Unset):
        kind (str | Unset):
        player_id (None | str | Unset):
        level (str | Unset):
        display_name (str | Unset): the portal's name for the seat, when it gave one
        token (str | Unset): secret seat token (human seats, creation only)
    """

    seat: int | Unset = UNSET
    kind: str | Unset = UNSET
    player_id: None | str | Unset = UNSET
    level: str | Unset = UNSET
    display_name: str | Unset = UNSET
    token: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        seat = self.seat

        kind = self.kind

        player_id: None | str | Unset
        if isinstance(self.player_id, Unset):
            player_id = UNSET
        else:
            player_id = self.player_id

        level = self.level

        display_name = self.display_name

        token = self.token

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if seat is not UNSET:
            field_dict["seat"] = seat
        if kind is not UNSET:
            field_dict["kind"] = kind
        if player_id is not UNSET:
            field_dict["player_id"] = player_id
        if level is not UNSET:
            field_dict["level"] = level
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if token is not UNSET:
            field_dict["token"] = token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        seat = d.pop("seat", UNSET)

        kind = d.pop("kind", UNSET)

        def _parse_player_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        player_id = _parse_player_id(d.pop("player_id", UNSET))

        level = d.pop("level", UNSET)

        display_name = d.pop("display_name", UNSET)

        token = d.pop("token", UNSET)

        seat = cls(
            seat=seat,
            kind=kind,
            player_id=player_id,
            level=level,
            display_name=display_name,
            token=token,
        )

        return seat

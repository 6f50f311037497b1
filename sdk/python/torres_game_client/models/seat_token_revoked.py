from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SeatTokenRevoked")


@_attrs_define
class SeatTokenRevoked:
    """
    Attributes:
        game_id (str | Unset):
        seat (int | Unset):
        generation (int | Unset): 1 for the first reissue; the creation's token is 0
        revoked (bool | Unset):
    """

    game_id: str | Unset = UNSET
    seat: int | Unset = UNSET
    generation: int | Unset = UNSET
    revoked: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        seat = self.seat

        generation = self.generation

        revoked = self.revoked

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if seat is not UNSET:
            field_dict["seat"] = seat
        if generation is not UNSET:
            field_dict["generation"] = generation
        if revoked is not UNSET:
            field_dict["revoked"] = revoked

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        seat = d.pop("seat", UNSET)

        generation = d.pop("generation", UNSET)

        revoked = d.pop("revoked", UNSET)

        seat_token_revoked = cls(
            game_id=game_id,
            seat=seat,
            generation=generation,
            revoked=revoked,
        )

        return seat_token_revoked

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SeatToken")


@_attrs_define
class SeatToken:
    """
    Attributes:
        game_id (str | Unset):
        seat (int | Unset):
        generation (int | Unset): 1 for the first reissue; the creation's token is 0
        token (str | Unset): the seat's new token, shown this once (only its hash is kept); every earlier token of the
            seat is now refused
        expires_at (str | Unset):
    """

    game_id: str | Unset = UNSET
    seat: int | Unset = UNSET
    generation: int | Unset = UNSET
    token: str | Unset = UNSET
    expires_at: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        seat = self.seat

        generation = self.generation

        token = self.token

        expires_at = self.expires_at

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if seat is not UNSET:
            field_dict["seat"] = seat
        if generation is not UNSET:
            field_dict["generation"] = generation
        if token is not UNSET:
            field_dict["token"] = token
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        seat = d.pop("seat", UNSET)

        generation = d.pop("generation", UNSET)

        token = d.pop("token", UNSET)

        expires_at = d.pop("expires_at", UNSET)

        seat_token = cls(
            game_id=game_id,
            seat=seat,
            generation=generation,
            token=token,
            expires_at=expires_at,
        )

        return seat_token

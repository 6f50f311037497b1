from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SpectatorToken")


@_attrs_define
class SpectatorToken:
    """
    Attributes:
        game_id (str | Unset):
        token (str | Unset): send it as `Authorization: Bearer <token>` to read the game as a spectator (private games
            included) until it expires
        expires_at (str | Unset):
    """

    game_id: str | Unset = UNSET
    token: str | Unset = UNSET
    expires_at: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        token = self.token

        expires_at = self.expires_at

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if token is not UNSET:
            field_dict["token"] = token
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        token = d.pop("token", UNSET)

        expires_at = d.pop("expires_at", UNSET)

        spectator_token = cls(
            game_id=game_id,
            token=token,
            expires_at=expires_at,
        )

        return spectator_token

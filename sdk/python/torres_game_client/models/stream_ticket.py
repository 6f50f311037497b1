from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="StreamTicket")


@_attrs_define
class StreamTicket:
    """
    Attributes:
        game_id (str | Unset):
        stream_ticket (str | Unset): pass it once as `?stream_ticket=` to `/stream` or `/ws` of this game; never a seat
            token in a URL
        expires_in (int | Unset): seconds the ticket may wait before it is used
        stream_url (str | Unset): this game's SSE stream with the ticket
    """

    game_id: str | Unset = UNSET
    stream_ticket: str | Unset = UNSET
    expires_in: int | Unset = UNSET
    stream_url: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        stream_ticket = self.stream_ticket

        expires_in = self.expires_in

        stream_url = self.stream_url

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if stream_ticket is not UNSET:
            field_dict["stream_ticket"] = stream_ticket
        if expires_in is not UNSET:
            field_dict["expires_in"] = expires_in
        if stream_url is not UNSET:
            field_dict["stream_url"] = stream_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        stream_ticket = d.pop("stream_ticket", UNSET)

        expires_in = d.pop("expires_in", UNSET)

        stream_url = d.pop("stream_url", UNSET)

        stream_ticket = cls(
            game_id=game_id,
            stream_ticket=stream_ticket,
            expires_in=expires_in,
            stream_url=stream_url,
        )

        return stream_ticket

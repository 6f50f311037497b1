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
        stream_ticket (str | Unset): pass as ?stream_ticket= to the ticket's stream, once
        expires_in (float | Unset): seconds it stays valid
        stream_url (str | Unset): the stream's path with the ticket in its query
    """

    stream_ticket: str | Unset = UNSET
    expires_in: float | Unset = UNSET
    stream_url: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        stream_ticket = self.stream_ticket

        expires_in = self.expires_in

        stream_url = self.stream_url

        field_dict: dict[str, Any] = {}

        field_dict.update({})
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
        stream_ticket = d.pop("stream_ticket", UNSET)

        expires_in = d.pop("expires_in", UNSET)

        stream_url = d.pop("stream_url", UNSET)

        stream_ticket = cls(
            stream_ticket=stream_ticket,
            expires_in=expires_in,
            stream_url=stream_url,
        )

        return stream_ticket

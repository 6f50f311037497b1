from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SpectatorTokenRequest")


@_attrs_define
class SpectatorTokenRequest:
    """
    Attributes:
        ttl_seconds (int | Unset): how long the token reads the game (default one hour) Default: 3600.
    """

    ttl_seconds: int | Unset = 3600

    def to_dict(self) -> dict[str, Any]:
        ttl_seconds = self.ttl_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if ttl_seconds is not UNSET:
            field_dict["ttl_seconds"] = ttl_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        ttl_seconds = d.pop("ttl_seconds", UNSET)

        spectator_token_request = cls(
            ttl_seconds=ttl_seconds,
        )

        return spectator_token_request

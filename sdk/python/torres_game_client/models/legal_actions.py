from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="LegalActions")


@_attrs_define
class LegalActions:
    """
    Attributes:
        version (int | Unset):
        seat (int | Unset):
        actions (Any | Unset): list of actions in wire form, in the rules' stable order
    """

    version: int | Unset = UNSET
    seat: int | Unset = UNSET
    actions: Any | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        seat = self.seat

        actions = self.actions

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if seat is not UNSET:
            field_dict["seat"] = seat
        if actions is not UNSET:
            field_dict["actions"] = actions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        version = d.pop("version", UNSET)

        seat = d.pop("seat", UNSET)

        actions = d.pop("actions", UNSET)

        legal_actions = cls(
            version=version,
            seat=seat,
            actions=actions,
        )

        return legal_actions

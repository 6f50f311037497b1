from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Wait")


@_attrs_define
class Wait:
    """
    Attributes:
        game_id (str | Unset):
        version (int | Unset):
        changed (bool | Unset):
    """

    game_id: str | Unset = UNSET
    version: int | Unset = UNSET
    changed: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        version = self.version

        changed = self.changed

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if version is not UNSET:
            field_dict["version"] = version
        if changed is not UNSET:
            field_dict["changed"] = changed

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        version = d.pop("version", UNSET)

        changed = d.pop("changed", UNSET)

        wait = cls(
            game_id=game_id,
            version=version,
            changed=changed,
        )

        return wait

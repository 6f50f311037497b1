from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Inconsistency")


@_attrs_define
class Inconsistency:
    """
    Attributes:
        version (int | Unset):
        reason (str | Unset):
    """

    version: int | Unset = UNSET
    reason: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        version = d.pop("version", UNSET)

        reason = d.pop("reason", UNSET)

        inconsistency = cls(
            version=version,
            reason=reason,
        )

        return inconsistency

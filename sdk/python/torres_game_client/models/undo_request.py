from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UndoRequest")


@_attrs_define
class UndoRequest:
    """
    Attributes:
        seat (int):
        expected_version (int):
        command_id (str): repeat it to retry safely
    """

    seat: int
    expected_version: int
    command_id: str

    def to_dict(self) -> dict[str, Any]:
        seat = self.seat

        expected_version = self.expected_version

        command_id = self.command_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "seat": seat,
                "expected_version": expected_version,
                "command_id": command_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        seat = d.pop("seat")

        expected_version = d.pop("expected_version")

        command_id = d.pop("command_id")

        undo_request = cls(
            seat=seat,
            expected_version=expected_version,
            command_id=command_id,
        )

        return undo_request

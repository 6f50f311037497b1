from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.action_request_action import ActionRequestAction


T = TypeVar("T", bound="ActionRequest")


@_attrs_define
class ActionRequest:
    """
    Attributes:
        seat (int):
        action (ActionRequestAction): an action in the rules package's wire form (docs/rules-contract.md)
        expected_version (int):
        command_id (str): repeat it to retry safely
    """

    seat: int
    action: ActionRequestAction
    expected_version: int
    command_id: str

    def to_dict(self) -> dict[str, Any]:
        seat = self.seat

        action = self.action.to_dict()

        expected_version = self.expected_version

        command_id = self.command_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "seat": seat,
                "action": action,
                "expected_version": expected_version,
                "command_id": command_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.action_request_action import ActionRequestAction

        d = dict(src_dict)
        seat = d.pop("seat")

        action = ActionRequestAction.from_dict(d.pop("action"))

        expected_version = d.pop("expected_version")

        command_id = d.pop("command_id")

        action_request = cls(
            seat=seat,
            action=action,
            expected_version=expected_version,
            command_id=command_id,
        )

        return action_request

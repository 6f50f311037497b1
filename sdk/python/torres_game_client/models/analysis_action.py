from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.analysis_action_action import AnalysisActionAction


T = TypeVar("T", bound="AnalysisAction")


@_attrs_define
class AnalysisAction:
    """
    Attributes:
        action (AnalysisActionAction | Unset): the action in wire form (as POST /actions takes it)
        text (str | Unset): the engine's short notation, e.g. `build D4 stack 0`
    """

    action: AnalysisActionAction | Unset = UNSET
    text: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        action: dict[str, Any] | Unset = UNSET
        if not isinstance(self.action, Unset):
            action = self.action.to_dict()

        text = self.text

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if action is not UNSET:
            field_dict["action"] = action
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.analysis_action_action import AnalysisActionAction

        d = dict(src_dict)
        _action = d.pop("action", UNSET)
        action: AnalysisActionAction | Unset
        if isinstance(_action, Unset):
            action = UNSET
        else:
            action = AnalysisActionAction.from_dict(_action)

        text = d.pop("text", UNSET)

        analysis_action = cls(
            action=action,
            text=text,
        )

        return analysis_action

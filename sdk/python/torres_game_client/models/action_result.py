from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.event import Event


T = TypeVar("T", bound="ActionResult")


@_attrs_define
class ActionResult:
    """
    Attributes:
        version (int | Unset):
        events (list[Event] | Unset):
        legal_actions (Any | Unset): the acting seat's legal actions at the new version (empty when its turn is over):
            saves a GET /legal-actions while the seat keeps moving
    """

    version: int | Unset = UNSET
    events: list[Event] | Unset = UNSET
    legal_actions: Any | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        events: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.to_dict()
                events.append(events_item)

        legal_actions = self.legal_actions

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if events is not UNSET:
            field_dict["events"] = events
        if legal_actions is not UNSET:
            field_dict["legal_actions"] = legal_actions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.event import Event

        d = dict(src_dict)
        version = d.pop("version", UNSET)

        _events = d.pop("events", UNSET)
        events: list[Event] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = Event.from_dict(events_item_data)

                events.append(events_item)

        legal_actions = d.pop("legal_actions", UNSET)

        action_result = cls(
            version=version,
            events=events,
            legal_actions=legal_actions,
        )

        return action_result

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.event import Event


T = TypeVar("T", bound="LifecycleResult")


@_attrs_define
class LifecycleResult:
    """
    Attributes:
        game_id (str | Unset):
        version (int | Unset):
        status (str | Unset): "over" once the game has ended (with a game_ended event)
        events (list[Event] | Unset):
    """

    game_id: str | Unset = UNSET
    version: int | Unset = UNSET
    status: str | Unset = UNSET
    events: list[Event] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        version = self.version

        status = self.status

        events: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.to_dict()
                events.append(events_item)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if version is not UNSET:
            field_dict["version"] = version
        if status is not UNSET:
            field_dict["status"] = status
        if events is not UNSET:
            field_dict["events"] = events

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.event import Event

        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        version = d.pop("version", UNSET)

        status = d.pop("status", UNSET)

        _events = d.pop("events", UNSET)
        events: list[Event] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = Event.from_dict(events_item_data)

                events.append(events_item)

        lifecycle_result = cls(
            game_id=game_id,
            version=version,
            status=status,
            events=events,
        )

        return lifecycle_result

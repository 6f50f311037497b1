from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.event import Event


T = TypeVar("T", bound="EventPage")


@_attrs_define
class EventPage:
    """
    Attributes:
        game_id (str | Unset):
        version (int | Unset):
        events (list[Event] | Unset):
        next_after (int | Unset):
        redacted (bool | Unset):
    """

    game_id: str | Unset = UNSET
    version: int | Unset = UNSET
    events: list[Event] | Unset = UNSET
    next_after: int | Unset = UNSET
    redacted: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        version = self.version

        events: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.to_dict()
                events.append(events_item)

        next_after = self.next_after

        redacted = self.redacted

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if version is not UNSET:
            field_dict["version"] = version
        if events is not UNSET:
            field_dict["events"] = events
        if next_after is not UNSET:
            field_dict["next_after"] = next_after
        if redacted is not UNSET:
            field_dict["redacted"] = redacted

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.event import Event

        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        version = d.pop("version", UNSET)

        _events = d.pop("events", UNSET)
        events: list[Event] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = Event.from_dict(events_item_data)

                events.append(events_item)

        next_after = d.pop("next_after", UNSET)

        redacted = d.pop("redacted", UNSET)

        event_page = cls(
            game_id=game_id,
            version=version,
            events=events,
            next_after=next_after,
            redacted=redacted,
        )

        return event_page

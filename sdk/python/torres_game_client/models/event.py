from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.event_payload import EventPayload


T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """
    Attributes:
        version (int | Unset):
        type_ (str | Unset):
        payload (EventPayload | Unset):
        schema_version (int | Unset):
        created_at (str | Unset):
        command_id (str | Unset):
        prev_hash (str | Unset):
        hash_ (str | Unset):
        position (int | Unset):
        game_id (str | Unset):
        text (str | Unset): the event in words for a move log (actions: the engine's action_text of the payload as this
            reader sees it)
    """

    version: int | Unset = UNSET
    type_: str | Unset = UNSET
    payload: EventPayload | Unset = UNSET
    schema_version: int | Unset = UNSET
    created_at: str | Unset = UNSET
    command_id: str | Unset = UNSET
    prev_hash: str | Unset = UNSET
    hash_: str | Unset = UNSET
    position: int | Unset = UNSET
    game_id: str | Unset = UNSET
    text: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        type_ = self.type_

        payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.payload, Unset):
            payload = self.payload.to_dict()

        schema_version = self.schema_version

        created_at = self.created_at

        command_id = self.command_id

        prev_hash = self.prev_hash

        hash_ = self.hash_

        position = self.position

        game_id = self.game_id

        text = self.text

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if type_ is not UNSET:
            field_dict["type"] = type_
        if payload is not UNSET:
            field_dict["payload"] = payload
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if command_id is not UNSET:
            field_dict["command_id"] = command_id
        if prev_hash is not UNSET:
            field_dict["prev_hash"] = prev_hash
        if hash_ is not UNSET:
            field_dict["hash"] = hash_
        if position is not UNSET:
            field_dict["position"] = position
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.event_payload import EventPayload

        d = dict(src_dict)
        version = d.pop("version", UNSET)

        type_ = d.pop("type", UNSET)

        _payload = d.pop("payload", UNSET)
        payload: EventPayload | Unset
        if isinstance(_payload, Unset):
            payload = UNSET
        else:
            payload = EventPayload.from_dict(_payload)

        schema_version = d.pop("schema_version", UNSET)

        created_at = d.pop("created_at", UNSET)

        command_id = d.pop("command_id", UNSET)

        prev_hash = d.pop("prev_hash", UNSET)

        hash_ = d.pop("hash", UNSET)

        position = d.pop("position", UNSET)

        game_id = d.pop("game_id", UNSET)

        text = d.pop("text", UNSET)

        event = cls(
            version=version,
            type_=type_,
            payload=payload,
            schema_version=schema_version,
            created_at=created_at,
            command_id=command_id,
            prev_hash=prev_hash,
            hash_=hash_,
            position=position,
            game_id=game_id,
            text=text,
        )

        return event

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.record_event_payload import RecordEventPayload


T = TypeVar("T", bound="RecordEvent")


@_attrs_define
class RecordEvent:
    """
    Attributes:
        version (int | Unset):
        type_ (str | Unset):
        payload (RecordEventPayload | Unset):
        schema_version (int | Unset):
        created_at (str | Unset):
        command_id (str | Unset):
        prev_hash (str | Unset):
        hash_ (str | Unset):
        redacted (bool | Unset): present (true) when the payload is withheld from the reader
        content_hash (str | Unset): the withheld event's content hash (chain check)
    """

    version: int | Unset = UNSET
    type_: str | Unset = UNSET
    payload: RecordEventPayload | Unset = UNSET
    schema_version: int | Unset = UNSET
    created_at: str | Unset = UNSET
    command_id: str | Unset = UNSET
    prev_hash: str | Unset = UNSET
    hash_: str | Unset = UNSET
    redacted: bool | Unset = UNSET
    content_hash: str | Unset = UNSET

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

        redacted = self.redacted

        content_hash = self.content_hash

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
        if redacted is not UNSET:
            field_dict["redacted"] = redacted
        if content_hash is not UNSET:
            field_dict["content_hash"] = content_hash

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.record_event_payload import RecordEventPayload

        d = dict(src_dict)
        version = d.pop("version", UNSET)

        type_ = d.pop("type", UNSET)

        _payload = d.pop("payload", UNSET)
        payload: RecordEventPayload | Unset
        if isinstance(_payload, Unset):
            payload = UNSET
        else:
            payload = RecordEventPayload.from_dict(_payload)

        schema_version = d.pop("schema_version", UNSET)

        created_at = d.pop("created_at", UNSET)

        command_id = d.pop("command_id", UNSET)

        prev_hash = d.pop("prev_hash", UNSET)

        hash_ = d.pop("hash", UNSET)

        redacted = d.pop("redacted", UNSET)

        content_hash = d.pop("content_hash", UNSET)

        record_event = cls(
            version=version,
            type_=type_,
            payload=payload,
            schema_version=schema_version,
            created_at=created_at,
            command_id=command_id,
            prev_hash=prev_hash,
            hash_=hash_,
            redacted=redacted,
            content_hash=content_hash,
        )

        return record_event

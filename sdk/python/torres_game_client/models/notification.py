from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.notification_payload import NotificationPayload


T = TypeVar("T", bound="Notification")


@_attrs_define
class Notification:
    """
    Attributes:
        version (int | Unset):
        type_ (str | Unset):
        payload (NotificationPayload | Unset):
        created_at (str | Unset):
        position (int | Unset):
        game_id (str | Unset):
        text (str | Unset): the event in words for a move log (actions: the engine's action_text of the payload as this
            reader sees it)
    """

    version: int | Unset = UNSET
    type_: str | Unset = UNSET
    payload: NotificationPayload | Unset = UNSET
    created_at: str | Unset = UNSET
    position: int | Unset = UNSET
    game_id: str | Unset = UNSET
    text: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        type_ = self.type_

        payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.payload, Unset):
            payload = self.payload.to_dict()

        created_at = self.created_at

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
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if position is not UNSET:
            field_dict["position"] = position
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.notification_payload import NotificationPayload

        d = dict(src_dict)
        version = d.pop("version", UNSET)

        type_ = d.pop("type", UNSET)

        _payload = d.pop("payload", UNSET)
        payload: NotificationPayload | Unset
        if isinstance(_payload, Unset):
            payload = UNSET
        else:
            payload = NotificationPayload.from_dict(_payload)

        created_at = d.pop("created_at", UNSET)

        position = d.pop("position", UNSET)

        game_id = d.pop("game_id", UNSET)

        text = d.pop("text", UNSET)

        notification = cls(
            version=version,
            type_=type_,
            payload=payload,
            created_at=created_at,
            position=position,
            game_id=game_id,
            text=text,
        )

        return notification

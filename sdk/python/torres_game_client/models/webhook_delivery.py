from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.webhook_delivery_status import WebhookDeliveryStatus
from ..models.webhook_delivery_type import WebhookDeliveryType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.webhook_delivery_payload import WebhookDeliveryPayload


T = TypeVar("T", bound="WebhookDelivery")


@_attrs_define
class WebhookDelivery:
    """
    Attributes:
        cursor (int | Unset): pass as `after` to read the deliveries after this one
        delivery_id (str | Unset): the X-Torres-Delivery id every attempt carries
        type_ (WebhookDeliveryType | Unset):
        game_id (str | Unset):
        created_at (str | Unset): when the event that caused it was recorded
        status (WebhookDeliveryStatus | Unset):
        attempts (int | Unset):
        last_status (int | None | Unset): the endpoint's last HTTP status
        last_error (None | str | Unset):
        delivered_at (None | str | Unset):
        payload (WebhookDeliveryPayload | Unset): the body that was (or will be) posted, as JSON
    """

    cursor: int | Unset = UNSET
    delivery_id: str | Unset = UNSET
    type_: WebhookDeliveryType | Unset = UNSET
    game_id: str | Unset = UNSET
    created_at: str | Unset = UNSET
    status: WebhookDeliveryStatus | Unset = UNSET
    attempts: int | Unset = UNSET
    last_status: int | None | Unset = UNSET
    last_error: None | str | Unset = UNSET
    delivered_at: None | str | Unset = UNSET
    payload: WebhookDeliveryPayload | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        cursor = self.cursor

        delivery_id = self.delivery_id

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value

        game_id = self.game_id

        created_at = self.created_at

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        attempts = self.attempts

        last_status: int | None | Unset
        if isinstance(self.last_status, Unset):
            last_status = UNSET
        else:
            last_status = self.last_status

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        delivered_at: None | str | Unset
        if isinstance(self.delivered_at, Unset):
            delivered_at = UNSET
        else:
            delivered_at = self.delivered_at

        payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.payload, Unset):
            payload = self.payload.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if cursor is not UNSET:
            field_dict["cursor"] = cursor
        if delivery_id is not UNSET:
            field_dict["delivery_id"] = delivery_id
        if type_ is not UNSET:
            field_dict["type"] = type_
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if status is not UNSET:
            field_dict["status"] = status
        if attempts is not UNSET:
            field_dict["attempts"] = attempts
        if last_status is not UNSET:
            field_dict["last_status"] = last_status
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if delivered_at is not UNSET:
            field_dict["delivered_at"] = delivered_at
        if payload is not UNSET:
            field_dict["payload"] = payload

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.webhook_delivery_payload import WebhookDeliveryPayload

        d = dict(src_dict)
        cursor = d.pop("cursor", UNSET)

        delivery_id = d.pop("delivery_id", UNSET)

        _type_ = d.pop("type", UNSET)
        type_: WebhookDeliveryType | Unset
        if isinstance(_type_, Unset):
            type_ = UNSET
        else:
            type_ = WebhookDeliveryType(_type_)

        game_id = d.pop("game_id", UNSET)

        created_at = d.pop("created_at", UNSET)

        _status = d.pop("status", UNSET)
        status: WebhookDeliveryStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = WebhookDeliveryStatus(_status)

        attempts = d.pop("attempts", UNSET)

        def _parse_last_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_status = _parse_last_status(d.pop("last_status", UNSET))

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        def _parse_delivered_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        delivered_at = _parse_delivered_at(d.pop("delivered_at", UNSET))

        _payload = d.pop("payload", UNSET)
        payload: WebhookDeliveryPayload | Unset
        if isinstance(_payload, Unset):
            payload = UNSET
        else:
            payload = WebhookDeliveryPayload.from_dict(_payload)

        webhook_delivery = cls(
            cursor=cursor,
            delivery_id=delivery_id,
            type_=type_,
            game_id=game_id,
            created_at=created_at,
            status=status,
            attempts=attempts,
            last_status=last_status,
            last_error=last_error,
            delivered_at=delivered_at,
            payload=payload,
        )

        return webhook_delivery

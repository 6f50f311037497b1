from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.notification import Notification


T = TypeVar("T", bound="NotificationPage")


@_attrs_define
class NotificationPage:
    """
    Attributes:
        notifications (list[Notification] | Unset):
        next_after (int | Unset):
    """

    notifications: list[Notification] | Unset = UNSET
    next_after: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        notifications: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.notifications, Unset):
            notifications = []
            for notifications_item_data in self.notifications:
                notifications_item = notifications_item_data.to_dict()
                notifications.append(notifications_item)

        next_after = self.next_after

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if notifications is not UNSET:
            field_dict["notifications"] = notifications
        if next_after is not UNSET:
            field_dict["next_after"] = next_after

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.notification import Notification

        d = dict(src_dict)
        _notifications = d.pop("notifications", UNSET)
        notifications: list[Notification] | Unset = UNSET
        if _notifications is not UNSET:
            notifications = []
            for notifications_item_data in _notifications:
                notifications_item = Notification.from_dict(notifications_item_data)

                notifications.append(notifications_item)

        next_after = d.pop("next_after", UNSET)

        notification_page = cls(
            notifications=notifications,
            next_after=next_after,
        )

        return notification_page

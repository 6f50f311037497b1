from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.queues_queues import QueuesQueues


T = TypeVar("T", bound="Queues")


@_attrs_define
class Queues:
    """
    Attributes:
        queues (QueuesQueues | Unset):
    """

    queues: QueuesQueues | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        queues: dict[str, Any] | Unset = UNSET
        if not isinstance(self.queues, Unset):
            queues = self.queues.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if queues is not UNSET:
            field_dict["queues"] = queues

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.queues_queues import QueuesQueues

        d = dict(src_dict)
        _queues = d.pop("queues", UNSET)
        queues: QueuesQueues | Unset
        if isinstance(_queues, Unset):
            queues = UNSET
        else:
            queues = QueuesQueues.from_dict(_queues)

        queues = cls(
            queues=queues,
        )

        return queues

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.ready_game_service import ReadyGameService
from ..models.ready_redis import ReadyRedis
from ..models.ready_status import ReadyStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="Ready")


@_attrs_define
class Ready:
    """
    Attributes:
        status (ReadyStatus | Unset):
        redis (ReadyRedis | Unset):
        game_service (ReadyGameService | Unset):
    """

    status: ReadyStatus | Unset = UNSET
    redis: ReadyRedis | Unset = UNSET
    game_service: ReadyGameService | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        redis: str | Unset = UNSET
        if not isinstance(self.redis, Unset):
            redis = self.redis.value

        game_service: str | Unset = UNSET
        if not isinstance(self.game_service, Unset):
            game_service = self.game_service.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if status is not UNSET:
            field_dict["status"] = status
        if redis is not UNSET:
            field_dict["redis"] = redis
        if game_service is not UNSET:
            field_dict["game_service"] = game_service

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _status = d.pop("status", UNSET)
        status: ReadyStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = ReadyStatus(_status)

        _redis = d.pop("redis", UNSET)
        redis: ReadyRedis | Unset
        if isinstance(_redis, Unset):
            redis = UNSET
        else:
            redis = ReadyRedis(_redis)

        _game_service = d.pop("game_service", UNSET)
        game_service: ReadyGameService | Unset
        if isinstance(_game_service, Unset):
            game_service = UNSET
        else:
            game_service = ReadyGameService(_game_service)

        ready = cls(
            status=status,
            redis=redis,
            game_service=game_service,
        )

        return ready

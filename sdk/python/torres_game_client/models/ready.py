from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.ready_backend import ReadyBackend
from ..models.ready_status import ReadyStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="Ready")


@_attrs_define
class Ready:
    """
    Attributes:
        status (ReadyStatus | Unset):
        backend (ReadyBackend | Unset):
        migrations (list[int] | Unset): applied migration numbers
    """

    status: ReadyStatus | Unset = UNSET
    backend: ReadyBackend | Unset = UNSET
    migrations: list[int] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        backend: str | Unset = UNSET
        if not isinstance(self.backend, Unset):
            backend = self.backend.value

        migrations: list[int] | Unset = UNSET
        if not isinstance(self.migrations, Unset):
            migrations = self.migrations

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if status is not UNSET:
            field_dict["status"] = status
        if backend is not UNSET:
            field_dict["backend"] = backend
        if migrations is not UNSET:
            field_dict["migrations"] = migrations

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

        _backend = d.pop("backend", UNSET)
        backend: ReadyBackend | Unset
        if isinstance(_backend, Unset):
            backend = UNSET
        else:
            backend = ReadyBackend(_backend)

        migrations = cast(list[int], d.pop("migrations", UNSET))

        ready = cls(
            status=status,
            backend=backend,
            migrations=migrations,
        )

        return ready

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.inconsistency import Inconsistency
    from ..models.verify_first_inconsistency_type_0_type_0 import (
        VerifyFirstInconsistencyType0Type0,
    )


T = TypeVar("T", bound="Verify")


@_attrs_define
class Verify:
    """
    Attributes:
        game_id (str | Unset):
        ok (bool | Unset):
        events (int | Unset):
        version (int | Unset):
        first_inconsistency (Inconsistency | None | Unset | VerifyFirstInconsistencyType0Type0):
    """

    game_id: str | Unset = UNSET
    ok: bool | Unset = UNSET
    events: int | Unset = UNSET
    version: int | Unset = UNSET
    first_inconsistency: (
        Inconsistency | None | Unset | VerifyFirstInconsistencyType0Type0
    ) = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.inconsistency import Inconsistency
        from ..models.verify_first_inconsistency_type_0_type_0 import (
            VerifyFirstInconsistencyType0Type0,
        )

        game_id = self.game_id

        ok = self.ok

        events = self.events

        version = self.version

        first_inconsistency: dict[str, Any] | None | Unset
        if isinstance(self.first_inconsistency, Unset):
            first_inconsistency = UNSET
        elif isinstance(
            self.first_inconsistency, VerifyFirstInconsistencyType0Type0
        ) or isinstance(self.first_inconsistency, Inconsistency):
            first_inconsistency = self.first_inconsistency.to_dict()
        else:
            first_inconsistency = self.first_inconsistency

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if ok is not UNSET:
            field_dict["ok"] = ok
        if events is not UNSET:
            field_dict["events"] = events
        if version is not UNSET:
            field_dict["version"] = version
        if first_inconsistency is not UNSET:
            field_dict["first_inconsistency"] = first_inconsistency

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.inconsistency import Inconsistency
        from ..models.verify_first_inconsistency_type_0_type_0 import (
            VerifyFirstInconsistencyType0Type0,
        )

        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        ok = d.pop("ok", UNSET)

        events = d.pop("events", UNSET)

        version = d.pop("version", UNSET)

        def _parse_first_inconsistency(
            data: object,
        ) -> Inconsistency | None | Unset | VerifyFirstInconsistencyType0Type0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                first_inconsistency_type_0_type_0 = (
                    VerifyFirstInconsistencyType0Type0.from_dict(data)
                )

                return first_inconsistency_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                first_inconsistency_type_1 = Inconsistency.from_dict(data)

                return first_inconsistency_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                Inconsistency | None | Unset | VerifyFirstInconsistencyType0Type0, data
            )

        first_inconsistency = _parse_first_inconsistency(
            d.pop("first_inconsistency", UNSET)
        )

        verify = cls(
            game_id=game_id,
            ok=ok,
            events=events,
            version=version,
            first_inconsistency=first_inconsistency,
        )

        return verify

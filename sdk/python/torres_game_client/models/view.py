from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.castle import Castle
    from ..models.view_lifecycle import ViewLifecycle
    from ..models.view_view import ViewView


T = TypeVar("T", bound="View")


@_attrs_define
class View:
    """
    Attributes:
        version (int | Unset):
        seat (int | None | Unset):
        view (ViewView | Unset):
        castles (list[Castle] | Unset): the castles of the position (RULES 1), from the rules engine, ordered by their
            lowest square; a client draws them from here instead of re-deriving them
        lifecycle (ViewLifecycle | Unset): public online-play state: clock (banks, deadline of the seat to move),
            forfeited and AI-played seats, undo
    """

    version: int | Unset = UNSET
    seat: int | None | Unset = UNSET
    view: ViewView | Unset = UNSET
    castles: list[Castle] | Unset = UNSET
    lifecycle: ViewLifecycle | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        seat: int | None | Unset
        if isinstance(self.seat, Unset):
            seat = UNSET
        else:
            seat = self.seat

        view: dict[str, Any] | Unset = UNSET
        if not isinstance(self.view, Unset):
            view = self.view.to_dict()

        castles: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.castles, Unset):
            castles = []
            for castles_item_data in self.castles:
                castles_item = castles_item_data.to_dict()
                castles.append(castles_item)

        lifecycle: dict[str, Any] | Unset = UNSET
        if not isinstance(self.lifecycle, Unset):
            lifecycle = self.lifecycle.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if seat is not UNSET:
            field_dict["seat"] = seat
        if view is not UNSET:
            field_dict["view"] = view
        if castles is not UNSET:
            field_dict["castles"] = castles
        if lifecycle is not UNSET:
            field_dict["lifecycle"] = lifecycle

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.castle import Castle
        from ..models.view_lifecycle import ViewLifecycle
        from ..models.view_view import ViewView

        d = dict(src_dict)
        version = d.pop("version", UNSET)

        def _parse_seat(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seat = _parse_seat(d.pop("seat", UNSET))

        _view = d.pop("view", UNSET)
        view: ViewView | Unset
        if isinstance(_view, Unset):
            view = UNSET
        else:
            view = ViewView.from_dict(_view)

        _castles = d.pop("castles", UNSET)
        castles: list[Castle] | Unset = UNSET
        if _castles is not UNSET:
            castles = []
            for castles_item_data in _castles:
                castles_item = Castle.from_dict(castles_item_data)

                castles.append(castles_item)

        _lifecycle = d.pop("lifecycle", UNSET)
        lifecycle: ViewLifecycle | Unset
        if isinstance(_lifecycle, Unset):
            lifecycle = UNSET
        else:
            lifecycle = ViewLifecycle.from_dict(_lifecycle)

        view = cls(
            version=version,
            seat=seat,
            view=view,
            castles=castles,
            lifecycle=lifecycle,
        )

        return view

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.castle import Castle
    from ..models.scoring import Scoring
    from ..models.view_lifecycle import ViewLifecycle
    from ..models.view_preview_type_1_type_0 import ViewPreviewType1Type0
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
        preview (None | Scoring | Unset | ViewPreviewType1Type0): what the end of the current phase would pay if it
            ended in this position (the rules engine's scoring breakdown, castles indexed into `castles`; public facts only,
            the same for every reader); null during the setup and after the end
        lifecycle (ViewLifecycle | Unset): public online-play state: clock (banks, deadline of the seat to move),
            forfeited and AI-played seats, undo
    """

    version: int | Unset = UNSET
    seat: int | None | Unset = UNSET
    view: ViewView | Unset = UNSET
    castles: list[Castle] | Unset = UNSET
    preview: None | Scoring | Unset | ViewPreviewType1Type0 = UNSET
    lifecycle: ViewLifecycle | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.scoring import Scoring
        from ..models.view_preview_type_1_type_0 import ViewPreviewType1Type0

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

        preview: dict[str, Any] | None | Unset
        if isinstance(self.preview, Unset):
            preview = UNSET
        elif isinstance(self.preview, Scoring) or isinstance(
            self.preview, ViewPreviewType1Type0
        ):
            preview = self.preview.to_dict()
        else:
            preview = self.preview

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
        if preview is not UNSET:
            field_dict["preview"] = preview
        if lifecycle is not UNSET:
            field_dict["lifecycle"] = lifecycle

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.castle import Castle
        from ..models.scoring import Scoring
        from ..models.view_lifecycle import ViewLifecycle
        from ..models.view_preview_type_1_type_0 import ViewPreviewType1Type0
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

        def _parse_preview(
            data: object,
        ) -> None | Scoring | Unset | ViewPreviewType1Type0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                preview_type_0 = Scoring.from_dict(data)

                return preview_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                preview_type_1_type_0 = ViewPreviewType1Type0.from_dict(data)

                return preview_type_1_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Scoring | Unset | ViewPreviewType1Type0, data)

        preview = _parse_preview(d.pop("preview", UNSET))

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
            preview=preview,
            lifecycle=lifecycle,
        )

        return view

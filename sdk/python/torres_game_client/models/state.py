from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.castle import Castle
    from ..models.scoring import Scoring
    from ..models.state_position import StatePosition
    from ..models.state_scoring_type_1_type_0 import StateScoringType1Type0
    from ..models.state_view import StateView


T = TypeVar("T", bound="State")


@_attrs_define
class State:
    """
    Attributes:
        version (int | Unset):
        seat (int | None | Unset):
        position (StatePosition | Unset): full position JSON (admin key or game over)
        view (StateView | Unset): the seat's view at that version (seat token), or the spectator's (no credentials, game
            not over)
        castles (list[Castle] | Unset): the castles of the position (RULES 1), from the rules engine, ordered by their
            lowest square; a client draws them from here instead of re-deriving them
        scoring (None | Scoring | StateScoringType1Type0 | Unset): when the event at this version ended a phase (the
            phase's last `end_turn`): that phase scoring's breakdown per seat, computed by the rules engine; null at every
            other version
    """

    version: int | Unset = UNSET
    seat: int | None | Unset = UNSET
    position: StatePosition | Unset = UNSET
    view: StateView | Unset = UNSET
    castles: list[Castle] | Unset = UNSET
    scoring: None | Scoring | StateScoringType1Type0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.scoring import Scoring
        from ..models.state_scoring_type_1_type_0 import StateScoringType1Type0

        version = self.version

        seat: int | None | Unset
        if isinstance(self.seat, Unset):
            seat = UNSET
        else:
            seat = self.seat

        position: dict[str, Any] | Unset = UNSET
        if not isinstance(self.position, Unset):
            position = self.position.to_dict()

        view: dict[str, Any] | Unset = UNSET
        if not isinstance(self.view, Unset):
            view = self.view.to_dict()

        castles: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.castles, Unset):
            castles = []
            for castles_item_data in self.castles:
                castles_item = castles_item_data.to_dict()
                castles.append(castles_item)

        scoring: dict[str, Any] | None | Unset
        if isinstance(self.scoring, Unset):
            scoring = UNSET
        elif isinstance(self.scoring, Scoring) or isinstance(
            self.scoring, StateScoringType1Type0
        ):
            scoring = self.scoring.to_dict()
        else:
            scoring = self.scoring

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version
        if seat is not UNSET:
            field_dict["seat"] = seat
        if position is not UNSET:
            field_dict["position"] = position
        if view is not UNSET:
            field_dict["view"] = view
        if castles is not UNSET:
            field_dict["castles"] = castles
        if scoring is not UNSET:
            field_dict["scoring"] = scoring

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.castle import Castle
        from ..models.scoring import Scoring
        from ..models.state_position import StatePosition
        from ..models.state_scoring_type_1_type_0 import StateScoringType1Type0
        from ..models.state_view import StateView

        d = dict(src_dict)
        version = d.pop("version", UNSET)

        def _parse_seat(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seat = _parse_seat(d.pop("seat", UNSET))

        _position = d.pop("position", UNSET)
        position: StatePosition | Unset
        if isinstance(_position, Unset):
            position = UNSET
        else:
            position = StatePosition.from_dict(_position)

        _view = d.pop("view", UNSET)
        view: StateView | Unset
        if isinstance(_view, Unset):
            view = UNSET
        else:
            view = StateView.from_dict(_view)

        _castles = d.pop("castles", UNSET)
        castles: list[Castle] | Unset = UNSET
        if _castles is not UNSET:
            castles = []
            for castles_item_data in _castles:
                castles_item = Castle.from_dict(castles_item_data)

                castles.append(castles_item)

        def _parse_scoring(
            data: object,
        ) -> None | Scoring | StateScoringType1Type0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scoring_type_0 = Scoring.from_dict(data)

                return scoring_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scoring_type_1_type_0 = StateScoringType1Type0.from_dict(data)

                return scoring_type_1_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Scoring | StateScoringType1Type0 | Unset, data)

        scoring = _parse_scoring(d.pop("scoring", UNSET))

        state = cls(
            version=version,
            seat=seat,
            position=position,
            view=view,
            castles=castles,
            scoring=scoring,
        )

        return state

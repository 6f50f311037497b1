from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.seat_scoring import SeatScoring


T = TypeVar("T", bound="Scoring")


@_attrs_define
class Scoring:
    """
    Attributes:
        phase (int | Unset):
        master_card (None | str | Unset):
        seats (list[SeatScoring] | Unset):
    """

    phase: int | Unset = UNSET
    master_card: None | str | Unset = UNSET
    seats: list[SeatScoring] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        phase = self.phase

        master_card: None | str | Unset
        if isinstance(self.master_card, Unset):
            master_card = UNSET
        else:
            master_card = self.master_card

        seats: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.seats, Unset):
            seats = []
            for seats_item_data in self.seats:
                seats_item = seats_item_data.to_dict()
                seats.append(seats_item)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if phase is not UNSET:
            field_dict["phase"] = phase
        if master_card is not UNSET:
            field_dict["master_card"] = master_card
        if seats is not UNSET:
            field_dict["seats"] = seats

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.seat_scoring import SeatScoring

        d = dict(src_dict)
        phase = d.pop("phase", UNSET)

        def _parse_master_card(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        master_card = _parse_master_card(d.pop("master_card", UNSET))

        _seats = d.pop("seats", UNSET)
        seats: list[SeatScoring] | Unset = UNSET
        if _seats is not UNSET:
            seats = []
            for seats_item_data in _seats:
                seats_item = SeatScoring.from_dict(seats_item_data)

                seats.append(seats_item)

        scoring = cls(
            phase=phase,
            master_card=master_card,
            seats=seats,
        )

        return scoring

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.game_created_visibility import GameCreatedVisibility
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.seat import Seat


T = TypeVar("T", bound="GameCreated")


@_attrs_define
class GameCreated:
    """
    Attributes:
        game_id (str | Unset):
        version (int | Unset):
        visibility (GameCreatedVisibility | Unset):
        seed_commitment (str | Unset): SHA-256 of the secret seed, revealed at the end
        seats (list[Seat] | Unset):
        external_id (None | str | Unset):
        labels (list[str] | Unset):
    """

    game_id: str | Unset = UNSET
    version: int | Unset = UNSET
    visibility: GameCreatedVisibility | Unset = UNSET
    seed_commitment: str | Unset = UNSET
    seats: list[Seat] | Unset = UNSET
    external_id: None | str | Unset = UNSET
    labels: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        version = self.version

        visibility: str | Unset = UNSET
        if not isinstance(self.visibility, Unset):
            visibility = self.visibility.value

        seed_commitment = self.seed_commitment

        seats: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.seats, Unset):
            seats = []
            for seats_item_data in self.seats:
                seats_item = seats_item_data.to_dict()
                seats.append(seats_item)

        external_id: None | str | Unset
        if isinstance(self.external_id, Unset):
            external_id = UNSET
        else:
            external_id = self.external_id

        labels: list[str] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if version is not UNSET:
            field_dict["version"] = version
        if visibility is not UNSET:
            field_dict["visibility"] = visibility
        if seed_commitment is not UNSET:
            field_dict["seed_commitment"] = seed_commitment
        if seats is not UNSET:
            field_dict["seats"] = seats
        if external_id is not UNSET:
            field_dict["external_id"] = external_id
        if labels is not UNSET:
            field_dict["labels"] = labels

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.seat import Seat

        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        version = d.pop("version", UNSET)

        _visibility = d.pop("visibility", UNSET)
        visibility: GameCreatedVisibility | Unset
        if isinstance(_visibility, Unset):
            visibility = UNSET
        else:
            visibility = GameCreatedVisibility(_visibility)

        seed_commitment = d.pop("seed_commitment", UNSET)

        _seats = d.pop("seats", UNSET)
        seats: list[Seat] | Unset = UNSET
        if _seats is not UNSET:
            seats = []
            for seats_item_data in _seats:
                seats_item = Seat.from_dict(seats_item_data)

                seats.append(seats_item)

        def _parse_external_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        external_id = _parse_external_id(d.pop("external_id", UNSET))

        labels = cast(list[str], d.pop("labels", UNSET))

        game_created = cls(
            game_id=game_id,
            version=version,
            visibility=visibility,
            seed_commitment=seed_commitment,
            seats=seats,
            external_id=external_id,
            labels=labels,
        )

        return game_created

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Rating")


@_attrs_define
class Rating:
    """
    Attributes:
        player_id (str | Unset):
        mu (float | Unset):
        sigma (float | Unset):
        ordinal (float | Unset): mu - 3 sigma: the leaderboard's order
        games (int | Unset):
    """

    player_id: str | Unset = UNSET
    mu: float | Unset = UNSET
    sigma: float | Unset = UNSET
    ordinal: float | Unset = UNSET
    games: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        player_id = self.player_id

        mu = self.mu

        sigma = self.sigma

        ordinal = self.ordinal

        games = self.games

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if player_id is not UNSET:
            field_dict["player_id"] = player_id
        if mu is not UNSET:
            field_dict["mu"] = mu
        if sigma is not UNSET:
            field_dict["sigma"] = sigma
        if ordinal is not UNSET:
            field_dict["ordinal"] = ordinal
        if games is not UNSET:
            field_dict["games"] = games

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        player_id = d.pop("player_id", UNSET)

        mu = d.pop("mu", UNSET)

        sigma = d.pop("sigma", UNSET)

        ordinal = d.pop("ordinal", UNSET)

        games = d.pop("games", UNSET)

        rating = cls(
            player_id=player_id,
            mu=mu,
            sigma=sigma,
            ordinal=ordinal,
            games=games,
        )

        return rating

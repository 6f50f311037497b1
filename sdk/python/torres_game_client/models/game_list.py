from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.game_summary import GameSummary


T = TypeVar("T", bound="GameList")


@_attrs_define
class GameList:
    """
    Attributes:
        games (list[GameSummary] | Unset):
        limit (int | Unset):
        next_cursor (None | str | Unset): pass it as `cursor` for the next page; null on the last page
    """

    games: list[GameSummary] | Unset = UNSET
    limit: int | Unset = UNSET
    next_cursor: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        games: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.games, Unset):
            games = []
            for games_item_data in self.games:
                games_item = games_item_data.to_dict()
                games.append(games_item)

        limit = self.limit

        next_cursor: None | str | Unset
        if isinstance(self.next_cursor, Unset):
            next_cursor = UNSET
        else:
            next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if games is not UNSET:
            field_dict["games"] = games
        if limit is not UNSET:
            field_dict["limit"] = limit
        if next_cursor is not UNSET:
            field_dict["next_cursor"] = next_cursor

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.game_summary import GameSummary

        d = dict(src_dict)
        _games = d.pop("games", UNSET)
        games: list[GameSummary] | Unset = UNSET
        if _games is not UNSET:
            games = []
            for games_item_data in _games:
                games_item = GameSummary.from_dict(games_item_data)

                games.append(games_item)

        limit = d.pop("limit", UNSET)

        def _parse_next_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor", UNSET))

        game_list = cls(
            games=games,
            limit=limit,
            next_cursor=next_cursor,
        )

        return game_list

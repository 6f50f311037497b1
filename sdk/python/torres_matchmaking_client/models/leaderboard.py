from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.leaderboard_entry import LeaderboardEntry


T = TypeVar("T", bound="Leaderboard")


@_attrs_define
class Leaderboard:
    """
    Attributes:
        entries (list[LeaderboardEntry] | Unset):
        total (int | Unset):
        limit (int | Unset):
        offset (int | Unset):
    """

    entries: list[LeaderboardEntry] | Unset = UNSET
    total: int | Unset = UNSET
    limit: int | Unset = UNSET
    offset: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        entries: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.entries, Unset):
            entries = []
            for entries_item_data in self.entries:
                entries_item = entries_item_data.to_dict()
                entries.append(entries_item)

        total = self.total

        limit = self.limit

        offset = self.offset

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if entries is not UNSET:
            field_dict["entries"] = entries
        if total is not UNSET:
            field_dict["total"] = total
        if limit is not UNSET:
            field_dict["limit"] = limit
        if offset is not UNSET:
            field_dict["offset"] = offset

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.leaderboard_entry import LeaderboardEntry

        d = dict(src_dict)
        _entries = d.pop("entries", UNSET)
        entries: list[LeaderboardEntry] | Unset = UNSET
        if _entries is not UNSET:
            entries = []
            for entries_item_data in _entries:
                entries_item = LeaderboardEntry.from_dict(entries_item_data)

                entries.append(entries_item)

        total = d.pop("total", UNSET)

        limit = d.pop("limit", UNSET)

        offset = d.pop("offset", UNSET)

        leaderboard = cls(
            entries=entries,
            total=total,
            limit=limit,
            offset=offset,
        )

        return leaderboard

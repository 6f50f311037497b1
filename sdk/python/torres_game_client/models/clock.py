from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Clock")


@_attrs_define
class Clock:
    """
    Attributes:
        turn_seconds (float | Unset): limit per turn
        bank_seconds (float | Unset): time bank per seat for the whole game
        increment_seconds (float | Unset): added to a seat's bank after each of its turns
    """

    turn_seconds: float | Unset = UNSET
    bank_seconds: float | Unset = UNSET
    increment_seconds: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        turn_seconds = self.turn_seconds

        bank_seconds = self.bank_seconds

        increment_seconds = self.increment_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if turn_seconds is not UNSET:
            field_dict["turn_seconds"] = turn_seconds
        if bank_seconds is not UNSET:
            field_dict["bank_seconds"] = bank_seconds
        if increment_seconds is not UNSET:
            field_dict["increment_seconds"] = increment_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        turn_seconds = d.pop("turn_seconds", UNSET)

        bank_seconds = d.pop("bank_seconds", UNSET)

        increment_seconds = d.pop("increment_seconds", UNSET)

        clock = cls(
            turn_seconds=turn_seconds,
            bank_seconds=bank_seconds,
            increment_seconds=increment_seconds,
        )

        return clock

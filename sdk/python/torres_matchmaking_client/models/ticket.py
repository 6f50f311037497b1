from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.ticket_status import TicketStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="Ticket")


@_attrs_define
class Ticket:
    """
    Attributes:
        ticket_id (str | Unset):
        player_id (str | Unset):
        status (TicketStatus | Unset):
        edition (str | Unset):
        master (bool | Unset):
        player_counts (list[int] | Unset):
        rating (float | Unset): the player's mu when the ticket was created
        max_wait_seconds (float | None | Unset):
        created_at (float | Unset): Unix time
        expires_at (float | Unset):
        ended_at (float | Unset):
        callback_url (str | Unset): when the ticket has one
        game_id (str | Unset): matched only
        seat (int | Unset): matched only
        seat_token (str | Unset): matched only: the secret seat token for the game service
    """

    ticket_id: str | Unset = UNSET
    player_id: str | Unset = UNSET
    status: TicketStatus | Unset = UNSET
    edition: str | Unset = UNSET
    master: bool | Unset = UNSET
    player_counts: list[int] | Unset = UNSET
    rating: float | Unset = UNSET
    max_wait_seconds: float | None | Unset = UNSET
    created_at: float | Unset = UNSET
    expires_at: float | Unset = UNSET
    ended_at: float | Unset = UNSET
    callback_url: str | Unset = UNSET
    game_id: str | Unset = UNSET
    seat: int | Unset = UNSET
    seat_token: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        ticket_id = self.ticket_id

        player_id = self.player_id

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        edition = self.edition

        master = self.master

        player_counts: list[int] | Unset = UNSET
        if not isinstance(self.player_counts, Unset):
            player_counts = self.player_counts

        rating = self.rating

        max_wait_seconds: float | None | Unset
        if isinstance(self.max_wait_seconds, Unset):
            max_wait_seconds = UNSET
        else:
            max_wait_seconds = self.max_wait_seconds

        created_at = self.created_at

        expires_at = self.expires_at

        ended_at = self.ended_at

        callback_url = self.callback_url

        game_id = self.game_id

        seat = self.seat

        seat_token = self.seat_token

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if ticket_id is not UNSET:
            field_dict["ticket_id"] = ticket_id
        if player_id is not UNSET:
            field_dict["player_id"] = player_id
        if status is not UNSET:
            field_dict["status"] = status
        if edition is not UNSET:
            field_dict["edition"] = edition
        if master is not UNSET:
            field_dict["master"] = master
        if player_counts is not UNSET:
            field_dict["player_counts"] = player_counts
        if rating is not UNSET:
            field_dict["rating"] = rating
        if max_wait_seconds is not UNSET:
            field_dict["max_wait_seconds"] = max_wait_seconds
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if callback_url is not UNSET:
            field_dict["callback_url"] = callback_url
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if seat is not UNSET:
            field_dict["seat"] = seat
        if seat_token is not UNSET:
            field_dict["seat_token"] = seat_token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        ticket_id = d.pop("ticket_id", UNSET)

        player_id = d.pop("player_id", UNSET)

        _status = d.pop("status", UNSET)
        status: TicketStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = TicketStatus(_status)

        edition = d.pop("edition", UNSET)

        master = d.pop("master", UNSET)

        player_counts = cast(list[int], d.pop("player_counts", UNSET))

        rating = d.pop("rating", UNSET)

        def _parse_max_wait_seconds(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_wait_seconds = _parse_max_wait_seconds(d.pop("max_wait_seconds", UNSET))

        created_at = d.pop("created_at", UNSET)

        expires_at = d.pop("expires_at", UNSET)

        ended_at = d.pop("ended_at", UNSET)

        callback_url = d.pop("callback_url", UNSET)

        game_id = d.pop("game_id", UNSET)

        seat = d.pop("seat", UNSET)

        seat_token = d.pop("seat_token", UNSET)

        ticket = cls(
            ticket_id=ticket_id,
            player_id=player_id,
            status=status,
            edition=edition,
            master=master,
            player_counts=player_counts,
            rating=rating,
            max_wait_seconds=max_wait_seconds,
            created_at=created_at,
            expires_at=expires_at,
            ended_at=ended_at,
            callback_url=callback_url,
            game_id=game_id,
            seat=seat,
            seat_token=seat_token,
        )

        return ticket

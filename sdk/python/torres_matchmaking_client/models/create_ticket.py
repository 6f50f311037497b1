from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.create_ticket_edition import CreateTicketEdition
from ..models.create_ticket_player_counts_item import CreateTicketPlayerCountsItem
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateTicket")


@_attrs_define
class CreateTicket:
    """
    Attributes:
        player_counts (list[CreateTicketPlayerCountsItem]):
        edition (CreateTicketEdition | Unset):  Default: CreateTicketEdition.RIO_GRANDE.
        master (bool | Unset):  Default: False.
        max_wait_seconds (float | None | Unset): seconds before AI seats may complete the game; null = humans only
            (default: the server's MM_DEFAULT_MAX_WAIT); at most the ticket's lifetime (ttl_seconds, else the server's
            default), or 400
        ttl_seconds (float | Unset): the ticket expires if unmatched this long (default 300)
        callback_url (str | Unset): POSTed the ticket once it is matched, cancelled or expired (signed: X-Torres-
            Signature = sha256=HMAC(secret, X-Torres-Timestamp + '.' + body); retried with back-off until a 2xx; at least
            once, dedupe by X-Torres-Delivery). Only when the server has a webhook secret.
    """

    player_counts: list[CreateTicketPlayerCountsItem]
    edition: CreateTicketEdition | Unset = CreateTicketEdition.RIO_GRANDE
    master: bool | Unset = False
    max_wait_seconds: float | None | Unset = UNSET
    ttl_seconds: float | Unset = UNSET
    callback_url: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        player_counts = []
        for player_counts_item_data in self.player_counts:
            player_counts_item = player_counts_item_data.value
            player_counts.append(player_counts_item)

        edition: str | Unset = UNSET
        if not isinstance(self.edition, Unset):
            edition = self.edition.value

        master = self.master

        max_wait_seconds: float | None | Unset
        if isinstance(self.max_wait_seconds, Unset):
            max_wait_seconds = UNSET
        else:
            max_wait_seconds = self.max_wait_seconds

        ttl_seconds = self.ttl_seconds

        callback_url = self.callback_url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "player_counts": player_counts,
            }
        )
        if edition is not UNSET:
            field_dict["edition"] = edition
        if master is not UNSET:
            field_dict["master"] = master
        if max_wait_seconds is not UNSET:
            field_dict["max_wait_seconds"] = max_wait_seconds
        if ttl_seconds is not UNSET:
            field_dict["ttl_seconds"] = ttl_seconds
        if callback_url is not UNSET:
            field_dict["callback_url"] = callback_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        player_counts = []
        _player_counts = d.pop("player_counts")
        for player_counts_item_data in _player_counts:
            player_counts_item = CreateTicketPlayerCountsItem(player_counts_item_data)

            player_counts.append(player_counts_item)

        _edition = d.pop("edition", UNSET)
        edition: CreateTicketEdition | Unset
        if isinstance(_edition, Unset):
            edition = UNSET
        else:
            edition = CreateTicketEdition(_edition)

        master = d.pop("master", UNSET)

        def _parse_max_wait_seconds(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_wait_seconds = _parse_max_wait_seconds(d.pop("max_wait_seconds", UNSET))

        ttl_seconds = d.pop("ttl_seconds", UNSET)

        callback_url = d.pop("callback_url", UNSET)

        create_ticket = cls(
            player_counts=player_counts,
            edition=edition,
            master=master,
            max_wait_seconds=max_wait_seconds,
            ttl_seconds=ttl_seconds,
            callback_url=callback_url,
        )

        return create_ticket

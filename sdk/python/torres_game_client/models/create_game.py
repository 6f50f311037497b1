from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.create_game_edition import CreateGameEdition
from ..models.create_game_visibility import CreateGameVisibility
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.ai_seat_spec import AiSeatSpec
    from ..models.clock import Clock
    from ..models.create_game_options import CreateGameOptions
    from ..models.human_seat_spec import HumanSeatSpec
    from ..models.timeout_policy import TimeoutPolicy


T = TypeVar("T", bound="CreateGame")


@_attrs_define
class CreateGame:
    """
    Attributes:
        seats (list[AiSeatSpec | HumanSeatSpec]):
        edition (CreateGameEdition | Unset):  Default: CreateGameEdition.RIO_GRANDE.
        master (bool | Unset):  Default: False.
        options (CreateGameOptions | Unset): single rule options overriding the edition's (docs/rules.md, docs/rules-
            engine.md)
        clock (Clock | Unset):
        timeout (TimeoutPolicy | Unset):
        undo (bool | Unset): may the seat to move take back its actions (default true)
        visibility (CreateGameVisibility | Unset): who may watch: public (anyone with the id; the portal may list it in
            its lobby), unlisted (anyone with the id, never advertised; the default), private (seat tokens, the tenant's
            key, spectator tokens the tenant issues; everyone else gets 404) Default: CreateGameVisibility.UNLISTED.
        tenant (str | Unset): the tenant the game is for: only with an internal service's key (the matcher), which
            belongs to no tenant; a tenant's key creates its own
        external_id (str | Unset): the portal's own id for the game, unique per tenant: a creation with an id used
            before answers that game again (as an Idempotency-Key does; with both, this decides); sent by a tenant's key
            only (an internal key's: 400)
        labels (list[str] | Unset): what the portal files the game under; `GET /v1/games?label=` lists a label's games
    """

    seats: list[AiSeatSpec | HumanSeatSpec]
    edition: CreateGameEdition | Unset = CreateGameEdition.RIO_GRANDE
    master: bool | Unset = False
    options: CreateGameOptions | Unset = UNSET
    clock: Clock | Unset = UNSET
    timeout: TimeoutPolicy | Unset = UNSET
    undo: bool | Unset = UNSET
    visibility: CreateGameVisibility | Unset = CreateGameVisibility.UNLISTED
    tenant: str | Unset = UNSET
    external_id: str | Unset = UNSET
    labels: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.human_seat_spec import HumanSeatSpec

        seats = []
        for seats_item_data in self.seats:
            seats_item: dict[str, Any]
            if isinstance(seats_item_data, HumanSeatSpec):
                seats_item = seats_item_data.to_dict()
            else:
                seats_item = seats_item_data.to_dict()

            seats.append(seats_item)

        edition: str | Unset = UNSET
        if not isinstance(self.edition, Unset):
            edition = self.edition.value

        master = self.master

        options: dict[str, Any] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = self.options.to_dict()

        clock: dict[str, Any] | Unset = UNSET
        if not isinstance(self.clock, Unset):
            clock = self.clock.to_dict()

        timeout: dict[str, Any] | Unset = UNSET
        if not isinstance(self.timeout, Unset):
            timeout = self.timeout.to_dict()

        undo = self.undo

        visibility: str | Unset = UNSET
        if not isinstance(self.visibility, Unset):
            visibility = self.visibility.value

        tenant = self.tenant

        external_id = self.external_id

        labels: list[str] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "seats": seats,
            }
        )
        if edition is not UNSET:
            field_dict["edition"] = edition
        if master is not UNSET:
            field_dict["master"] = master
        if options is not UNSET:
            field_dict["options"] = options
        if clock is not UNSET:
            field_dict["clock"] = clock
        if timeout is not UNSET:
            field_dict["timeout"] = timeout
        if undo is not UNSET:
            field_dict["undo"] = undo
        if visibility is not UNSET:
            field_dict["visibility"] = visibility
        if tenant is not UNSET:
            field_dict["tenant"] = tenant
        if external_id is not UNSET:
            field_dict["external_id"] = external_id
        if labels is not UNSET:
            field_dict["labels"] = labels

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.ai_seat_spec import AiSeatSpec
        from ..models.clock import Clock
        from ..models.create_game_options import CreateGameOptions
        from ..models.human_seat_spec import HumanSeatSpec
        from ..models.timeout_policy import TimeoutPolicy

        d = dict(src_dict)
        seats = []
        _seats = d.pop("seats")
        for seats_item_data in _seats:

            def _parse_seats_item(data: object) -> AiSeatSpec | HumanSeatSpec:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    seats_item_type_0 = HumanSeatSpec.from_dict(data)

                    return seats_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                seats_item_type_1 = AiSeatSpec.from_dict(data)

                return seats_item_type_1

            seats_item = _parse_seats_item(seats_item_data)

            seats.append(seats_item)

        _edition = d.pop("edition", UNSET)
        edition: CreateGameEdition | Unset
        if isinstance(_edition, Unset):
            edition = UNSET
        else:
            edition = CreateGameEdition(_edition)

        master = d.pop("master", UNSET)

        _options = d.pop("options", UNSET)
        options: CreateGameOptions | Unset
        if isinstance(_options, Unset):
            options = UNSET
        else:
            options = CreateGameOptions.from_dict(_options)

        _clock = d.pop("clock", UNSET)
        clock: Clock | Unset
        if isinstance(_clock, Unset):
            clock = UNSET
        else:
            clock = Clock.from_dict(_clock)

        _timeout = d.pop("timeout", UNSET)
        timeout: TimeoutPolicy | Unset
        if isinstance(_timeout, Unset):
            timeout = UNSET
        else:
            timeout = TimeoutPolicy.from_dict(_timeout)

        undo = d.pop("undo", UNSET)

        _visibility = d.pop("visibility", UNSET)
        visibility: CreateGameVisibility | Unset
        if isinstance(_visibility, Unset):
            visibility = UNSET
        else:
            visibility = CreateGameVisibility(_visibility)

        tenant = d.pop("tenant", UNSET)

        external_id = d.pop("external_id", UNSET)

        labels = cast(list[str], d.pop("labels", UNSET))

        create_game = cls(
            seats=seats,
            edition=edition,
            master=master,
            options=options,
            clock=clock,
            timeout=timeout,
            undo=undo,
            visibility=visibility,
            tenant=tenant,
            external_id=external_id,
            labels=labels,
        )

        return create_game

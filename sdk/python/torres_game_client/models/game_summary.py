from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.game_summary_visibility import GameSummaryVisibility
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.game_summary_options import GameSummaryOptions
    from ..models.seat import Seat


T = TypeVar("T", bound="GameSummary")


@_attrs_define
class GameSummary:
    """
    Attributes:
        game_id (str | Unset):
        status (str | Unset):
        version (int | Unset):
        visibility (GameSummaryVisibility | Unset):
        edition (str | Unset):
        master (bool | Unset):
        options (GameSummaryOptions | Unset):
        seats (list[Seat] | Unset):
        stage (None | str | Unset):
        phase (int | None | Unset):
        round_ (int | None | Unset):
        to_move (int | None | Unset):
        scores (list[int] | Unset):
        winner (int | None | Unset): the one seat ranked first; null while the game runs and when several seats share
            the first place (an abandoned game with equal scores)
        winners (list[int] | Unset): every seat ranked first: one seat, several on a tie, none while the game runs
        deadline (None | str | Unset): when the seat to move runs out of time
        created_at (str | Unset):
        external_id (None | str | Unset): the portal's own id for the game
        labels (list[str] | Unset):
    """

    game_id: str | Unset = UNSET
    status: str | Unset = UNSET
    version: int | Unset = UNSET
    visibility: GameSummaryVisibility | Unset = UNSET
    edition: str | Unset = UNSET
    master: bool | Unset = UNSET
    options: GameSummaryOptions | Unset = UNSET
    seats: list[Seat] | Unset = UNSET
    stage: None | str | Unset = UNSET
    phase: int | None | Unset = UNSET
    round_: int | None | Unset = UNSET
    to_move: int | None | Unset = UNSET
    scores: list[int] | Unset = UNSET
    winner: int | None | Unset = UNSET
    winners: list[int] | Unset = UNSET
    deadline: None | str | Unset = UNSET
    created_at: str | Unset = UNSET
    external_id: None | str | Unset = UNSET
    labels: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        game_id = self.game_id

        status = self.status

        version = self.version

        visibility: str | Unset = UNSET
        if not isinstance(self.visibility, Unset):
            visibility = self.visibility.value

        edition = self.edition

        master = self.master

        options: dict[str, Any] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = self.options.to_dict()

        seats: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.seats, Unset):
            seats = []
            for seats_item_data in self.seats:
                seats_item = seats_item_data.to_dict()
                seats.append(seats_item)

        stage: None | str | Unset
        if isinstance(self.stage, Unset):
            stage = UNSET
        else:
            stage = self.stage

        phase: int | None | Unset
        if isinstance(self.phase, Unset):
            phase = UNSET
        else:
            phase = self.phase

        round_: int | None | Unset
        if isinstance(self.round_, Unset):
            round_ = UNSET
        else:
            round_ = self.round_

        to_move: int | None | Unset
        if isinstance(self.to_move, Unset):
            to_move = UNSET
        else:
            to_move = self.to_move

        scores: list[int] | Unset = UNSET
        if not isinstance(self.scores, Unset):
            scores = self.scores

        winner: int | None | Unset
        if isinstance(self.winner, Unset):
            winner = UNSET
        else:
            winner = self.winner

        winners: list[int] | Unset = UNSET
        if not isinstance(self.winners, Unset):
            winners = self.winners

        deadline: None | str | Unset
        if isinstance(self.deadline, Unset):
            deadline = UNSET
        else:
            deadline = self.deadline

        created_at = self.created_at

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
        if status is not UNSET:
            field_dict["status"] = status
        if version is not UNSET:
            field_dict["version"] = version
        if visibility is not UNSET:
            field_dict["visibility"] = visibility
        if edition is not UNSET:
            field_dict["edition"] = edition
        if master is not UNSET:
            field_dict["master"] = master
        if options is not UNSET:
            field_dict["options"] = options
        if seats is not UNSET:
            field_dict["seats"] = seats
        if stage is not UNSET:
            field_dict["stage"] = stage
        if phase is not UNSET:
            field_dict["phase"] = phase
        if round_ is not UNSET:
            field_dict["round"] = round_
        if to_move is not UNSET:
            field_dict["to_move"] = to_move
        if scores is not UNSET:
            field_dict["scores"] = scores
        if winner is not UNSET:
            field_dict["winner"] = winner
        if winners is not UNSET:
            field_dict["winners"] = winners
        if deadline is not UNSET:
            field_dict["deadline"] = deadline
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if external_id is not UNSET:
            field_dict["external_id"] = external_id
        if labels is not UNSET:
            field_dict["labels"] = labels

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.game_summary_options import GameSummaryOptions
        from ..models.seat import Seat

        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        status = d.pop("status", UNSET)

        version = d.pop("version", UNSET)

        _visibility = d.pop("visibility", UNSET)
        visibility: GameSummaryVisibility | Unset
        if isinstance(_visibility, Unset):
            visibility = UNSET
        else:
            visibility = GameSummaryVisibility(_visibility)

        edition = d.pop("edition", UNSET)

        master = d.pop("master", UNSET)

        _options = d.pop("options", UNSET)
        options: GameSummaryOptions | Unset
        if isinstance(_options, Unset):
            options = UNSET
        else:
            options = GameSummaryOptions.from_dict(_options)

        _seats = d.pop("seats", UNSET)
        seats: list[Seat] | Unset = UNSET
        if _seats is not UNSET:
            seats = []
            for seats_item_data in _seats:
                seats_item = Seat.from_dict(seats_item_data)

                seats.append(seats_item)

        def _parse_stage(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        stage = _parse_stage(d.pop("stage", UNSET))

        def _parse_phase(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        phase = _parse_phase(d.pop("phase", UNSET))

        def _parse_round_(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        round_ = _parse_round_(d.pop("round", UNSET))

        def _parse_to_move(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        to_move = _parse_to_move(d.pop("to_move", UNSET))

        scores = cast(list[int], d.pop("scores", UNSET))

        def _parse_winner(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        winner = _parse_winner(d.pop("winner", UNSET))

        winners = cast(list[int], d.pop("winners", UNSET))

        def _parse_deadline(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deadline = _parse_deadline(d.pop("deadline", UNSET))

        created_at = d.pop("created_at", UNSET)

        def _parse_external_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        external_id = _parse_external_id(d.pop("external_id", UNSET))

        labels = cast(list[str], d.pop("labels", UNSET))

        game_summary = cls(
            game_id=game_id,
            status=status,
            version=version,
            visibility=visibility,
            edition=edition,
            master=master,
            options=options,
            seats=seats,
            stage=stage,
            phase=phase,
            round_=round_,
            to_move=to_move,
            scores=scores,
            winner=winner,
            winners=winners,
            deadline=deadline,
            created_at=created_at,
            external_id=external_id,
            labels=labels,
        )

        return game_summary

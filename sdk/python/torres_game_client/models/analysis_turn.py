from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.analysis_action import AnalysisAction
    from ..models.analysis_turn_better_type_1_type_0 import AnalysisTurnBetterType1Type0
    from ..models.better_turn import BetterTurn


T = TypeVar("T", bound="AnalysisTurn")


@_attrs_define
class AnalysisTurn:
    """
    Attributes:
        turn (int | Unset):
        seat (int | Unset):
        phase (int | Unset):
        round_ (int | Unset):
        from_version (int | Unset): the version before the turn's first action
        to_version (int | Unset): the version of the turn's last action
        actions (list[AnalysisAction] | Unset):
        share_before (list[float] | Unset): each seat's expected final score share before the turn
        share_after (list[float] | Unset):
        win_before (list[float] | None | Unset): each seat's win probability (deep only)
        win_after (list[float] | None | Unset):
        loss (float | Unset): what the turn lost against the better turn (points of margin)
        better (AnalysisTurnBetterType1Type0 | BetterTurn | None | Unset): marked turns only
    """

    turn: int | Unset = UNSET
    seat: int | Unset = UNSET
    phase: int | Unset = UNSET
    round_: int | Unset = UNSET
    from_version: int | Unset = UNSET
    to_version: int | Unset = UNSET
    actions: list[AnalysisAction] | Unset = UNSET
    share_before: list[float] | Unset = UNSET
    share_after: list[float] | Unset = UNSET
    win_before: list[float] | None | Unset = UNSET
    win_after: list[float] | None | Unset = UNSET
    loss: float | Unset = UNSET
    better: AnalysisTurnBetterType1Type0 | BetterTurn | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.analysis_turn_better_type_1_type_0 import (
            AnalysisTurnBetterType1Type0,
        )
        from ..models.better_turn import BetterTurn

        turn = self.turn

        seat = self.seat

        phase = self.phase

        round_ = self.round_

        from_version = self.from_version

        to_version = self.to_version

        actions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.actions, Unset):
            actions = []
            for actions_item_data in self.actions:
                actions_item = actions_item_data.to_dict()
                actions.append(actions_item)

        share_before: list[float] | Unset = UNSET
        if not isinstance(self.share_before, Unset):
            share_before = self.share_before

        share_after: list[float] | Unset = UNSET
        if not isinstance(self.share_after, Unset):
            share_after = self.share_after

        win_before: list[float] | None | Unset
        if isinstance(self.win_before, Unset):
            win_before = UNSET
        elif isinstance(self.win_before, list):
            win_before = self.win_before

        else:
            win_before = self.win_before

        win_after: list[float] | None | Unset
        if isinstance(self.win_after, Unset):
            win_after = UNSET
        elif isinstance(self.win_after, list):
            win_after = self.win_after

        else:
            win_after = self.win_after

        loss = self.loss

        better: dict[str, Any] | None | Unset
        if isinstance(self.better, Unset):
            better = UNSET
        elif isinstance(self.better, BetterTurn) or isinstance(
            self.better, AnalysisTurnBetterType1Type0
        ):
            better = self.better.to_dict()
        else:
            better = self.better

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if turn is not UNSET:
            field_dict["turn"] = turn
        if seat is not UNSET:
            field_dict["seat"] = seat
        if phase is not UNSET:
            field_dict["phase"] = phase
        if round_ is not UNSET:
            field_dict["round"] = round_
        if from_version is not UNSET:
            field_dict["from_version"] = from_version
        if to_version is not UNSET:
            field_dict["to_version"] = to_version
        if actions is not UNSET:
            field_dict["actions"] = actions
        if share_before is not UNSET:
            field_dict["share_before"] = share_before
        if share_after is not UNSET:
            field_dict["share_after"] = share_after
        if win_before is not UNSET:
            field_dict["win_before"] = win_before
        if win_after is not UNSET:
            field_dict["win_after"] = win_after
        if loss is not UNSET:
            field_dict["loss"] = loss
        if better is not UNSET:
            field_dict["better"] = better

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.analysis_action import AnalysisAction
        from ..models.analysis_turn_better_type_1_type_0 import (
            AnalysisTurnBetterType1Type0,
        )
        from ..models.better_turn import BetterTurn

        d = dict(src_dict)
        turn = d.pop("turn", UNSET)

        seat = d.pop("seat", UNSET)

        phase = d.pop("phase", UNSET)

        round_ = d.pop("round", UNSET)

        from_version = d.pop("from_version", UNSET)

        to_version = d.pop("to_version", UNSET)

        _actions = d.pop("actions", UNSET)
        actions: list[AnalysisAction] | Unset = UNSET
        if _actions is not UNSET:
            actions = []
            for actions_item_data in _actions:
                actions_item = AnalysisAction.from_dict(actions_item_data)

                actions.append(actions_item)

        share_before = cast(list[float], d.pop("share_before", UNSET))

        share_after = cast(list[float], d.pop("share_after", UNSET))

        def _parse_win_before(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                win_before_type_0 = cast(list[float], data)

                return win_before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        win_before = _parse_win_before(d.pop("win_before", UNSET))

        def _parse_win_after(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                win_after_type_0 = cast(list[float], data)

                return win_after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        win_after = _parse_win_after(d.pop("win_after", UNSET))

        loss = d.pop("loss", UNSET)

        def _parse_better(
            data: object,
        ) -> AnalysisTurnBetterType1Type0 | BetterTurn | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                better_type_0 = BetterTurn.from_dict(data)

                return better_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                better_type_1_type_0 = AnalysisTurnBetterType1Type0.from_dict(data)

                return better_type_1_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AnalysisTurnBetterType1Type0 | BetterTurn | None | Unset, data)

        better = _parse_better(d.pop("better", UNSET))

        analysis_turn = cls(
            turn=turn,
            seat=seat,
            phase=phase,
            round_=round_,
            from_version=from_version,
            to_version=to_version,
            actions=actions,
            share_before=share_before,
            share_after=share_after,
            win_before=win_before,
            win_after=win_after,
            loss=loss,
            better=better,
        )

        return analysis_turn

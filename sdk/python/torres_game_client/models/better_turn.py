from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.analysis_action import AnalysisAction
    from ..models.better_turn_boards_item import BetterTurnBoardsItem


T = TypeVar("T", bound="BetterTurn")


@_attrs_define
class BetterTurn:
    """
    Attributes:
        actions (list[AnalysisAction] | Unset): the turn the search found from the seat's view at the time (and nothing
            it could not see)
        continues_after_draw (bool | Unset): the suggestion ends by buying a card: what follows depends on the card
            drawn
        margin_played (float | Unset): the seat's margin over the best opponent after the others answered the played
            turn (points)
        margin_better (float | Unset): the same after the better turn
        share_after (list[float] | Unset): each seat's expected final score share after the better turn
        win_after (list[float] | None | Unset):
        score_after (list[int] | Unset):
        boards (list[BetterTurnBoardsItem] | Unset): after each of its actions, on the true position (the game is over):
            `position` (as GET /state's) and `castles`, for a replay to play the better turn out on the board
    """

    actions: list[AnalysisAction] | Unset = UNSET
    continues_after_draw: bool | Unset = UNSET
    margin_played: float | Unset = UNSET
    margin_better: float | Unset = UNSET
    share_after: list[float] | Unset = UNSET
    win_after: list[float] | None | Unset = UNSET
    score_after: list[int] | Unset = UNSET
    boards: list[BetterTurnBoardsItem] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        actions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.actions, Unset):
            actions = []
            for actions_item_data in self.actions:
                actions_item = actions_item_data.to_dict()
                actions.append(actions_item)

        continues_after_draw = self.continues_after_draw

        margin_played = self.margin_played

        margin_better = self.margin_better

        share_after: list[float] | Unset = UNSET
        if not isinstance(self.share_after, Unset):
            share_after = self.share_after

        win_after: list[float] | None | Unset
        if isinstance(self.win_after, Unset):
            win_after = UNSET
        elif isinstance(self.win_after, list):
            win_after = self.win_after

        else:
            win_after = self.win_after

        score_after: list[int] | Unset = UNSET
        if not isinstance(self.score_after, Unset):
            score_after = self.score_after

        boards: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.boards, Unset):
            boards = []
            for boards_item_data in self.boards:
                boards_item = boards_item_data.to_dict()
                boards.append(boards_item)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if actions is not UNSET:
            field_dict["actions"] = actions
        if continues_after_draw is not UNSET:
            field_dict["continues_after_draw"] = continues_after_draw
        if margin_played is not UNSET:
            field_dict["margin_played"] = margin_played
        if margin_better is not UNSET:
            field_dict["margin_better"] = margin_better
        if share_after is not UNSET:
            field_dict["share_after"] = share_after
        if win_after is not UNSET:
            field_dict["win_after"] = win_after
        if score_after is not UNSET:
            field_dict["score_after"] = score_after
        if boards is not UNSET:
            field_dict["boards"] = boards

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.analysis_action import AnalysisAction
        from ..models.better_turn_boards_item import BetterTurnBoardsItem

        d = dict(src_dict)
        _actions = d.pop("actions", UNSET)
        actions: list[AnalysisAction] | Unset = UNSET
        if _actions is not UNSET:
            actions = []
            for actions_item_data in _actions:
                actions_item = AnalysisAction.from_dict(actions_item_data)

                actions.append(actions_item)

        continues_after_draw = d.pop("continues_after_draw", UNSET)

        margin_played = d.pop("margin_played", UNSET)

        margin_better = d.pop("margin_better", UNSET)

        share_after = cast(list[float], d.pop("share_after", UNSET))

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

        score_after = cast(list[int], d.pop("score_after", UNSET))

        _boards = d.pop("boards", UNSET)
        boards: list[BetterTurnBoardsItem] | Unset = UNSET
        if _boards is not UNSET:
            boards = []
            for boards_item_data in _boards:
                boards_item = BetterTurnBoardsItem.from_dict(boards_item_data)

                boards.append(boards_item)

        better_turn = cls(
            actions=actions,
            continues_after_draw=continues_after_draw,
            margin_played=margin_played,
            margin_better=margin_better,
            share_after=share_after,
            win_after=win_after,
            score_after=score_after,
            boards=boards,
        )

        return better_turn

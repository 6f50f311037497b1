from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.analysis_result_scorings_item import AnalysisResultScoringsItem
    from ..models.analysis_turn import AnalysisTurn


T = TypeVar("T", bound="AnalysisResult")


@_attrs_define
class AnalysisResult:
    """
    Attributes:
        engine_version (str | Unset):
        depth (str | Unset):
        players (int | Unset):
        final_scores (list[int] | Unset):
        turns (list[AnalysisTurn] | Unset):
        marked (list[int] | Unset): the turns that lost the most, worst first
        scorings (list[AnalysisResultScoringsItem] | Unset): each phase scoring with its version: the engine's
            breakdown, as GET /state's `scoring`
    """

    engine_version: str | Unset = UNSET
    depth: str | Unset = UNSET
    players: int | Unset = UNSET
    final_scores: list[int] | Unset = UNSET
    turns: list[AnalysisTurn] | Unset = UNSET
    marked: list[int] | Unset = UNSET
    scorings: list[AnalysisResultScoringsItem] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        engine_version = self.engine_version

        depth = self.depth

        players = self.players

        final_scores: list[int] | Unset = UNSET
        if not isinstance(self.final_scores, Unset):
            final_scores = self.final_scores

        turns: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.turns, Unset):
            turns = []
            for turns_item_data in self.turns:
                turns_item = turns_item_data.to_dict()
                turns.append(turns_item)

        marked: list[int] | Unset = UNSET
        if not isinstance(self.marked, Unset):
            marked = self.marked

        scorings: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.scorings, Unset):
            scorings = []
            for scorings_item_data in self.scorings:
                scorings_item = scorings_item_data.to_dict()
                scorings.append(scorings_item)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if engine_version is not UNSET:
            field_dict["engine_version"] = engine_version
        if depth is not UNSET:
            field_dict["depth"] = depth
        if players is not UNSET:
            field_dict["players"] = players
        if final_scores is not UNSET:
            field_dict["final_scores"] = final_scores
        if turns is not UNSET:
            field_dict["turns"] = turns
        if marked is not UNSET:
            field_dict["marked"] = marked
        if scorings is not UNSET:
            field_dict["scorings"] = scorings

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.analysis_result_scorings_item import AnalysisResultScoringsItem
        from ..models.analysis_turn import AnalysisTurn

        d = dict(src_dict)
        engine_version = d.pop("engine_version", UNSET)

        depth = d.pop("depth", UNSET)

        players = d.pop("players", UNSET)

        final_scores = cast(list[int], d.pop("final_scores", UNSET))

        _turns = d.pop("turns", UNSET)
        turns: list[AnalysisTurn] | Unset = UNSET
        if _turns is not UNSET:
            turns = []
            for turns_item_data in _turns:
                turns_item = AnalysisTurn.from_dict(turns_item_data)

                turns.append(turns_item)

        marked = cast(list[int], d.pop("marked", UNSET))

        _scorings = d.pop("scorings", UNSET)
        scorings: list[AnalysisResultScoringsItem] | Unset = UNSET
        if _scorings is not UNSET:
            scorings = []
            for scorings_item_data in _scorings:
                scorings_item = AnalysisResultScoringsItem.from_dict(scorings_item_data)

                scorings.append(scorings_item)

        analysis_result = cls(
            engine_version=engine_version,
            depth=depth,
            players=players,
            final_scores=final_scores,
            turns=turns,
            marked=marked,
            scorings=scorings,
        )

        return analysis_result

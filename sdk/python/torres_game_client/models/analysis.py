from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.analysis_depth import AnalysisDepth
from ..models.analysis_status import AnalysisStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.analysis_result import AnalysisResult
    from ..models.analysis_result_type_0_type_0 import AnalysisResultType0Type0


T = TypeVar("T", bound="Analysis")


@_attrs_define
class Analysis:
    """
    Attributes:
        game_id (str | Unset):
        engine_version (str | Unset):
        depth (AnalysisDepth | Unset):
        status (AnalysisStatus | Unset):
        cost (str | Unset): what the depth runs and costs
        requested_at (str | Unset):
        completed_at (None | str | Unset):
        cpu_seconds (float | Unset): CPU spent on it so far
        turns_done (int | Unset):
        result (AnalysisResult | AnalysisResultType0Type0 | None | Unset):
    """

    game_id: str | Unset = UNSET
    engine_version: str | Unset = UNSET
    depth: AnalysisDepth | Unset = UNSET
    status: AnalysisStatus | Unset = UNSET
    cost: str | Unset = UNSET
    requested_at: str | Unset = UNSET
    completed_at: None | str | Unset = UNSET
    cpu_seconds: float | Unset = UNSET
    turns_done: int | Unset = UNSET
    result: AnalysisResult | AnalysisResultType0Type0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.analysis_result import AnalysisResult
        from ..models.analysis_result_type_0_type_0 import AnalysisResultType0Type0

        game_id = self.game_id

        engine_version = self.engine_version

        depth: str | Unset = UNSET
        if not isinstance(self.depth, Unset):
            depth = self.depth.value

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        cost = self.cost

        requested_at = self.requested_at

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = self.completed_at

        cpu_seconds = self.cpu_seconds

        turns_done = self.turns_done

        result: dict[str, Any] | None | Unset
        if isinstance(self.result, Unset):
            result = UNSET
        elif isinstance(self.result, AnalysisResultType0Type0) or isinstance(
            self.result, AnalysisResult
        ):
            result = self.result.to_dict()
        else:
            result = self.result

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if engine_version is not UNSET:
            field_dict["engine_version"] = engine_version
        if depth is not UNSET:
            field_dict["depth"] = depth
        if status is not UNSET:
            field_dict["status"] = status
        if cost is not UNSET:
            field_dict["cost"] = cost
        if requested_at is not UNSET:
            field_dict["requested_at"] = requested_at
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if cpu_seconds is not UNSET:
            field_dict["cpu_seconds"] = cpu_seconds
        if turns_done is not UNSET:
            field_dict["turns_done"] = turns_done
        if result is not UNSET:
            field_dict["result"] = result

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.analysis_result import AnalysisResult
        from ..models.analysis_result_type_0_type_0 import AnalysisResultType0Type0

        d = dict(src_dict)
        game_id = d.pop("game_id", UNSET)

        engine_version = d.pop("engine_version", UNSET)

        _depth = d.pop("depth", UNSET)
        depth: AnalysisDepth | Unset
        if isinstance(_depth, Unset):
            depth = UNSET
        else:
            depth = AnalysisDepth(_depth)

        _status = d.pop("status", UNSET)
        status: AnalysisStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = AnalysisStatus(_status)

        cost = d.pop("cost", UNSET)

        requested_at = d.pop("requested_at", UNSET)

        def _parse_completed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        cpu_seconds = d.pop("cpu_seconds", UNSET)

        turns_done = d.pop("turns_done", UNSET)

        def _parse_result(
            data: object,
        ) -> AnalysisResult | AnalysisResultType0Type0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0_type_0 = AnalysisResultType0Type0.from_dict(data)

                return result_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_1 = AnalysisResult.from_dict(data)

                return result_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AnalysisResult | AnalysisResultType0Type0 | None | Unset, data)

        result = _parse_result(d.pop("result", UNSET))

        analysis = cls(
            game_id=game_id,
            engine_version=engine_version,
            depth=depth,
            status=status,
            cost=cost,
            requested_at=requested_at,
            completed_at=completed_at,
            cpu_seconds=cpu_seconds,
            turns_done=turns_done,
            result=result,
        )

        return analysis

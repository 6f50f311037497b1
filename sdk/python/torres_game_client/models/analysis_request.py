from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.analysis_request_depth import AnalysisRequestDepth
from ..types import UNSET, Unset

T = TypeVar("T", bound="AnalysisRequest")


@_attrs_define
class AnalysisRequest:
    """
    Attributes:
        depth (AnalysisRequestDepth | Unset): quick: the medium level's search for a better turn, the curve from the
            static evaluation (about a second of CPU per game); deep: the hard level's search and playouts (tens of times
            more); every answer's `cost` states what the installed engine spends at its depth; the default is quick Default:
            AnalysisRequestDepth.QUICK.
    """

    depth: AnalysisRequestDepth | Unset = AnalysisRequestDepth.QUICK

    def to_dict(self) -> dict[str, Any]:
        depth: str | Unset = UNSET
        if not isinstance(self.depth, Unset):
            depth = self.depth.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if depth is not UNSET:
            field_dict["depth"] = depth

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _depth = d.pop("depth", UNSET)
        depth: AnalysisRequestDepth | Unset
        if isinstance(_depth, Unset):
            depth = UNSET
        else:
            depth = AnalysisRequestDepth(_depth)

        analysis_request = cls(
            depth=depth,
        )

        return analysis_request

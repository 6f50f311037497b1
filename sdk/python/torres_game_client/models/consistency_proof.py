from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ConsistencyProof")


@_attrs_define
class ConsistencyProof:
    """
    Attributes:
        first (int | Unset):
        second (int | Unset):
        proof (list[str] | Unset): base64 node hashes (RFC 9162 PROOF)
    """

    first: int | Unset = UNSET
    second: int | Unset = UNSET
    proof: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        first = self.first

        second = self.second

        proof: list[str] | Unset = UNSET
        if not isinstance(self.proof, Unset):
            proof = self.proof

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if first is not UNSET:
            field_dict["first"] = first
        if second is not UNSET:
            field_dict["second"] = second
        if proof is not UNSET:
            field_dict["proof"] = proof

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        first = d.pop("first", UNSET)

        second = d.pop("second", UNSET)

        proof = cast(list[str], d.pop("proof", UNSET))

        consistency_proof = cls(
            first=first,
            second=second,
            proof=proof,
        )

        return consistency_proof

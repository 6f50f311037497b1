from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="InclusionProof")


@_attrs_define
class InclusionProof:
    """
    Attributes:
        leaf_index (int | Unset):
        tree_size (int | Unset):
        leaf_hash (str | Unset): hex
        proof (list[str] | Unset): base64 node hashes, leaf side first
    """

    leaf_index: int | Unset = UNSET
    tree_size: int | Unset = UNSET
    leaf_hash: str | Unset = UNSET
    proof: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        leaf_index = self.leaf_index

        tree_size = self.tree_size

        leaf_hash = self.leaf_hash

        proof: list[str] | Unset = UNSET
        if not isinstance(self.proof, Unset):
            proof = self.proof

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if leaf_index is not UNSET:
            field_dict["leaf_index"] = leaf_index
        if tree_size is not UNSET:
            field_dict["tree_size"] = tree_size
        if leaf_hash is not UNSET:
            field_dict["leaf_hash"] = leaf_hash
        if proof is not UNSET:
            field_dict["proof"] = proof

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        leaf_index = d.pop("leaf_index", UNSET)

        tree_size = d.pop("tree_size", UNSET)

        leaf_hash = d.pop("leaf_hash", UNSET)

        proof = cast(list[str], d.pop("proof", UNSET))

        inclusion_proof = cls(
            leaf_index=leaf_index,
            tree_size=tree_size,
            leaf_hash=leaf_hash,
            proof=proof,
        )

        return inclusion_proof

"""torres_audit.merkle against published RFC 6962/9162 vectors and, side by side, a second implementation.

The vectors are the reference tree of Certificate Transparency (the leaves and roots every CT implementation
tests with) and the 196 inclusion and consistency probes of transparency-dev/merkle, gathered into
``vectors/rfc6962_probes.json``; the second implementation is ``pymerkle`` (PyPI), built independently.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pymerkle
import pytest

from torres_audit import merkle

VECTORS = Path(__file__).with_name("vectors") / "rfc6962_probes.json"

#: The reference leaves of RFC 6962 test suites (certificate-transparency-go, transparency-dev/merkle testonly)
#: and the root hash of the tree over the first n of them, n = 0..8.
LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                                      "606162636465666768696a6b6c6d6e6f")]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def b64(text: str | None) -> bytes:
    return base64.b64decode(text) if text else b""


def probes(kind: str) -> list[dict[str, Any]]:
    return list(json.loads(VECTORS.read_text())[kind])


def test_the_reference_tree_roots() -> None:
    for n, expected in enumerate(ROOTS):
        assert merkle.root(LEAVES[:n]).hex() == expected, n


@pytest.mark.parametrize("probe", probes("inclusion"), ids=lambda p: p["file"])
def test_inclusion_probes(probe: dict[str, Any]) -> None:
    try:
        merkle.verify_inclusion(probe["leafIdx"], probe["treeSize"], b64(probe["leafHash"]),
                                [b64(h) for h in probe["proof"] or []], b64(probe["root"]))
        refused = False
    except merkle.ProofError:
        refused = True
    assert refused == probe["wantErr"], probe["desc"]


@pytest.mark.parametrize("probe", probes("consistency"), ids=lambda p: p["file"])
def test_consistency_probes(probe: dict[str, Any]) -> None:
    try:
        merkle.verify_consistency(probe["size1"], probe["size2"], [b64(h) for h in probe["proof"] or []],
                                  b64(probe["root1"]), b64(probe["root2"]))
        refused = False
    except merkle.ProofError:
        refused = True
    assert refused == probe["wantErr"], probe["desc"]


def leaves(n: int) -> list[bytes]:
    return [f"torres game head {i}\n".encode() for i in range(n)]


def test_every_inclusion_proof_up_to_64_leaves_verifies_and_matches_pymerkle() -> None:
    """Every (index, size) with size <= 64: our proof verifies, equals pymerkle's audit path (pymerkle counts
    leaves from 1 and puts the leaf's own hash first), and a proof with one node flipped, another leaf, a wrong
    index or the root of the next tree size is refused."""
    data = leaves(65)
    reference = pymerkle.InmemoryTree(algorithm="sha256")
    for size in range(1, 65):
        reference.append_entry(data[size - 1])  # pymerkle's tree grows with ours
        tree_root = merkle.root(data[:size])
        assert tree_root == reference.get_root(size)
        for index in range(size):
            proof = merkle.inclusion_proof(index, data[:size])
            path = reference.prove_inclusion(index + 1, size).serialize()["path"]
            assert [p.hex() for p in proof] == path[1:], (index, size)
            leaf = merkle.leaf_hash(data[index])
            merkle.verify_inclusion(index, size, leaf, proof, tree_root)
            if proof:
                tampered = [*proof]
                tampered[-1] = bytes([tampered[-1][0] ^ 1]) + tampered[-1][1:]
                with pytest.raises(merkle.ProofError):
                    merkle.verify_inclusion(index, size, leaf, tampered, tree_root)
            with pytest.raises(merkle.ProofError):
                merkle.verify_inclusion(index, size, merkle.leaf_hash(b"another head"), proof, tree_root)
            if size > 1:
                with pytest.raises(merkle.ProofError):
                    merkle.verify_inclusion((index + 1) % size, size, leaf, proof, tree_root)
            with pytest.raises(merkle.ProofError):  # the signed root of a bigger tree (sizes are signed with roots)
                merkle.verify_inclusion(index, size + 1, leaf, proof, merkle.root(data[:size + 1]))


def test_every_consistency_proof_up_to_64_leaves_verifies() -> None:
    """Every (first, second) with second <= 64 over roots pymerkle agrees with; a shortened proof, the root of
    another size or a forked second tree is refused. (pymerkle's consistency paths carry other nodes than
    RFC 9162's PROOF, so they are not compared node by node; the transparency-dev probes pin the format.)"""
    data = leaves(64)
    reference = pymerkle.InmemoryTree(algorithm="sha256")
    reference.append_entries(data)
    roots = [merkle.root(data[:n]) for n in range(65)]
    for second in range(1, 65):
        for first in range(1, second + 1):
            proof = merkle.consistency_proof(first, data[:second])
            assert roots[first] == reference.get_root(first) and roots[second] == reference.get_root(second)
            merkle.verify_consistency(first, second, proof, roots[first], roots[second])
            if proof:
                with pytest.raises(merkle.ProofError):
                    merkle.verify_consistency(first, second, proof[:-1], roots[first], roots[second])
                with pytest.raises(merkle.ProofError):
                    merkle.verify_consistency(first, second, proof, roots[first], roots[second - 1])
            if first < second:  # a forked log: the same first tree, another second one
                forked = merkle.root([*data[:first], *leaves(second)[first:][::-1], b"fork"][:second])
                if forked != roots[second]:
                    with pytest.raises(merkle.ProofError):
                        merkle.verify_consistency(first, second, proof, roots[first], forked)

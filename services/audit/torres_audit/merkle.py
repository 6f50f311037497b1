"""The Merkle tree of RFC 9162 section 2.1 (the Certificate Transparency log tree), with SHA-256.

A transparency log of finished games commits to every game's final head with one root hash; an inclusion
proof shows one game is in it, a consistency proof shows a later tree extends an earlier one (the log never
rewrote its past). The functions follow the RFC's definitions line by line (MTH, PATH, PROOF, and the
verification algorithms of 2.1.3.2 and 2.1.4.2) rather than an optimised layout, because this module is the
reference a third party reads: a log with millions of games would keep its node hashes, not call
:func:`root` on the leaves.

Leaf hashes are ``SHA-256(0x00 || leaf)``, interior nodes ``SHA-256(0x01 || left || right)``: the two
prefixes keep a leaf from ever being taken for a node (the second-preimage defence of RFC 9162 2.1.1).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

__all__ = [
    "EMPTY_ROOT",
    "HASH_SIZE",
    "ProofError",
    "consistency_proof",
    "inclusion_proof",
    "leaf_hash",
    "node_hash",
    "root",
    "root_from_inclusion_proof",
    "verify_consistency",
    "verify_inclusion",
]

HASH_SIZE = 32
#: MTH({}) = SHA-256() of nothing.
EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof that does not verify; the message says which step failed."""


def leaf_hash(leaf: bytes) -> bytes:
    """MTH({d}) = SHA-256(0x00 || d)."""
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """k: the largest power of two smaller than n (n > 1), where RFC 9162 splits D[n]."""
    return 1 << ((n - 1).bit_length() - 1)


def _mth(hashes: Sequence[bytes]) -> bytes:
    """MTH over leaf hashes already computed (so PATH and PROOF hash each leaf once)."""
    n = len(hashes)
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return hashes[0]
    k = _split(n)
    return node_hash(_mth(hashes[:k]), _mth(hashes[k:]))


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH(D[n]): the root hash of the tree over ``leaves`` (raw leaf data, not leaf hashes)."""
    return _mth([leaf_hash(leaf) for leaf in leaves])


def _path(m: int, hashes: Sequence[bytes]) -> list[bytes]:
    n = len(hashes)
    if n <= 1:
        return []
    k = _split(n)
    if m < k:
        return [*_path(m, hashes[:k]), _mth(hashes[k:])]
    return [*_path(m - k, hashes[k:]), _mth(hashes[:k])]


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PATH(m, D[n]): the audit path of leaf ``index`` in the tree over ``leaves``, leaf side first."""
    if not 0 <= index < len(leaves):
        raise ValueError(f"leaf index {index} is outside a tree of {len(leaves)} leaves")
    return _path(index, [leaf_hash(leaf) for leaf in leaves])


def _subproof(m: int, hashes: Sequence[bytes], complete: bool) -> list[bytes]:
    n = len(hashes)
    if m == n:
        return [] if complete else [_mth(hashes)]
    k = _split(n)
    if m <= k:
        return [*_subproof(m, hashes[:k], complete), _mth(hashes[k:])]
    return [*_subproof(m - k, hashes[k:], False), _mth(hashes[:k])]


def consistency_proof(first: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PROOF(m, D[n]): shows that the tree of the first ``first`` leaves is a prefix of the tree over ``leaves``
    (0 < first <= n; empty when first == n)."""
    if not 0 < first <= len(leaves):
        raise ValueError(f"a consistency proof needs 0 < first <= {len(leaves)}, not {first}")
    return _subproof(first, [leaf_hash(leaf) for leaf in leaves], True)


def _hashes(what: str, *values: bytes) -> None:
    """Every hash in a proof is 32 bytes: an empty or truncated one is refused, never hashed along."""
    for value in values:
        if len(value) != HASH_SIZE:
            raise ProofError(f"{what} must be {HASH_SIZE}-byte SHA-256 hashes, not {len(value)} bytes")


def root_from_inclusion_proof(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """The root that ``proof`` leads to from the leaf hash ``leaf`` (RFC 9162 2.1.3.2, steps 1-4); raises
    :class:`ProofError` when the proof has the wrong length for (index, size)."""
    _hashes("the leaf hash and the proof's nodes", leaf, *proof)
    if not 0 <= index < size:
        raise ProofError(f"leaf index {index} is not inside a tree of size {size}")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise ProofError(f"the proof is longer than a tree of size {size} allows for leaf {index}")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError(f"the proof is shorter than a tree of size {size} needs for leaf {index}")
    return r


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], expected_root: bytes) -> None:
    """Raise :class:`ProofError` unless ``proof`` shows the leaf hash ``leaf`` at ``index`` of the tree of
    ``size`` leaves whose root is ``expected_root`` (RFC 9162 2.1.3.2)."""
    _hashes("the root", expected_root)
    if root_from_inclusion_proof(index, size, leaf, proof) != expected_root:
        raise ProofError(f"the inclusion proof of leaf {index} leads to another root than the tree of size {size} has")


def verify_consistency(first: int, second: int, proof: Sequence[bytes], first_root: bytes, second_root: bytes) -> None:
    """Raise :class:`ProofError` unless ``proof`` shows the tree of size ``first`` (root ``first_root``) is a
    prefix of the tree of size ``second`` (root ``second_root``): RFC 9162 2.1.4.2, with its edge cases made
    explicit (equal sizes need an empty proof and equal roots; a proof from the empty tree proves nothing)."""
    if first > second:
        raise ProofError(f"a tree of size {first} cannot be a prefix of one of size {second}")
    if first == 0:
        raise ProofError("a consistency proof from the empty tree is meaningless")
    if first == second:
        if proof:
            raise ProofError("equal tree sizes need an empty consistency proof")
        if first_root != second_root:
            raise ProofError(f"two different roots for the same tree size {first}")
        return
    if not proof:
        raise ProofError("an empty consistency proof between different tree sizes")
    _hashes("the roots and the proof's nodes", first_root, second_root, *proof)
    path = list(proof)
    if first & (first - 1) == 0:  # an exact power of two: the first tree is a complete subtree of the second
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError(f"the consistency proof is longer than sizes {first} and {second} allow")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError(f"the consistency proof is shorter than sizes {first} and {second} need")
    if fr != first_root:
        raise ProofError(f"the consistency proof does not lead to the root of the tree of size {first}")
    if sr != second_root:
        raise ProofError(f"the consistency proof does not lead to the root of the tree of size {second}")

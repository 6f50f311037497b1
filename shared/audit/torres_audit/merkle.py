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
from collections.abc import Callable, Iterable, Iterator, Sequence

__all__ = [
    "EMPTY_ROOT",
    "HASH_SIZE",
    "ProofError",
    "SubtreeHash",
    "append_leaves",
    "consistency_path",
    "consistency_proof",
    "fold",
    "inclusion_path",
    "inclusion_proof",
    "leaf_hash",
    "node_hash",
    "perfect_subtrees",
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


#: MTH(D[start:end]) of a tree whose leaves live elsewhere (a list in memory, a database's node table). The
#: proofs below only ever ask for ranges that start at a multiple of the largest power of two not above their
#: length, which is what lets a log answer them from stored complete subtrees (:func:`perfect_subtrees`).
SubtreeHash = Callable[[int, int], bytes]


def _path(m: int, start: int, end: int, mth: SubtreeHash) -> list[bytes]:
    n = end - start
    if n <= 1:
        return []
    k = _split(n)
    if m < k:
        return [*_path(m, start, start + k, mth), mth(start + k, end)]
    return [*_path(m - k, start + k, end, mth), mth(start, start + k)]


def inclusion_path(index: int, size: int, mth: SubtreeHash) -> list[bytes]:
    """PATH(index, D[size]) with the subtree hashes taken from ``mth``: the one definition of the audit path,
    whether the leaves are in memory (:func:`inclusion_proof`) or in a log's node table."""
    if not 0 <= index < size:
        raise ValueError(f"leaf index {index} is outside a tree of {size} leaves")
    return _path(index, 0, size, mth)


def _in_memory(hashes: Sequence[bytes]) -> SubtreeHash:
    return lambda start, end: _mth(hashes[start:end])


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PATH(m, D[n]): the audit path of leaf ``index`` in the tree over ``leaves``, leaf side first."""
    if not 0 <= index < len(leaves):
        raise ValueError(f"leaf index {index} is outside a tree of {len(leaves)} leaves")
    return inclusion_path(index, len(leaves), _in_memory([leaf_hash(leaf) for leaf in leaves]))


def _subproof(m: int, start: int, end: int, complete: bool, mth: SubtreeHash) -> list[bytes]:
    n = end - start
    if m == n:
        return [] if complete else [mth(start, end)]
    k = _split(n)
    if m <= k:
        return [*_subproof(m, start, start + k, complete, mth), mth(start + k, end)]
    return [*_subproof(m - k, start + k, end, False, mth), mth(start, start + k)]


def consistency_path(first: int, size: int, mth: SubtreeHash) -> list[bytes]:
    """PROOF(first, D[size]) with the subtree hashes taken from ``mth`` (0 < first <= size)."""
    if not 0 < first <= size:
        raise ValueError(f"a consistency proof needs 0 < first <= {size}, not {first}")
    return _subproof(first, 0, size, True, mth)


def consistency_proof(first: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PROOF(m, D[n]): shows that the tree of the first ``first`` leaves is a prefix of the tree over ``leaves``
    (0 < first <= n; empty when first == n)."""
    return consistency_path(first, len(leaves), _in_memory([leaf_hash(leaf) for leaf in leaves]))


def perfect_subtrees(start: int, end: int) -> list[tuple[int, int]]:
    """The complete subtrees, as (level, index) with index·2^level their first leaf, that make up D[start:end],
    largest first, for a range :data:`SubtreeHash` may be asked for (``start`` a multiple of the largest power
    of two not above ``end - start``). Complete subtrees never change once their last leaf is in, so a log
    stores each once and answers every proof of every tree size from them."""
    out: list[tuple[int, int]] = []
    while start < end:
        level = (end - start).bit_length() - 1
        out.append((level, start >> level))
        start += 1 << level
    return out


def fold(subtrees: Sequence[bytes]) -> bytes:
    """MTH of a range from the hashes of its :func:`perfect_subtrees`, largest first: RFC 9162 splits at the
    largest power of two, so the tree is each complete subtree joined with the tree of the rest."""
    if not subtrees:
        return EMPTY_ROOT
    acc = subtrees[-1]
    for left in reversed(subtrees[:-1]):
        acc = node_hash(left, acc)
    return acc


def append_leaves(size: int, frontier: Sequence[bytes], leaf_hashes: Iterable[bytes],
                  ) -> tuple[list[bytes], list[tuple[int, int, bytes]]]:
    """Append leaf hashes to a tree of ``size`` leaves known only by its frontier (the hashes of
    ``perfect_subtrees(0, size)``): returns the new frontier and every complete subtree the new leaves made,
    as (level, index, hash), leaves included. What a log's sequencer stores; the root is ``fold(frontier)``."""
    levels = [level for level, _ in perfect_subtrees(0, size)]
    if len(levels) != len(frontier):
        raise ValueError(f"a tree of {size} leaves has a frontier of {len(levels)} subtrees, not {len(frontier)}")
    stack = list(zip(levels, frontier, strict=True))
    made: list[tuple[int, int, bytes]] = []
    for leaf in leaf_hashes:
        level, index, digest = 0, size, leaf
        made.append((0, index, digest))
        while stack and stack[-1][0] == level:
            _, left = stack.pop()
            level, index, digest = level + 1, index >> 1, node_hash(left, digest)
            made.append((level, index, digest))
        stack.append((level, digest))
        size += 1
    return [digest for _, digest in stack], made


def _hashes(what: str, *values: bytes) -> None:
    """Every hash in a proof is 32 bytes: an empty or truncated one is refused, never hashed along."""
    for value in values:
        if len(value) != HASH_SIZE:
            raise ProofError(f"{what} must be {HASH_SIZE}-byte SHA-256 hashes, not {len(value)} bytes")


def _proof_walk(fn: int, sn: int, nodes: Iterable[bytes], longer: str, shorter: str) -> Iterator[tuple[bytes, bool]]:
    """The walk both proofs' checks share (RFC 9162 2.1.3.2 and 2.1.4.2): each node of the proof with whether it is
    the left sibling (``LSB(fn)`` set or ``fn`` equal to ``sn``) of the hash so far. Raises :class:`ProofError` with
    ``longer`` when nodes remain after ``sn`` reached 0, with ``shorter`` when ``sn`` has not reached 0 at the end."""
    for node in nodes:
        if sn == 0:
            raise ProofError(longer)
        left = bool(fn & 1) or fn == sn
        if left and not fn & 1:  # right-shift both equally until LSB(fn) is set or fn is 0
            while fn and not fn & 1:
                fn >>= 1
                sn >>= 1
        yield node, left
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError(shorter)


def root_from_inclusion_proof(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """The root that ``proof`` leads to from the leaf hash ``leaf`` (RFC 9162 2.1.3.2, steps 1-4); raises
    :class:`ProofError` when the proof has the wrong length for (index, size)."""
    _hashes("the leaf hash and the proof's nodes", leaf, *proof)
    if not 0 <= index < size:
        raise ProofError(f"leaf index {index} is not inside a tree of size {size}")
    r = leaf
    for p, left in _proof_walk(index, size - 1, proof,
                               f"the proof is longer than a tree of size {size} allows for leaf {index}",
                               f"the proof is shorter than a tree of size {size} needs for leaf {index}"):
        r = node_hash(p, r) if left else node_hash(r, p)
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
    for c, left in _proof_walk(fn, sn, path[1:],
                               f"the consistency proof is longer than sizes {first} and {second} allow",
                               f"the consistency proof is shorter than sizes {first} and {second} need"):
        if left:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
        else:
            sr = node_hash(sr, c)
    if fr != first_root:
        raise ProofError(f"the consistency proof does not lead to the root of the tree of size {first}")
    if sr != second_root:
        raise ProofError(f"the consistency proof does not lead to the root of the tree of size {second}")

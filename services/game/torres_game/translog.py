"""The transparency log of finished games (docs/audit.md sections 9 and 13): the sequencer that
integrates queued heads into the RFC 9162 tree and signs checkpoints, and the proofs the service hands out.

Why a log at all: a record signed by the service proves what the service said, not that it will say the same
tomorrow. Once a game's head is a leaf of an append-only Merkle tree whose signed checkpoints monitors keep, the
operator cannot rewrite, swap or delete that game without either breaking the game's inclusion proof or forking
the log, which every monitor that kept an earlier checkpoint sees (``python -m torres_audit monitor``).

The shape follows Trillian and Rekor: the append path only queues the leaf (a trigger on the ``game_ended`` row,
in the append's own transaction, so appends pay one row insert and never wait for hashing or signing); the
sequencer, off the request path, takes the queue in batches, each in one database transaction that assigns
leaf indexes, stores the new complete subtrees and the signed checkpoint, so a sequencer killed mid-batch leaves
nothing half-done, and a lock in the store (PostgreSQL's advisory lock, SQLite's writer lock) lets one
sequencer at a time work whatever the number of replicas. The tree arithmetic is ``torres_audit.merkle``'s,
the note format ``torres_audit.note``'s: the verifier and the log share one implementation.
"""

from __future__ import annotations

import base64
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from torres_audit import merkle
from torres_audit.note import Checkpoint, NoteError, Signer, Verifier, open_note
from torres_audit.record import head_text, inclusion_json

from .errors import NotFound
from .store.base import EventStore, LogCheckpoint, LogIntegration, LogLeaf, PendingLeaf
from .witnessing import Witnesses, parse_witnesses

log = logging.getLogger("torres_game.translog")

__all__ = ["LogKeyAbsent", "ProofUnavailable", "TransparencyLog"]


class ProofUnavailable(NotFound):
    """No such leaf, or a tree size the log does not have (yet): 404 ``proof_unavailable``."""

    code, title = "proof_unavailable", "The log holds no such leaf or tree size"


@dataclass(frozen=True)
class SequencerStats:
    """What one sequencer step did, for the logs, the metrics and the benchmark."""

    leaves: int
    tree_size: int
    max_delay: float  # seconds from the oldest leaf's game end to its integration


def leaf_of(leaf: PendingLeaf | LogLeaf) -> bytes:
    """The leaf data: the finished game's head statement (docs/audit.md section 7), exactly what its record's
    signature covers, so the verifier hashes the same bytes from the record alone."""
    return head_text(leaf.game_id, leaf.version, leaf.head_hash, "over").encode()


class LogKeyAbsent(RuntimeError):
    """This process holds no log signing key: it serves the log, it cannot sign for it (docs/audit.md, "Key
    custody": the key lives in the sequencer process only)."""


class TransparencyLog:
    """The log over one event store. ``key``: the log's public key, whose name is the log's origin; ``signer``:
    its private half, given to the sequencer process only (a web process gets the public key and then serves
    checkpoints and proofs but cannot sign one). ``witnesses``: ``<vkey>@<URL>`` of the witnesses the sequencer
    asks, ``witness_quorum`` of whose cosignatures a checkpoint needs before it is served (0: a majority; no
    witnesses: the log's signature alone)."""

    def __init__(self, store: EventStore, key: Verifier | Signer, *, published: tuple[Verifier, ...] = (),
                 batch: int = 1000, witnesses: Sequence[str] = (), witness_quorum: int = 0,
                 witness_timeout: float = 2.0) -> None:
        self.store = store
        self.signer = key if isinstance(key, Signer) else None
        public = key.verifier() if isinstance(key, Signer) else key
        self.origin = public.name
        #: Every log key to publish at the well-known URL: the current one first, then older ones still in use
        #: during a rotation (checkpoints signed before it keep verifying).
        self.keys = (public, *(k for k in published if k != public))
        self.batch = batch
        self.witnesses = (Witnesses(store, parse_witnesses(witnesses), quorum=witness_quorum, timeout=witness_timeout,
                                    proof=self.consistency_nodes) if witnesses else None)
        self.last_stats: SequencerStats | None = None

    # -- sequencing ---------------------------------------------------------------------------------------

    def _build(self, size: int, frontier: list[bytes], pending: list[PendingLeaf]) -> LogIntegration:
        hashes = [merkle.leaf_hash(leaf_of(leaf)) for leaf in pending]
        new_frontier, nodes = merkle.append_leaves(size, frontier, hashes)
        new_size = size + len(pending)
        root = merkle.fold(new_frontier)
        if self.signer is None:
            raise LogKeyAbsent("this process holds no TORRES_LOG_SIGNING_KEY: only the sequencer signs checkpoints")
        note = Checkpoint(self.origin, new_size, root).sign(self.signer)
        now = datetime.now(UTC)
        oldest = min((leaf.queued_at for leaf in pending), default=now)
        self.last_stats = SequencerStats(len(pending), new_size, max(0.0, (now - oldest).total_seconds()))
        return LogIntegration(
            leaves=tuple((leaf.game_id, size + i, h) for i, (leaf, h) in enumerate(zip(pending, hashes, strict=True))),
            nodes=tuple(nodes), checkpoint=LogCheckpoint(new_size, root, note))

    def integrate(self) -> LogCheckpoint | None:
        """One batch: the checkpoint it signed, or None (nothing queued, or another sequencer is at work)."""
        self.last_stats = None
        if self.signer is None:
            raise LogKeyAbsent("this process holds no TORRES_LOG_SIGNING_KEY: only the sequencer signs checkpoints")
        return self.store.integrate_log(self._build, limit=self.batch)

    def witness(self) -> int | None:
        """Ask the witnesses to cosign the latest checkpoint (bounded by their timeout); returns how many
        cosignatures it has, None without witnesses or checkpoint."""
        if self.witnesses is None:
            return None
        latest = self.store.log_checkpoint()
        if latest is None:
            return None
        return self.witnesses.request(latest)

    def integrate_all(self) -> int:
        """Batches until the queue is empty (or another sequencer holds it); returns the leaves integrated."""
        total = 0
        while self.integrate() is not None:
            total += self.last_stats.leaves if self.last_stats else 0
        return total

    def run(self, stop: threading.Event, interval: float) -> None:
        """The sequencer loop: a daemon thread of every game-service process (``TORRES_LOG_INTERVAL``), or
        ``python -m torres_game sequence``. Every replica may run one: the store's lock lets one work at a time,
        the others find it taken and sleep. A full batch is followed at once by the next, so a backlog drains
        at the sequencer's speed rather than one batch per interval."""
        while not stop.is_set():
            busy = False
            try:
                if self.integrate() is not None and self.last_stats is not None:
                    stats = self.last_stats
                    busy = stats.leaves >= self.batch
                    log.info("log leaves integrated", extra={"leaves": stats.leaves, "tree_size": stats.tree_size,
                                                             "max_delay": round(stats.max_delay, 3)})
                self.witness()
            except Exception:
                if self.store.closed:
                    return
                log.exception(f"sequencer step failed; retrying in {interval} s")
            if not busy:
                stop.wait(interval)

    # -- reading ------------------------------------------------------------------------------------------

    def checkpoint(self, tree_size: int | None = None) -> LogCheckpoint:
        """The checkpoint of ``tree_size``, or the latest one served, with the witnesses' cosignature lines
        appended. With witnesses configured the latest one served is the latest cosigned by their quorum: a
        checkpoint the witnesses have not seen is no better, to a client that requires them, than none."""
        if tree_size is None and self.witnesses is not None and self.witnesses.quorum:
            size = self.store.log_cosigned_size(self.witnesses.vkeys, self.witnesses.quorum)
            if size is None:
                raise ProofUnavailable(f"no checkpoint is cosigned by {self.witnesses.quorum} of the log's "
                                       f"{len(self.witnesses.peers)} witnesses yet")
            tree_size = size
        found = self.store.log_checkpoint(tree_size)
        if found is None:
            raise ProofUnavailable("the log has no checkpoint yet" if tree_size is None
                                   else f"the log signed no checkpoint of tree size {tree_size}")
        lines = self.store.log_cosignatures(found.tree_size)
        return LogCheckpoint(found.tree_size, found.root, found.note + "".join(lines.values())) if lines else found

    def _subtree(self, size: int) -> merkle.SubtreeHash:
        """MTH of any range a proof within a tree of ``size`` asks for, from the stored complete subtrees (one
        query for all of them: a proof at 10^6 leaves needs about 40)."""
        cache: dict[tuple[int, int], bytes] = {}

        def mth(start: int, end: int) -> bytes:
            keys = merkle.perfect_subtrees(start, end)
            missing = [k for k in keys if k not in cache]
            if missing:
                cache.update(self.store.log_nodes(missing))
            if any(k not in cache for k in keys):
                raise ProofUnavailable(f"the log lacks a node of the tree of size {size}")
            return merkle.fold([cache[k] for k in keys])

        return mth

    def _size(self, tree_size: int | None) -> int:
        latest = self.checkpoint().tree_size
        if tree_size is None:
            return latest
        if not 0 < tree_size <= latest:
            raise ProofUnavailable(f"tree size {tree_size} is not between 1 and the log's size {latest}")
        return tree_size

    def inclusion(self, leaf: LogLeaf, tree_size: int | None = None) -> dict[str, Any]:
        """The audit path of ``leaf`` in the tree of ``tree_size`` leaves (the latest: the latest checkpoint's)."""
        size = self._size(tree_size)
        if leaf.leaf_index >= size:
            raise ProofUnavailable(f"leaf {leaf.leaf_index} is not in the tree of size {size} yet")
        proof = merkle.inclusion_path(leaf.leaf_index, size, self._subtree(size))
        return {"leaf_index": leaf.leaf_index, "tree_size": size,
                "leaf_hash": leaf.leaf_hash.hex(),
                "proof": [base64.b64encode(node).decode() for node in proof]}

    def consistency_nodes(self, first: int, second: int) -> list[bytes]:
        """PROOF(first, D[second]) from the stored subtrees, for any size the log signed (the witnesses' view
        may lag behind the one served)."""
        return merkle.consistency_path(first, second, self._subtree(second))

    def consistency(self, first: int, second: int | None = None) -> dict[str, Any]:
        size = self._size(second)
        if not 0 < first <= size:
            raise ProofUnavailable(f"a consistency proof needs 0 < first <= second, not {first} and {size}")
        proof = merkle.consistency_path(first, size, self._subtree(size))
        return {"first": first, "second": size, "proof": [base64.b64encode(node).decode() for node in proof]}

    def record_inclusion(self, game_id: str) -> dict[str, Any] | None:
        """The record's ``inclusion`` member (docs/audit.md section 9) for a finished game whose head the log
        holds, against the latest checkpoint; None while it waits for the sequencer. The service does not check
        that the logged head is the game's current head: if the database was rewritten, the record must show
        it (its proof then fails in the verifier) rather than hide it."""
        leaf = self.store.log_leaf(game_id=game_id)
        if leaf is None:
            return None
        try:
            checkpoint = self.checkpoint()
        except ProofUnavailable:
            return None  # integrated, not yet cosigned by the witnesses' quorum
        if leaf.leaf_index >= checkpoint.tree_size:
            return None
        proof = merkle.inclusion_path(leaf.leaf_index, checkpoint.tree_size, self._subtree(checkpoint.tree_size))
        signed_by = next((key for key in self.keys if _signed_by(checkpoint.note, key)), self.keys[0])
        return inclusion_json(log_key=signed_by.vkey(), leaf_index=leaf.leaf_index,
                              tree_size=checkpoint.tree_size, proof=proof, checkpoint=checkpoint.note)

    def well_known(self) -> str:
        """The text at ``/.well-known/torres-audit-key``: one vkey per line, the current log key first."""
        return "".join(f"{key.vkey()}\n" for key in self.keys)


def _signed_by(note: str, key: Verifier) -> bool:
    """Whether ``key`` signed ``note`` (during a rotation the latest checkpoint may still be the old key's)."""
    try:
        open_note(note, [key])
    except NoteError:
        return False
    return True


def wait_for_sequencer(store: EventStore, *, timeout: float = 10.0) -> None:
    """Block until nothing waits for the sequencer (tests and the benchmark)."""
    deadline = time.monotonic() + timeout
    while store.log_pending():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{store.log_pending()} leaves still pending after {timeout} s")
        time.sleep(0.02)

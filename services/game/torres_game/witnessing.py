"""The sequencer's side of c2sp.org/tlog-witness: asking the configured witnesses to cosign the log's checkpoints.

After each sequencer step the latest checkpoint is sent to every configured witness that has not cosigned it yet,
with the consistency proof from the last size that witness cosigned (the size kept in ``log_cosignatures``, or the
one a 409 answer names). The witnesses are asked in parallel, each by its own worker with one request in flight at
most, and the step waits for them no longer than ``TORRES_LOG_WITNESS_TIMEOUT`` in all: a witness that hangs or is
down delays the log's cosigned checkpoint by that deadline at most, and after a failure it is asked again only
after a back-off that doubles up to a minute, so a dead witness costs the sequencer nothing. Each answer is checked
against the witness's pinned key before it is stored; an answer that does not verify is dropped and logged.

Witnesses never see games, only the checkpoint (origin, size, root): nothing hidden leaves through them.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import httpx

from torres_audit.cosignature import WitnessKey, cosignatures
from torres_audit.note import NoteError
from torres_audit.witness import TLOG_SIZE, add_checkpoint_body

from .store.base import EventStore, LogCheckpoint

log = logging.getLogger("torres_game.witnessing")

__all__ = ["WitnessPeer", "Witnesses", "parse_witnesses"]

#: The most a failing witness waits before it is asked again.
MAX_BACKOFF = 60.0


@dataclass
class WitnessPeer:
    """One configured witness: its pinned key, its add-checkpoint URL, and what the sequencer knows of it."""

    key: WitnessKey
    url: str
    size: int | None = None  # the last size it cosigned, as far as this process knows (None: read the store)
    failures: int = 0
    not_before: float = 0.0
    in_flight: Future[None] | None = field(default=None, repr=False)

    @property
    def vkey(self) -> str:
        return self.key.vkey()


def parse_witnesses(entries: Sequence[str]) -> list[WitnessPeer]:
    """``<witness vkey>@<URL>`` entries (``TORRES_LOG_WITNESSES``); the URL is the witness's submission prefix."""
    peers = []
    for entry in entries:
        match = re.fullmatch(r"(.+?)@(https?://\S+)", entry)
        if match is None:
            raise ValueError(f"a witness is <vkey>@<http(s) URL>, not {entry!r}")
        try:
            key = WitnessKey.from_vkey(match.group(1))
        except NoteError as exc:
            raise ValueError(f"witness {entry!r}: {exc}") from exc
        peers.append(WitnessPeer(key, match.group(2).rstrip("/")))
    if len({peer.key for peer in peers}) != len(peers):
        raise ValueError("a witness is listed twice")
    return peers


class Witnesses:
    """The configured witnesses of one log, and the quorum of cosignatures a checkpoint needs to be served."""

    def __init__(self, store: EventStore, peers: Sequence[WitnessPeer], *, quorum: int = 0, timeout: float = 2.0,
                 proof: Callable[[int, int], list[bytes]]) -> None:
        self.store = store
        self.peers = list(peers)
        self.quorum = quorum or (len(self.peers) // 2 + 1 if self.peers else 0)
        if self.quorum > len(self.peers):
            raise ValueError(f"a quorum of {self.quorum} cosignatures from {len(self.peers)} witnesses")
        self.timeout = timeout
        self.proof = proof  # the log's consistency proof between two sizes
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=max(1, len(self.peers)), thread_name_prefix="witness")
        self._client = httpx.Client(timeout=httpx.Timeout(timeout), limits=httpx.Limits(
            max_connections=max(1, len(self.peers)) * 2, max_keepalive_connections=max(1, len(self.peers))))

    @property
    def vkeys(self) -> list[str]:
        return [peer.vkey for peer in self.peers]

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    def request(self, checkpoint: LogCheckpoint) -> int:
        """Ask every witness that has not cosigned ``checkpoint`` (and is not backing off, nor still busy with an
        earlier request) for its cosignature, waiting ``timeout`` seconds at most; returns how many cosignatures
        the checkpoint has now."""
        have = self.store.log_cosignatures(checkpoint.tree_size)
        now = time.monotonic()
        asked: list[Future[None]] = []
        with self._lock:
            for peer in self.peers:
                if peer.vkey in have or peer.not_before > now or (peer.in_flight and not peer.in_flight.done()):
                    continue
                peer.in_flight = self._pool.submit(self._ask, peer, checkpoint)
                asked.append(peer.in_flight)
        if asked:
            wait(asked, timeout=self.timeout)
        return len(self.store.log_cosignatures(checkpoint.tree_size))

    def _ask(self, peer: WitnessPeer, checkpoint: LogCheckpoint) -> None:
        deadline = time.monotonic() + self.timeout
        try:
            if peer.size is None:
                peer.size = self.store.log_witnessed_size(peer.vkey)
            for _ in range(2):  # a 409 names the witness's size: ask once more with a proof from it
                old = peer.size if peer.size <= checkpoint.tree_size else 0
                proof = self.proof(old, checkpoint.tree_size) if 0 < old < checkpoint.tree_size else []
                left = deadline - time.monotonic()
                if left <= 0:
                    raise httpx.TimeoutException("the round's deadline passed")
                answer = self._client.post(f"{peer.url}/add-checkpoint",
                                           content=add_checkpoint_body(old, proof, checkpoint.note),
                                           timeout=httpx.Timeout(left))
                if answer.status_code == 409 and answer.headers.get("content-type", "").startswith(TLOG_SIZE):
                    peer.size = int(answer.text.strip())
                    continue
                break
            if answer.status_code != 200:
                raise RuntimeError(f"answered {answer.status_code}: {answer.text[:500]}")
            mine = [f"{line}\n" for line in answer.text.splitlines()
                    if cosignatures(f"{checkpoint.note}{line}\n", [peer.key])]
            if not mine:
                raise RuntimeError("answered no cosignature by its pinned key")
            self.store.add_log_cosignatures(checkpoint.tree_size, {peer.vkey: mine[0]})
            peer.size, peer.failures, peer.not_before = checkpoint.tree_size, 0, 0.0
        except (httpx.HTTPError, RuntimeError, ValueError, NoteError) as exc:
            peer.failures += 1
            backoff = min(MAX_BACKOFF, self.timeout * 2 ** (peer.failures - 1))
            peer.not_before = time.monotonic() + backoff
            log.warning("witness did not cosign", extra={"witness": peer.key.name, "tree_size": checkpoint.tree_size,
                                                         "error": str(exc), "retry_in": round(backoff, 2)})

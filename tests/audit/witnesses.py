"""Witnesses a test starts: ``python -m torres_audit witness`` processes on loopback, and logs in memory whose
checkpoints they are sent (an honest branch and a forged one sharing a prefix)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from game.servers import ROOT, reap, wait_until_ready
from serving import free_port

from torres_audit import merkle
from torres_audit.cosignature import Cosigner
from torres_audit.note import Checkpoint, Signer
from torres_audit.witness import add_checkpoint_body


@dataclass
class WitnessProcess:
    process: subprocess.Popen[bytes]
    url: str
    cosigner: Cosigner

    def post(self, body: bytes, timeout: float = 10.0) -> tuple[int, str, str]:
        """(status, content type, body) of POST /add-checkpoint."""
        request = urllib.request.Request(f"{self.url}/add-checkpoint", data=body, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.headers["Content-Type"], response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers["Content-Type"], exc.read().decode()


@contextlib.contextmanager
def witness_process(state: Path, cosigner: Cosigner, logs: Sequence[str], port: int | None = None,
                    ) -> Iterator[WitnessProcess]:
    """``python -m torres_audit witness`` with ``cosigner``'s key, witnessing the logs of the vkeys ``logs``."""
    port = port or free_port()
    args = [sys.executable, "-m", "torres_audit", "witness", "--state", str(state), "--port", str(port)]
    for vkey in logs:
        args += ["--log", vkey]
    process = subprocess.Popen(args, env={**os.environ, "TORRES_WITNESS_KEY": cosigner.skey()}, cwd=ROOT,
                               stdout=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        with urllib.request.urlopen(f"{url}/witness-key", timeout=2) as response:
            return bool(response.status == 200)

    try:
        wait_until_ready(process, ready, "the witness")
        yield WitnessProcess(process, url, cosigner)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 15)
        reap(process, 10)


@dataclass
class Branch:
    """A log's history in memory: its leaves, signed checkpoints of any size, proofs between sizes."""

    signer: Signer
    leaves: list[bytes] = field(default_factory=list)

    def checkpoint(self, size: int) -> Checkpoint:
        return Checkpoint(self.signer.name, size, merkle.root(self.leaves[:size]))

    def note(self, size: int) -> str:
        return self.checkpoint(size).sign(self.signer)

    def body(self, old: int, size: int) -> bytes:
        proof = merkle.consistency_proof(old, self.leaves[:size]) if 0 < old < size else []
        return add_checkpoint_body(old, proof, self.note(size))


def branches(signer: Signer, shared: int, length: int) -> tuple[Branch, Branch]:
    """An honest branch and a forged one with the same key, equal on their first ``shared`` leaves."""
    honest = Branch(signer, [f"game {i} honest\n".encode() for i in range(length)])
    forged = Branch(signer, honest.leaves[:shared] + [f"game {i} rewritten\n".encode()
                                                      for i in range(shared, length)])
    return honest, forged

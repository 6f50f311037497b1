"""The witness (c2sp.org/tlog-witness) against a log that forks: it cosigns one history only, says why it refuses
the other, and keeps that promise across restarts, kills and concurrent submissions; its cosignatures are
c2sp.org/tlog-cosignature and the k-of-n policy counts them."""

from __future__ import annotations

import base64
import http.client
import json
import os
import random
import re
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from torres_audit import merkle
from torres_audit.cosignature import Cosigner, QuorumError, WitnessKey, WitnessPolicy, cosignatures
from torres_audit.note import Checkpoint, NoteError, Signer, parse_note
from torres_audit.witness import TLOG_SIZE, Refused, Witness, WitnessState, add_checkpoint_body

from .witnesses import Branch, branches, witness_process

LOG = Signer.generate("torres.test/witnessed-log")
W1 = Cosigner.generate("witness.test/one")
W2 = Cosigner.generate("witness.test/two")


def witness(tmp_path: Path, cosigner: Cosigner = W1, name: str = "w.sqlite3") -> Witness:
    return Witness(cosigner, {LOG.name: [LOG.verifier()]}, WitnessState(tmp_path / name))


def cosign(w: Witness, branch: Branch, old: int, size: int) -> str:
    """The checkpoint of ``size`` with ``w``'s cosignature appended."""
    return branch.note(size) + w.add_checkpoint(branch.body(old, size))


def refused(w: Witness, body: bytes) -> Refused:
    with pytest.raises(Refused) as caught:
        w.add_checkpoint(body)
    return caught.value


def test_a_cosignature_is_c2sp_cosignature_v1_and_counts_towards_the_quorum(tmp_path: Path) -> None:
    honest, _ = branches(LOG, 3, 6)
    w = witness(tmp_path)
    before = int(time.time())
    note = cosign(w, honest, 0, 4)
    sig = parse_note(note).signatures[-1]
    key = W1.key()
    assert (sig.name, sig.key_id) == (key.name, key.key_id) and len(sig.signature) == 72
    timestamp = int.from_bytes(sig.signature[:8], "big")
    assert before <= timestamp <= int(time.time())
    # The signed message of c2sp.org/tlog-cosignature, checked with the key's own verify (not ours).
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    Ed25519PublicKey.from_public_bytes(key.public_key).verify(
        sig.signature[8:], f"cosignature/v1\ntime {timestamp}\n".encode() + honest.checkpoint(4).text().encode())
    assert WitnessKey.from_vkey(key.vkey()) == key and base64.b64decode(key.vkey().split("+", 2)[2])[0] == 4
    assert Cosigner.from_skey(W1.skey()).key() == key
    with pytest.raises(NoteError, match="not a cosignature/v1 key"):
        WitnessKey.from_vkey(LOG.verifier().vkey())

    policy = WitnessPolicy.of([W1.key().vkey(), W2.key().vkey()], quorum=1)
    assert [c.witness for c in policy.check(note)] == [key]
    with pytest.raises(QuorumError, match=re.escape("cosigned by 1 of the 2 trusted witnesses, 2 needed; "
                                                    "missing: witness.test/two")):
        WitnessPolicy.of([W1.key().vkey(), W2.key().vkey()]).check(note)
    # A cosignature moved to another checkpoint does not verify, and a known key's bad line rejects the note.
    moved = honest.note(5) + note.rsplit("\n", 2)[-2] + "\n"
    with pytest.raises(NoteError, match=r"cosignature by witness witness\.test/one .* does not verify"):
        cosignatures(moved, [key])


def test_the_witness_follows_the_log_and_refuses_a_forked_branch_saying_why(tmp_path: Path) -> None:
    honest, forged = branches(LOG, 3, 8)
    w = witness(tmp_path)
    cosign(w, honest, 0, 2)
    cosign(w, honest, 2, 5)
    cosign(w, honest, 5, 5)  # the same checkpoint again: cosigned again
    # The forged branch, with the real key: at the witness's size, another root.
    fork = refused(w, forged.body(5, 5))
    assert (fork.status, fork.code) == (409, "fork") and "the log forked" in fork.detail
    # Larger, with a proof from the forged tree of size 5: the proof does not lead to the cosigned root.
    grown = refused(w, forged.body(5, 8))
    assert (grown.status, grown.code) == (422, "inconsistent")
    assert "does not extend the one this witness cosigned (size 5 root" in grown.detail
    # A stale old size gets the stored size (the client then sends a proof from it).
    stale = refused(w, forged.body(3, 8))
    assert (stale.status, stale.stored_size) == (409, 5)
    assert w.answer(forged.body(3, 8)) .body == "5\n" and w.answer(forged.body(3, 8)).content_type == TLOG_SIZE
    # Older than the last one: never cosigned.
    older = refused(w, honest.body(5, 4))
    assert (older.status, older.code) == (400, "old_size_too_large")
    assert (refused(w, honest.body(4, 4)).status, w.state.latest(LOG.name).tree_size) == (409, 5)  # type: ignore[union-attr]
    # Each refusal with the log's valid signature is kept as evidence, with its reason.
    assert [code for _, code, _ in w.state.refusals(LOG.name)] == ["fork", "inconsistent", "old_size_too_large"]
    # The honest branch goes on.
    note = cosign(w, honest, 5, 8)
    assert Checkpoint.parse(parse_note(note).text) == honest.checkpoint(8)


def test_bad_requests_get_a_precise_status_and_change_nothing(tmp_path: Path) -> None:
    honest, _ = branches(LOG, 3, 6)
    w = witness(tmp_path)
    cosign(w, honest, 0, 3)
    other = Signer.generate("torres.test/other-log")
    impostor = Signer.generate(LOG.name)  # the log's name, another key
    good = honest.body(3, 6)
    cases = {
        b"old 3\n": (400, "malformed"),
        b"old 03\n\n" + good.split(b"\n\n", 1)[1]: (400, "malformed"),
        b"old 3\nnot-base64\n\n" + honest.note(6).encode(): (400, "malformed"),
        b"old 3\n" + b"AAAA\n" + b"\n" + honest.note(6).encode(): (400, "malformed"),
        b"\xff\xfe": (400, "malformed"),
        add_checkpoint_body(0, [], Checkpoint(other.name, 1, b"\0" * 32).sign(other)): (404, "unknown_log"),
        add_checkpoint_body(3, merkle.consistency_proof(3, honest.leaves[:6]),
                            honest.checkpoint(6).sign(impostor)): (403, "bad_signature"),
        add_checkpoint_body(3, [b"\1" * 32] * 64, honest.note(6)): (400, "malformed"),
    }
    for body, (status, code) in cases.items():
        answer = w.answer(body)
        assert answer.status == status, (body[:40], answer.body)
        assert json.loads(answer.body)["code"] == code and answer.content_type == "application/problem+json"
    assert w.state.latest(LOG.name).tree_size == 3  # type: ignore[union-attr]
    assert w.answer(b"x" * 70_000).status == 413


def test_a_witness_never_cosigns_both_branches_of_a_fork_even_racing(tmp_path: Path) -> None:
    """The rollback race of c2sp.org/tlog-witness: many threads submit both branches at every size; every
    checkpoint the witness cosigned is consistent with every other one."""
    honest, forged = branches(LOG, 4, 16)
    w = witness(tmp_path)
    cosigned: list[Checkpoint] = []
    lock = threading.Lock()

    def submit(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(40):
            branch = rng.choice((honest, forged))
            size = rng.randint(1, 16)
            stored = w.state.latest(LOG.name)
            old = min(stored.tree_size if stored else 0, size)
            try:
                w.add_checkpoint(branch.body(old, size))
            except Refused:
                continue
            with lock:
                cosigned.append(branch.checkpoint(size))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(cosigned) > 5
    assert_one_history(cosigned, honest, forged)


def assert_one_history(cosigned: list[Checkpoint], *candidates: Branch) -> None:
    """Every cosigned checkpoint is a prefix of one and the same branch (sizes never go back either)."""
    beyond = [cp for cp in cosigned if all(cp != b.checkpoint(cp.size) for b in candidates)]
    assert not beyond, "a checkpoint of no branch was cosigned"
    largest = max(cosigned, key=lambda cp: cp.size)
    owner = [b for b in candidates if b.checkpoint(largest.size) == largest]
    for cp in cosigned:
        assert any(b.checkpoint(cp.size) == cp for b in owner), f"size {cp.size} is of another history"


def test_a_witness_restarted_or_killed_mid_cosign_never_cosigns_an_inconsistent_history(tmp_path: Path) -> None:
    """Real processes: submissions of both branches from several threads while the witness is SIGKILLed at
    random moments and restarted on its state file; the cosignatures it answered all belong to one history, its
    state is the largest of them (or later), and after a clean restart it refuses the other branch and says why."""
    honest, forged = branches(LOG, 4, 24)
    state = tmp_path / "witness.sqlite3"
    cosigned: list[Checkpoint] = []
    lock = threading.Lock()
    rng = random.Random(7)
    for _ in range(3):
        with witness_process(state, W1, [LOG.verifier().vkey()]) as proc:
            stop = threading.Event()

            def submit(seed: int, proc: object = proc, stop: threading.Event = stop) -> None:
                local = random.Random(seed)
                old = 0
                while not stop.is_set():
                    branch = local.choice((honest, forged))
                    size = local.randint(max(old, 1), 24)
                    try:
                        status, ctype, body = proc.post(branch.body(min(old, size), size), timeout=5)  # type: ignore[attr-defined]
                    except (OSError, http.client.HTTPException):
                        return  # killed
                    if status == 409 and ctype == TLOG_SIZE:
                        old = int(body)
                    elif status == 200:
                        with lock:
                            cosigned.append(branch.checkpoint(size))
                        old = size

            threads = [threading.Thread(target=submit, args=(rng.random(),)) for _ in range(4)]
            for thread in threads:
                thread.start()
            time.sleep(rng.uniform(0.3, 1.2))
            os.killpg(proc.process.pid, signal.SIGKILL)
            stop.set()
            for thread in threads:
                thread.join(30)
    assert cosigned
    assert_one_history(cosigned, honest, forged)
    with sqlite3.connect(state) as conn:
        size, root = conn.execute("SELECT tree_size, root FROM checkpoints").fetchone()
    assert size >= max(cp.size for cp in cosigned)
    winner = honest if honest.checkpoint(size).root == root else forged
    loser = forged if winner is honest else honest
    with witness_process(state, W1, [LOG.verifier().vkey()]) as proc:
        status, _, body = proc.post(loser.body(size, 24) if size < 24 else loser.body(size, size))
        assert status in (409, 422), body
        assert json.loads(body)["code"] in ("fork", "inconsistent")
        assert "this witness cosigned" in json.loads(body)["detail"]
        status, _, body = proc.post(winner.body(size, size))
        assert status == 200 and body.startswith(f"\u2014 {W1.name} ")

"""The test vectors of docs/audit.md: a short game's record with every intermediate value, made deterministically.

``python tests/audit/spec_vectors.py`` rewrites docs/audit-vectors/; ``test_spec_vectors.py`` makes them again
and requires the committed files to be byte-identical, then checks each intermediate value on its own.

The game is built from the service's own parts (its event builders, the store's ``stamp``, the shared fold and
its ``follow_up`` rule), with what the service draws at random fixed here: the seed, the salt, the game id,
the times and the keys (test keys, published with the vectors; never use them for anything else).
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import torres_rules as tr
from torres_audit import merkle
from torres_audit.chain import GENESIS_HASH, canonical_json
from torres_audit.note import Checkpoint, Signer
from torres_audit.record import head_text, inclusion_json
from torres_game import events as ev
from torres_game.records import build_record
from torres_game.redaction import FULL
from torres_game.store.base import GameSecret, NewEvent, StoredEvent, stamp
from torres_online import lifecycle as lc
from torres_online.events import initial_state
from torres_online.lifecycle import format_time

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "audit-vectors"

GAME_ID = "00000000-0000-4000-8000-000000000028"
SEED = 271828182845904523536028747135266249775
SALT = "0123456789abcdef0123456789abcdef"
START = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
SEATS = [{"seat": 0, "kind": "human", "player_id": "alice"}, {"seat": 1, "kind": "human", "player_id": "bob"}]
ONLINE = lc.Settings(turn_seconds=60.0, timeout_policy="forfeit")


def key(name: str) -> Signer:
    """A test key whose private seed is SHA-256 of its name: anyone can re-derive (and so forge with) it."""
    return Signer(name, Ed25519PrivateKey.from_private_bytes(hashlib.sha256(name.encode()).digest()))


GAME_KEY = key("torres.invalid/test-vector-game")
LOG_KEY = key("torres.invalid/test-vector-log")


def _salted(event: NewEvent) -> NewEvent:
    if "salt" in event.payload:
        return NewEvent(event.type, {**event.payload, "salt": SALT})
    return event


def play() -> list[StoredEvent]:
    """Setup by the first legal placements; seat 0 builds, takes it back, builds, buys a card and keeps the
    first, ends its turn; seat 1's minute runs out, it forfeits, and with one seat left the game ends."""
    log: list[StoredEvent] = []
    state: tr.State | None = None
    life: lc.Lifecycle | None = None
    at = START

    def append(events: list[NewEvent]) -> None:
        nonlocal state, life
        new = [_salted(e) for e in events]
        for event in new:  # settle as the service does: what follow_up owes joins the same append
            state, life = lc.step(state, life, event.type, event.payload, len(log) + 1, format_time(at),
                                  lambda created: initial_state(created, SEED))
            assert state is not None and life is not None
            due = lc.follow_up(state, life, abandoned=False)
            if due == lc.END:
                new.append(ev.game_ended(state, SEED, life))
            elif due == lc.PASS:
                new.append(ev.action_applied(state.to_move, lc.pass_action(state), auto="forfeit"))
        prev = log[-1].hash if log else GENESIS_HASH
        log.extend(stamp(GAME_ID, len(log) + 1, prev, new, f"cmd-{len(log) + 1}", at))

    def act(action: dict[str, Any]) -> None:
        nonlocal at
        assert state is not None
        at += timedelta(seconds=2)
        append([ev.action_applied(state.to_move, action)])

    append([ev.game_created(edition="rio_grande", master=False, options={}, seats=SEATS, seed=SEED, online=ONLINE)])
    while state is not None and state.stage == "setup":
        act(tr.legal_actions(state)[0])
    assert state is not None and life is not None
    build = next(a for a in tr.legal_actions(state) if a["type"] == "build")
    act(build)
    at += timedelta(seconds=1)
    append([ev.action_undone(state.to_move, log[-1].version)])
    act(build)
    act({"type": "buy_card"})
    act(next(a for a in tr.legal_actions(state) if a["type"] == "keep_card"))
    act(next(a for a in tr.legal_actions(state) if a["type"] == "end_turn"))
    deadline = life.deadline()
    assert deadline is not None and state.to_move == 1
    at = deadline + timedelta(milliseconds=500)
    append([ev.timed_out(1, life, format_time(deadline))])
    return log


def vectors() -> dict[str, str]:
    """The files of docs/audit-vectors/, by name."""
    log = play()
    record = build_record(log, GameSecret(SEED, [None, None]), FULL, GAME_KEY)
    head = head_text(GAME_ID, log[-1].version, log[-1].hash, "over")
    leaves = [head_text("00000000-0000-4000-8000-000000000001", 7, "ab" * 32, "over").encode(),
              head_text("00000000-0000-4000-8000-000000000002", 213, "cd" * 32, "over").encode(),
              head.encode()]
    checkpoint = Checkpoint(LOG_KEY.name, len(leaves), merkle.root(leaves)).sign(LOG_KEY)
    proof = merkle.inclusion_proof(2, leaves)
    record["inclusion"] = inclusion_json(log_key=LOG_KEY.verifier().vkey(), leaf_index=2, tree_size=len(leaves),
                                         proof=proof, checkpoint=checkpoint)
    start = initial_state(log[0].payload, SEED).to_position()
    prev = GENESIS_HASH
    chain = []
    for event in log:
        content = {"game_id": GAME_ID, "version": event.version, "type": event.type, "payload": event.payload,
                   "schema_version": event.schema_version, "created_at": event.created_at,
                   "command_id": event.command_id}
        text = canonical_json(content)
        content_hash = hashlib.sha256(text.encode()).hexdigest()
        chain.append({"version": event.version, "type": event.type, "canonical_content": text,
                      "content_hash": content_hash, "prev_hash": prev, "chain_input": prev + content_hash,
                      "hash": event.hash})
        prev = event.hash
    intermediate = {
        "about": "docs/audit.md, section Test vectors: every value a verifier computes for record.json",
        "keys": {"game": {"vkey": GAME_KEY.verifier().vkey(), "skey": GAME_KEY.skey()},
                 "log": {"vkey": LOG_KEY.verifier().vkey(), "skey": LOG_KEY.skey()}},
        "seed": {"seed": str(SEED), "commitment": hashlib.sha256(str(SEED).encode()).hexdigest(),
                 "mt19937_key": [(SEED >> (32 * i)) & 0xFFFFFFFF for i in range((SEED.bit_length() + 31) // 32)],
                 "start_player": start["start_player"], "master_card": start["master_card"],
                 "decks": start["decks"], "deck": start["deck"]},
        "events": chain,
        "head": {"text": head, "note": record["signature"]["note"]},
        "merkle": {"leaves": [leaf.decode() for leaf in leaves],
                   "leaf_hashes": [merkle.leaf_hash(leaf).hex() for leaf in leaves],
                   "node_0_1": merkle.node_hash(merkle.leaf_hash(leaves[0]), merkle.leaf_hash(leaves[1])).hex(),
                   "root": merkle.root(leaves).hex(), "inclusion_proof_of_leaf_2": [node.hex() for node in proof],
                   "checkpoint": checkpoint},
    }
    later = [*leaves, *(head_text(f"00000000-0000-4000-8000-00000000000{i}", 10 * i, f"{i:02x}" * 32, "over").encode()
                        for i in (3, 4, 5, 6))]
    later_checkpoint = Checkpoint(LOG_KEY.name, len(later), merkle.root(later)).sign(LOG_KEY)

    def b64(nodes: list[bytes]) -> list[str]:
        return [base64.b64encode(node).decode() for node in nodes]

    consistency = {
        "about": "docs/audit.md, section Test vectors: the log of record.json grown to 7 leaves; its checkpoint "
                 "(checkpoint-7.txt), the inclusion proof of record.json's head (leaf 2) at size 7, and the "
                 "consistency proof from every smaller size, as /v1/audit/proof/consistency answers them",
        "leaves": [leaf.decode() for leaf in later],
        "checkpoint": later_checkpoint,
        "inclusion_of_leaf_2": {"leaf_index": 2, "tree_size": len(later),
                                "proof": b64(merkle.inclusion_proof(2, later))},
        "consistency": [{"first": first, "second": len(later),
                         "first_root": base64.b64encode(merkle.root(later[:first])).decode(),
                         "second_root": base64.b64encode(merkle.root(later)).decode(),
                         "proof": b64(merkle.consistency_proof(first, later))} for first in range(1, len(later) + 1)],
    }
    return {
        "record.json": json.dumps(record, indent=1, ensure_ascii=False) + "\n",
        "consistency.json": json.dumps(consistency, indent=1, ensure_ascii=False) + "\n",
        "checkpoint-7.txt": later_checkpoint,
        "intermediate.json": json.dumps(intermediate, indent=1, ensure_ascii=False) + "\n",
        "checkpoint.txt": checkpoint,
        "game.vkey": GAME_KEY.verifier().vkey() + "\n",
        "log.vkey": LOG_KEY.verifier().vkey() + "\n",
    }


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in vectors().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print(f"wrote {OUT / name}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    sys.exit(main())

"""The cosigned-checkpoint test vectors of docs/audit.md ("Witnesses"): two witnesses' test keys (private seed =
SHA-256 of the name, published: never use them for anything else) cosign the vector log's checkpoints of sizes 3
and 7 at fixed timestamps, and the vector record carries the cosigned size-3 checkpoint.

``python tests/audit/cosignature_vectors.py`` rewrites docs/audit-vectors/witnesses/;
``test_cosignature_vectors.py`` makes them again and requires them byte-identical, and recomputes every value
with nothing but hashlib and the Ed25519 primitive."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from torres_audit.cosignature import Cosigner, cosigned_message
from torres_audit.note import parse_note

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "docs" / "audit-vectors"
OUT = VECTORS / "witnesses"
#: 2026-01-01T12:05:00Z and 12:06:00Z: the cosignatures' timestamps (c2sp.org/tlog-cosignature's u64 seconds).
TIMES = {3: 1767269100, 7: 1767269160}


def witness(name: str) -> Cosigner:
    """A test witness key whose private seed is SHA-256 of its name: anyone can re-derive (and forge with) it."""
    return Cosigner(name, Ed25519PrivateKey.from_private_bytes(hashlib.sha256(name.encode()).digest()))


WITNESSES = (witness("torres.invalid/test-vector-witness-1"), witness("torres.invalid/test-vector-witness-2"))


def cosigned(note: str, timestamp: int) -> str:
    text = parse_note(note).text
    return note + "".join(w.cosign(text, timestamp) for w in WITNESSES)


def vectors() -> dict[str, str]:
    checkpoint3 = (VECTORS / "checkpoint.txt").read_text(encoding="utf-8")
    checkpoint7 = (VECTORS / "checkpoint-7.txt").read_text(encoding="utf-8")
    record = json.loads((VECTORS / "record.json").read_text(encoding="utf-8"))
    record["inclusion"]["checkpoint"] = cosigned(checkpoint3, TIMES[3])
    details = []
    for size, note in ((3, checkpoint3), (7, checkpoint7)):
        text = parse_note(note).text
        for w in WITNESSES:
            line = w.cosign(text, TIMES[size])
            details.append({"tree_size": size, "witness": w.name, "vkey": w.key().vkey(), "skey": w.skey(),
                            "key_id": f"{w.key().key_id:08x}", "timestamp": TIMES[size],
                            "signed_message": cosigned_message(text, TIMES[size]).decode(),
                            "signature_line": line})
    return {
        "witness-1.vkey": WITNESSES[0].key().vkey() + "\n",
        "witness-2.vkey": WITNESSES[1].key().vkey() + "\n",
        "checkpoint-cosigned.txt": cosigned(checkpoint3, TIMES[3]),
        "checkpoint-7-cosigned.txt": cosigned(checkpoint7, TIMES[7]),
        "record-cosigned.json": json.dumps(record, indent=1, ensure_ascii=False) + "\n",
        "cosignatures.json": json.dumps(details, indent=1, ensure_ascii=False) + "\n",
    }


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in vectors().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print(f"wrote {OUT / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The cosigned-checkpoint vectors of docs/audit.md ("Witnesses"), docs/audit-vectors/witnesses/: made again byte
for byte, every value recomputed from c2sp.org/tlog-cosignature's definitions with hashlib and the Ed25519
primitive alone, checked by the CLI, and quoted by the specification."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .cosignature_vectors import OUT, VECTORS, vectors

SPEC = Path(__file__).resolve().parents[2] / "docs" / "audit.md"


def committed(name: str) -> str:
    return (OUT / name).read_text(encoding="utf-8")


def test_the_committed_vectors_are_what_the_code_makes() -> None:
    for name, text in vectors().items():
        assert committed(name) == text, f"docs/audit-vectors/witnesses/{name} is stale: run " \
                                        "python tests/audit/cosignature_vectors.py"


def test_every_cosignature_recomputes_from_the_c2sp_definitions() -> None:
    details = json.loads(committed("cosignatures.json"))
    assert len(details) == 4
    for item in details:
        name, hex_id, key = item["vkey"].split("+", 2)
        raw = base64.b64decode(key)
        assert raw[0] == 0x04 and len(raw) == 33 and name == item["witness"]
        key_id = hashlib.sha256(name.encode() + b"\n" + b"\x04" + raw[1:]).digest()[:4]
        assert key_id.hex() == hex_id == item["key_id"]
        source = VECTORS / ("checkpoint.txt" if item["tree_size"] == 3 else "checkpoint-7.txt")
        body = source.read_text(encoding="utf-8").split("\n\n")[0] + "\n"
        message = f"cosignature/v1\ntime {item['timestamp']}\n{body}"
        assert item["signed_message"] == message
        dash, line_name, blob_text = item["signature_line"].rstrip("\n").split(" ")
        blob = base64.b64decode(blob_text)
        assert (dash, line_name) == ("\u2014", name) and len(blob) == 4 + 8 + 64
        assert blob[:4] == key_id and int.from_bytes(blob[4:12], "big") == item["timestamp"]
        Ed25519PublicKey.from_public_bytes(raw[1:]).verify(blob[12:], message.encode())  # raises if it does not
        cosigned = committed("checkpoint-cosigned.txt" if item["tree_size"] == 3 else "checkpoint-7-cosigned.txt")
        assert cosigned.startswith(source.read_text(encoding="utf-8")) and item["signature_line"] in cosigned


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "torres_audit", "verify", *args], capture_output=True, text=True,
                          timeout=60, check=False)


def test_the_cli_requires_the_witnesses_it_is_given() -> None:
    keys = ("--key", str(VECTORS / "game.vkey"), "--key", str(VECTORS / "log.vkey"))
    witnesses = ("--witness", str(OUT / "witness-1.vkey"), "--witness", str(OUT / "witness-2.vkey"))
    done = cli(str(OUT / "record-cosigned.json"), *keys, *witnesses)
    assert done.returncode == 0 and done.stdout.endswith("VERIFIED\n"), done.stdout + done.stderr
    assert "cosigned by 2 of 2 trusted witnesses (2 needed)" in done.stdout
    # The record of the same game whose checkpoint only the log signed: refused, the missing witnesses named.
    bare = cli(str(VECTORS / "record.json"), *keys, *witnesses)
    assert bare.returncode == 1
    assert ("not witnessed: cosigned by 0 of the 2 trusted witnesses, 2 needed; missing: "
            "torres.invalid/test-vector-witness-1, torres.invalid/test-vector-witness-2") in bare.stdout
    # Without --witness the cosignatures are unknown signatures, ignored (c2sp.org/signed-note).
    assert cli(str(OUT / "record-cosigned.json"), *keys).returncode == 0


def test_the_specification_quotes_the_vectors() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    details = json.loads(committed("cosignatures.json"))
    first = details[0]
    for value in (committed("witness-1.vkey").strip(), committed("witness-2.vkey").strip(), first["key_id"],
                  str(first["timestamp"]), first["signature_line"].strip()):
        assert value in spec, value
    for line in first["signed_message"].splitlines():  # quoted as a block
        assert line in spec, line

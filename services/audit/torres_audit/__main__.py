"""``python -m torres_audit verify record.json [--checkpoint cp.txt] [--key VKEY ...] [--json]``
and ``python -m torres_audit keygen NAME`` (a signing key for TORRES_SIGNING_KEY and the vkey to publish).

Verifies a game record offline and prints what was checked; exits 0 when the record verifies, 1 when it is
refused (the report names the first problem and its version), 2 when the command itself cannot run (no such
file, a key that is not a vkey). Everything it needs is in the record and this package: no network.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .note import NoteError, Signer, Verifier
from .verify import verify_text


def _key(text: str) -> Verifier:
    """A vkey (``name+id+base64``), or a file holding one."""
    path = Path(text)
    if "+" not in text and path.is_file():
        text = path.read_text(encoding="utf-8").strip()
    try:
        return Verifier.from_vkey(text)
    except NoteError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torres_audit",
                                     description="Verify Torres game records without trusting the service.")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="verify a game record (JSON) offline")
    verify.add_argument("record", type=Path, help="the record, as GET /v1/games/<id>/record returns it ('-': stdin)")
    verify.add_argument("--key", type=_key, action="append", default=[], metavar="VKEY",
                        help="a key you trust (the service's, the log's): name+keyid+base64, or a file holding "
                             "one; repeat for several. Without it the record's own keys are used, with a warning")
    verify.add_argument("--checkpoint", type=Path, metavar="FILE",
                        help="a signed checkpoint of the transparency log you obtained yourself; the record's "
                             "inclusion proof must lead to its root")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    keygen = commands.add_parser("keygen", help="make an Ed25519 signing key: its skey (keep secret: "
                                                "TORRES_SIGNING_KEY) and its vkey (publish it for auditors)")
    keygen.add_argument("name", help="the key's name, e.g. games.example.org/2026 (no spaces, no '+')")
    args = parser.parse_args(argv)
    if args.command == "keygen":
        try:
            signer = Signer.generate(args.name)
        except NoteError as exc:
            print(f"torres-audit: {exc}", file=sys.stderr)
            return 2
        print(f"skey {signer.skey()}\nvkey {signer.verifier().vkey()}")
        return 0

    try:
        data = sys.stdin.buffer.read() if str(args.record) == "-" else args.record.read_bytes()
        checkpoint = args.checkpoint.read_text(encoding="utf-8") if args.checkpoint else None
    except (OSError, UnicodeDecodeError) as exc:
        print(f"torres-audit: cannot read: {exc}", file=sys.stderr)
        return 2
    report = verify_text(data, keys=args.key, checkpoint=checkpoint)
    sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n" if args.json else report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

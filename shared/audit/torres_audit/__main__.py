"""``python -m torres_audit verify record.json [--checkpoint cp.txt [--url URL]] [--key VKEY ...] [--json]``
and ``python -m torres_audit keygen NAME`` (a signing key for TORRES_SIGNING_KEY and the vkey to publish),
``python -m torres_audit monitor --state FILE --url URL --key VKEY [--record R.json ...] [--api-key K]
[--admin-key K]`` (checks the log's new checkpoint against the kept one), ``python -m torres_audit compare A B
--key VKEY [--url URL]`` (two monitors' checkpoints: split-view detection) and ``python -m torres_audit witness
--state FILE --log VKEY`` (a c2sp.org/tlog-witness; ``keygen --witness NAME`` makes its key). ``verify`` and
``monitor`` take ``--witness VKEY ... [--quorum K]``: the checkpoint must be cosigned by K of those witnesses
(docs/audit.md section 14).

Verifies a game record offline and prints what was checked; exits 0 when the record verifies, 1 when it is
refused (the report names the first problem and its version), 2 when the command itself cannot run (no such
file, a key that is not a vkey). Everything it needs is in the record and this package: no network, unless a
checkpoint of another tree size than the record's is given with ``--url``, the log whose proofs for that size
are fetched (docs/audit.md section 9).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .cosignature import Cosigner, WitnessKey, WitnessPolicy
from .monitor import Credentials, Log, MonitorError, Unreachable, compare, monitor
from .note import NoteError, Signer, Verifier
from .verify import verify_text


def _key(text: str) -> list[Verifier]:
    """A vkey (``name+id+base64``), or a file holding one or more, one a line (the text of
    ``/.well-known/torres-audit-key`` as you pinned it, e.g. a mounted ConfigMap during a key rotation)."""
    path = Path(text)
    lines = [text]
    if "+" not in text and path.is_file():
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if not lines:
            raise argparse.ArgumentTypeError(f"{text} holds no key")
    try:
        return [Verifier.from_vkey(line) for line in lines]
    except NoteError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _witness(args: argparse.Namespace) -> int:
    """Runs the witness until SIGTERM; its key comes from the environment only (TORRES_WITNESS_KEY), never
    from an argument that ``ps`` shows."""
    from .witness import Witness, WitnessState, serve

    skey = os.environ.get("TORRES_WITNESS_KEY", "")
    try:
        cosigner = Cosigner.from_skey(skey)
    except NoteError as exc:
        print(f"torres-audit witness: TORRES_WITNESS_KEY: {exc} (make one with keygen --witness NAME)",
              file=sys.stderr)
        return 2
    logs: dict[str, list[Verifier]] = {}
    for key in _keys(args.log):
        logs.setdefault(key.name, []).append(key)
    witness = Witness(cosigner, logs, WitnessState(args.state))
    print(f"witness {cosigner.key().vkey()} on http://{args.host}:{args.port} for {', '.join(logs)}", flush=True)
    serve(witness, args.host, args.port, args.threads)
    return 0


def _witness_key(text: str) -> list[WitnessKey]:
    """A witness's vkey (type 0x04), or a file holding one or more, one a line."""
    path = Path(text)
    lines = [text]
    if "+" not in text and path.is_file():
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        return [WitnessKey.from_vkey(line) for line in lines]
    except NoteError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _witness_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--witness", type=_witness_key, action="append", default=[], metavar="VKEY",
                         help="a witness you trust (its cosignature vkey, or a file of them); repeat for each")
    command.add_argument("--quorum", type=int, metavar="K",
                         help="how many of the --witness keys must have cosigned the checkpoint (default: a "
                              "majority of them; 0 with no --witness)")


def _policy(args: argparse.Namespace) -> WitnessPolicy:
    witnesses = tuple(key for keys in args.witness for key in keys)
    quorum = args.quorum if args.quorum is not None else (len(witnesses) // 2 + 1 if witnesses else 0)
    if not 0 <= quorum <= len(witnesses):
        raise SystemExit(f"torres-audit: --quorum {quorum} of {len(witnesses)} trusted witnesses")
    return WitnessPolicy(witnesses, quorum)


def _keys(given: list[list[Verifier]]) -> list[Verifier]:
    return [key for keys in given for key in keys]


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
    verify.add_argument("--url", help="the game service whose log to fetch proofs from when the --checkpoint is of "
                                      "another tree size than the record's proof, e.g. https://games.example.org")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    _witness_options(verify)
    keygen = commands.add_parser("keygen", help="make an Ed25519 signing key: its skey (keep secret: "
                                                "TORRES_SIGNING_KEY) and its vkey (publish it for auditors)")
    keygen.add_argument("name", help="the key's name, e.g. games.example.org/2026 (no spaces, no '+')")
    keygen.add_argument("--witness", action="store_true",
                        help="a witness's cosigning key (c2sp.org/tlog-cosignature, type 0x04) for "
                             "TORRES_WITNESS_KEY instead of a note signing key")
    witness = commands.add_parser("witness", help="run a transparency-log witness (c2sp.org/tlog-witness): "
                                                  "cosigns a log's checkpoints that extend the last one it cosigned")
    witness.add_argument("--state", type=Path, required=True, metavar="FILE",
                         help="its SQLite state file (created on first run): the last checkpoint cosigned per log")
    witness.add_argument("--log", type=_key, action="append", default=[], required=True, metavar="VKEY",
                         help="a log to witness: its vkey (the key's name is the log's origin), or a file of "
                              "them; repeat for several logs, or for one log's keys during a rotation")
    witness.add_argument("--host", default="127.0.0.1")
    witness.add_argument("--port", type=int, default=8600)
    witness.add_argument("--threads", type=int, default=4)
    watch = commands.add_parser("monitor", help="check the log's checkpoint is consistent with the one kept in "
                                                "--state, then keep it (exit 1 on any inconsistency)")
    watch.add_argument("--state", type=Path, required=True, metavar="FILE",
                       help="the last checkpoint this monitor verified (a signed note; created on first run)")
    watch.add_argument("--url", required=True, help="the game service, e.g. https://games.example.org")
    watch.add_argument("--key", type=_key, action="append", default=[], required=True, metavar="VKEY",
                       help="the log's public key (name+keyid+base64, or a file holding one or more, one a line); "
                            "repeat during a rotation")
    watch.add_argument("--record", type=Path, action="append", default=[], metavar="RECORD",
                       help="a finished game's record you kept: its head must still be in the log and served")
    watch.add_argument("--api-key", default=os.environ.get("TORRES_API_KEY") or None,
                       help="the portal's key, to read its private games' records (env TORRES_API_KEY)")
    watch.add_argument("--admin-key", default=os.environ.get("TORRES_ADMIN_KEY") or None,
                       help="the operator's key, which reads every game (env TORRES_ADMIN_KEY)")
    _witness_options(watch)
    both = commands.add_parser("compare", help="compare the checkpoints two monitors kept (split view)")
    both.add_argument("first", type=Path)
    both.add_argument("second", type=Path)
    both.add_argument("--key", type=_key, action="append", default=[], required=True, metavar="VKEY")
    both.add_argument("--url", help="the log, to fetch a consistency proof when the sizes differ")
    args = parser.parse_args(argv)
    if args.command in ("monitor", "compare"):
        try:
            lines = (monitor(args.url, args.state, _keys(args.key), args.record,
                             Credentials(api_key=args.api_key, admin_key=args.admin_key), _policy(args))
                     if args.command == "monitor" else compare(args.first, args.second, _keys(args.key), args.url))
        except MonitorError as exc:
            print(f"torres-audit {args.command}: INCONSISTENT: {exc}", file=sys.stderr)
            return 1
        except Unreachable as exc:
            print(f"torres-audit {args.command}: {exc}", file=sys.stderr)
            return 2
        print("\n".join(lines) + ("\nOK" if args.command == "monitor" else ""))
        return 0
    if args.command == "keygen":
        try:
            if args.witness:
                cosigner = Cosigner.generate(args.name)
                print(f"skey {cosigner.skey()}\nvkey {cosigner.key().vkey()}")
                return 0
            signer = Signer.generate(args.name)
        except NoteError as exc:
            print(f"torres-audit: {exc}", file=sys.stderr)
            return 2
        print(f"skey {signer.skey()}\nvkey {signer.verifier().vkey()}")
        return 0
    if args.command == "witness":
        return _witness(args)

    try:
        data = sys.stdin.buffer.read() if str(args.record) == "-" else args.record.read_bytes()
        checkpoint = args.checkpoint.read_text(encoding="utf-8") if args.checkpoint else None
    except (OSError, UnicodeDecodeError) as exc:
        print(f"torres-audit: cannot read: {exc}", file=sys.stderr)
        return 2
    if args.url and checkpoint is None:
        print("torres-audit: --url fetches the proofs for a --checkpoint of another size: give the checkpoint",
              file=sys.stderr)
        return 2
    report = verify_text(data, keys=_keys(args.key), checkpoint=checkpoint,
                         log=Log(args.url.rstrip("/")) if args.url else None, witnesses=_policy(args))
    sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n" if args.json else report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

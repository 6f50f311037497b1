"""The monitor of the transparency log: keeps the last checkpoint it saw and refuses any that does not extend it.

A signed checkpoint alone proves nothing about the past; what makes the log trustworthy is that someone outside
the operator keeps old checkpoints and checks each new one against them (RFC 9162 section 8.3, the Go checksum
database's clients, Sigstore's witnesses). ``python -m torres_audit monitor`` is that someone: it fetches the
checkpoint, checks its signature by keys it was given, checks the RFC 9162 consistency proof from the kept one,
and only then keeps the new one. Any failure is printed with what exactly is wrong and exits 1: a rewritten or
deleted game in a log that was rebuilt shows up here as a fork, a forged checkpoint as a bad signature.

Two monitors that each see only their own view cannot notice a log that shows them different histories (a
"split view"); ``python -m torres_audit compare`` compares the checkpoints two monitors kept (their state files
are the signed checkpoints themselves, so they can be mailed, published or handed to a witness as they are).

``--record`` adds the games a portal cares about: the kept record's head must still be in the log, and the
service must still serve that same head; a game deleted, truncated, swapped or rewritten after it was logged is
named with what the service serves now.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import merkle
from .cosignature import NO_WITNESSES, Cosignature, WitnessPolicy
from .note import Checkpoint, NoteError, Verifier, open_checkpoint
from .record import RecordError, loads, parse

__all__ = ["Credentials", "Log", "MonitorError", "Unreachable", "compare", "monitor"]

TIMEOUT = 30.0


class MonitorError(Exception):
    """An inconsistency: the log or the service is not what the kept state says it must be (exit 1)."""


class Unreachable(Exception):
    """The monitor could not do its job (network, files, arguments): exit 2, nothing was concluded."""


@dataclass(frozen=True)
class Fetched:
    status: int
    body: bytes


@dataclass(frozen=True)
class Credentials:
    """What the monitor presents when it reads a game's record: a private game is readable only with a key that
    may read it (the portal's ``X-API-Key``, the operator's ``X-Admin-Key``); without one the service answers
    404 exactly as for a game that does not exist. The log's endpoints are public and get none of them."""

    api_key: str | None = None
    admin_key: str | None = None

    def headers(self) -> dict[str, str]:
        given = {"X-API-Key": self.api_key, "X-Admin-Key": self.admin_key}
        return {name: value for name, value in given.items() if value}

    def describe(self) -> str:
        names = [name for name, value in (("the portal's key (--api-key)", self.api_key),
                                          ("the operator's key (--admin-key)", self.admin_key)) if value]
        return " and ".join(names) or "no credentials"


def _get(url: str, headers: dict[str, str] | None = None) -> Fetched:
    request = urllib.request.Request(url, headers={"User-Agent": "torres-audit-monitor/1", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return Fetched(response.status, response.read())
    except urllib.error.HTTPError as exc:
        return Fetched(exc.code, exc.read())
    except (urllib.error.URLError, OSError) as exc:
        raise Unreachable(f"cannot reach {url}: {exc}") from exc


def _json(fetched: Fetched, url: str) -> Any:
    try:
        return json.loads(fetched.body)
    except ValueError as exc:
        raise MonitorError(f"{url} answered {fetched.status} with something that is not JSON") from exc


@dataclass(frozen=True)
class Log:
    """The transparency log's public proof endpoints at ``url`` (docs/audit.md section 13): what the monitor and
    ``verify --url`` ask for. Answers that are not proofs raise :class:`MonitorError`; no answer,
    :class:`Unreachable`."""

    url: str

    def inclusion(self, leaf: bytes, size: int) -> tuple[int, list[bytes]] | None:
        """The leaf index and audit path of the leaf hash ``leaf`` in the tree of ``size`` leaves; None when the
        log answers that it does not hold that leaf (404)."""
        where = f"{self.url}/v1/audit/proof/inclusion?" + urllib.parse.urlencode(
            {"leaf_hash": leaf.hex(), "tree_size": size})
        fetched = _get(where)
        if fetched.status == 404:
            return None
        if fetched.status != 200:
            raise Unreachable(f"{where} answered {fetched.status}")
        body = _json(fetched, where)
        index = body.get("leaf_index") if isinstance(body, dict) else None
        if not isinstance(index, int) or isinstance(index, bool):
            raise MonitorError(f"{where} names no leaf index")
        return index, _hashes(body.get("proof"), "the inclusion proof")

    def consistency(self, first: int, second: int, who: str) -> list[bytes]:
        """The consistency proof from the tree of ``first`` leaves to the one of ``second``."""
        where = f"{self.url}/v1/audit/proof/consistency?" + urllib.parse.urlencode({"first": first, "second": second})
        fetched = _get(where)
        if fetched.status != 200:
            raise MonitorError(f"the log cannot prove that tree size {second} extends {who} (size {first}): "
                               f"{where} answered {fetched.status}")
        body = _json(fetched, where)
        return _hashes(body.get("proof") if isinstance(body, dict) else None, "the consistency proof")


def _hashes(values: Any, what: str) -> list[bytes]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise MonitorError(f"{what} is not a list of base64 hashes")
    try:
        return [base64.b64decode(v, validate=True) for v in values]
    except (binascii.Error, ValueError) as exc:
        raise MonitorError(f"{what} is not a list of base64 hashes") from exc


def _open(text: str, keys: Sequence[Verifier], what: str, origin: str | None = None) -> Checkpoint:
    try:
        checkpoint, _ = open_checkpoint(text, keys, origin=origin)
    except NoteError as exc:
        raise MonitorError(f"{what} does not verify: {exc}") from exc
    return checkpoint


def _describe(cp: Checkpoint) -> str:
    return f"size {cp.size} root {base64.b64encode(cp.root).decode()}"


def fetch_checkpoint(url: str, keys: Sequence[Verifier]) -> tuple[str, Checkpoint]:
    where = f"{url}/v1/audit/checkpoint"
    fetched = _get(where)
    if fetched.status != 200:
        raise MonitorError(f"{where} answered {fetched.status}: the log serves no checkpoint")
    try:
        text = fetched.body.decode()
    except UnicodeDecodeError as exc:
        raise MonitorError(f"the checkpoint from {where} is not UTF-8 text") from exc
    return text, _open(text, keys, f"the checkpoint served by {where}")


def witnessed(text: str, checkpoint: Checkpoint, witnesses: WitnessPolicy, what: str) -> list[Cosignature]:
    """The trusted cosignatures on a checkpoint; raises :class:`MonitorError` naming the missing witnesses when
    fewer than their quorum cosigned it."""
    try:
        return witnesses.check(text)
    except NoteError as exc:
        raise MonitorError(f"{what} ({_describe(checkpoint)}) is not witnessed: {exc}") from exc


def check_consistent(url: str, old: Checkpoint, new: Checkpoint, who: str = "the checkpoint kept") -> None:
    """Raise :class:`MonitorError` unless the log proves ``new`` extends ``old`` (fetching the proof from
    ``url`` when the sizes differ)."""
    if old.origin != new.origin:
        raise MonitorError(f"the log's origin changed from {old.origin!r} to {new.origin!r}")
    if new.size < old.size:
        raise MonitorError(f"the log shrank: {who} is of {_describe(old)}, the log now serves {_describe(new)}; "
                           "an append-only log never does: it was rebuilt (keep both checkpoints as evidence)")
    if new.size == old.size:
        if new.root != old.root:
            raise MonitorError(f"the log forked: two different roots for tree size {old.size}, {who} "
                               f"{_describe(old)} and now {_describe(new)}, both signed by the log's key "
                               "(keep both checkpoints as evidence)")
        return
    if old.size == 0:
        return  # every tree extends the empty one
    proof = Log(url).consistency(old.size, new.size, f"{who} ({_describe(old)})")
    try:
        merkle.verify_consistency(old.size, new.size, proof, old.root, new.root)
    except merkle.ProofError as exc:
        raise MonitorError(f"the log forked: the tree of {_describe(new)} does not extend {who} "
                           f"({_describe(old)}): {exc} (keep both checkpoints as evidence)") from exc


def check_record(url: str, record_file: Path, current: Checkpoint, credentials: Credentials = Credentials()) -> str:
    """That a game record kept by the portal is still what the log and the service say: its head is in the log
    at ``current`` and the service still serves the same head, read with ``credentials``. Returns a line for the
    report. A 404 is "deleted" only to the operator's key, which reads every game: to any other reader the
    service answers 404 for a private game it may not read too, so the monitor says the game is not readable
    with these credentials and concludes nothing (exit 2)."""
    try:
        record = parse(loads(record_file.read_bytes()))
    except (OSError, RecordError) as exc:
        raise Unreachable(f"cannot read the record {record_file}: {exc}") from exc
    if record.status != "over":
        raise Unreachable(f"{record_file} is the record of a running game: only finished games are logged")
    game = record.game_id
    leaf = merkle.leaf_hash(record.head_text().encode())
    found = Log(url).inclusion(leaf, current.size)
    if found is None:
        raise MonitorError(f"game {game}: the log at {_describe(current)} does not hold the head you kept "
                           f"(version {record.head_version} hash {record.head_hash})")
    index, proof = found
    try:
        merkle.verify_inclusion(index, current.size, leaf, proof, current.root)
    except merkle.ProofError as exc:
        raise MonitorError(f"game {game}: the log's proof of the head you kept does not verify: {exc}") from exc
    served = _get(f"{url}/v1/games/{urllib.parse.quote(game)}/record", credentials.headers())
    logged = f"the log holds its head (version {record.head_version} hash {record.head_hash}) at leaf {index}"
    if served.status == 404 and credentials.admin_key:
        raise MonitorError(f"game {game} was deleted: the service answers 404 to the operator's key, but {logged}")
    if served.status in (401, 403, 404):
        raise Unreachable(f"game {game} is not readable with these credentials ({credentials.describe()}): the "
                          f"service answers {served.status}, as it answers a reader a private game is hidden from "
                          f"(and, alike, a game that no longer exists); {logged}. Give credentials that may read "
                          "it: the portal's key (--api-key) or the operator's (--admin-key)")
    if served.status != 200:
        raise Unreachable(f"the service answered {served.status} for game {game}'s record")
    doc = _json(served, "the service's record")
    head = doc.get("head") if isinstance(doc, dict) else None
    status = doc.get("status") if isinstance(doc, dict) else None
    if not isinstance(head, dict) or (head.get("version"), head.get("hash"), status) != (
            record.head_version, record.head_hash, "over") or doc.get("game_id") != game:
        now = f"version {head.get('version')} hash {head.get('hash')}, {status}" if isinstance(head, dict) else "?"
        raise MonitorError(f"game {game} was rewritten: the service now serves head {now}; the head logged at "
                           f"leaf {index} is version {record.head_version} hash {record.head_hash}, over")
    return f"game {game}: head version {record.head_version} is leaf {index}, and the service still serves it"


def _write_state(path: Path, text: str) -> None:
    """Atomically (write, fsync, rename): a monitor killed mid-write keeps the previous checkpoint."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def monitor(url: str, state: Path, keys: Sequence[Verifier], records: Sequence[Path] = (),
            credentials: Credentials = Credentials(), witnesses: WitnessPolicy = NO_WITNESSES) -> list[str]:
    """One monitoring run; returns the report's lines, raises :class:`MonitorError` or :class:`Unreachable`.
    ``witnesses``: the checkpoint must carry cosignatures from their quorum (the report names those missing)."""
    url = url.rstrip("/")
    if not keys:
        raise Unreachable("a monitor needs the log's key (--key): a key fetched from the log itself proves nothing")
    text, current = fetch_checkpoint(url, keys)
    cosigned = witnessed(text, current, witnesses, f"the checkpoint served by {url}")
    lines = [f"checkpoint of {current.origin}: {_describe(current)}, signature verified"]
    if witnesses.witnesses:
        lines.append(witnesses.describe(cosigned))
    if state.exists():
        try:
            kept_text = state.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise Unreachable(f"cannot read the state {state}: {exc}") from exc
        kept = _open(kept_text, keys, f"the checkpoint kept in {state}")
        check_consistent(url, kept, current)
        lines.append(f"consistent with the checkpoint kept ({_describe(kept)})")
    else:
        lines.append(f"no state in {state} yet: this checkpoint is trusted on first use")
    lines += [check_record(url, path, current, credentials) for path in records]
    _write_state(state, text)
    lines.append(f"kept in {state}")
    return lines


def compare(first: Path, second: Path, keys: Sequence[Verifier], url: str | None = None) -> list[str]:
    """Compare the checkpoints two monitors kept (split-view detection)."""
    texts = []
    for path in (first, second):
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise Unreachable(f"cannot read {path}: {exc}") from exc
    a = _open(texts[0], keys, f"the checkpoint in {first}")
    b = _open(texts[1], keys, f"the checkpoint in {second}")
    if a.origin != b.origin:
        raise MonitorError(f"{first} is of log {a.origin!r}, {second} of log {b.origin!r}")
    if a.size == b.size:
        if a.root != b.root:
            raise MonitorError(f"split view: the log signed two different trees of size {a.size}: {first} has root "
                               f"{base64.b64encode(a.root).decode()}, {second} has root "
                               f"{base64.b64encode(b.root).decode()} (keep both files: they are proof)")
        return [f"{first} and {second} agree: {_describe(a)}"]
    if url is None:
        raise Unreachable(f"the checkpoints are of sizes {a.size} and {b.size}: pass --url to fetch the log's "
                          "consistency proof between them")
    old, new = (a, b) if a.size < b.size else (b, a)
    names = (first, second) if a.size < b.size else (second, first)
    try:
        check_consistent(url.rstrip("/"), old, new, who=f"the checkpoint in {names[0]}")
    except MonitorError as exc:
        raise MonitorError(f"split view between {names[0]} and {names[1]}: {exc}") from exc
    return [f"{names[1]} ({_describe(new)}) extends {names[0]} ({_describe(old)}): the log proved it"]

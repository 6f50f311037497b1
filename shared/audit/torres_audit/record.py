"""The game record: one self-contained JSON document that lets anyone check a game without the service.

A record holds every event of the game with its chain hashes (payloads as the reader may see them; every
payload, and the seed, once the game is over), the creation parameters, the result, the service's signature
over the head of the chain, and (once the transparency log runs) the proof that the log holds that head.
docs/audit.md, "The game record", is the normative description; this module parses a record strictly (any
member missing, unknown, duplicated or of the wrong type is refused) and writes the parts the service signs.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .chain import Problem, canonical_json
from .note import Signer, sign_note

FORMAT = "torres-game-record/1"
HEAD_LINE = "torres-game-head/v1"
STATUSES = ("active", "over")
READER_KINDS = ("full", "seat", "spectator")

_HEX64 = re.compile(r"[0-9a-f]{64}")
_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_GAME_ID = re.compile(r"[A-Za-z0-9._:-]{1,100}")
#: The longest integer a record may hold (CPython refuses to read longer ones; no value of a record comes near).
MAX_INTEGER_DIGITS = 4300
#: The longest seed a record may reveal: a 128-bit seed has 39 digits.
MAX_SEED_DIGITS = 100

RECORD_MEMBERS = frozenset({"format", "game_id", "status", "reader", "creation", "seed", "result", "events", "head",
                            "signature", "inclusion"})
EVENT_MEMBERS = frozenset({"version", "type", "payload", "schema_version", "created_at", "command_id", "prev_hash",
                           "hash"})
INCLUSION_MEMBERS = frozenset({"log_key", "leaf_index", "tree_size", "proof", "checkpoint"})


class RecordError(ValueError):
    """A record that is not well-formed; ``problem`` names the version (0: the record as a whole)."""

    def __init__(self, version: int, reason: str) -> None:
        super().__init__(f"version {version}: {reason}")
        self.problem = Problem(version, reason)


def head_text(game_id: str, version: int, head_hash: str, status: str) -> str:
    """The statement the service signs about a game (a signed note's text), and, for a finished game, the leaf
    the transparency log holds: which game, how far its log goes, the hash of that head, whether it ended."""
    return f"{HEAD_LINE}\ngame {game_id}\nversion {version}\nhash {head_hash}\nstatus {status}\n"


def sign_head(signer: Signer, game_id: str, version: int, head_hash: str, status: str) -> dict[str, str]:
    """The record's ``signature`` member: the signer's vkey and the signed note of :func:`head_text`."""
    return {"key": signer.verifier().vkey(), "note": sign_note(head_text(game_id, version, head_hash, status), signer)}


def event_json(
    *, version: int, type: str, payload: dict[str, Any], schema_version: int, created_at: str, command_id: str,
    prev_hash: str, hash: str, content_hash: str | None = None,
) -> dict[str, Any]:
    """One event of a record; ``content_hash`` (with ``"redacted": true``) stands in for a payload the reader
    may not see in full, so the chain still verifies."""
    doc: dict[str, Any] = {
        "version": version, "type": type, "payload": payload, "schema_version": schema_version,
        "created_at": created_at, "command_id": command_id, "prev_hash": prev_hash, "hash": hash,
    }
    if content_hash is not None:
        doc |= {"redacted": True, "content_hash": content_hash}
    return doc


@dataclass(frozen=True)
class RecordEvent:
    version: int
    type: str
    payload: dict[str, Any]
    schema_version: int
    created_at: str
    command_id: str
    prev_hash: str
    hash: str
    content_hash: str | None = None  # set for a redacted event: the chain is checked with it


@dataclass(frozen=True)
class Inclusion:
    """Where the transparency log holds this game's final head: an RFC 9162 audit path to a checkpoint."""

    log_key: str
    leaf_index: int
    tree_size: int
    proof: tuple[bytes, ...]
    checkpoint: str


@dataclass(frozen=True)
class Record:
    game_id: str
    status: str
    reader: dict[str, Any]
    creation: dict[str, Any]
    seed: int | None
    result: dict[str, Any] | None
    events: tuple[RecordEvent, ...]
    head_version: int
    head_hash: str
    signature_key: str
    signature_note: str
    inclusion: Inclusion | None

    @property
    def full(self) -> bool:
        return self.reader.get("kind") == "full"

    def head_text(self) -> str:
        return head_text(self.game_id, self.head_version, self.head_hash, self.status)


def loads(text: str | bytes) -> Any:
    """JSON as a record allows it: no repeated member names, no NaN or Infinity, every number in its canonical
    text and every string of Unicode scalar values (docs/audit.md, section 2). A number's text is all a verifier
    keeping it can hash, so a record whose ``6e1`` reads back as the ``60.0`` it was hashed as would verify for
    one verifier and not for another; a lone surrogate (``\\ud800``) is no character that UTF-8 can encode."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise RecordError(0, f"the member {key!r} appears twice in one object")
            out[key] = value
        return out

    def constant(name: str) -> Any:
        raise RecordError(0, f"{name} is not a JSON number")

    def floating(number: str) -> float:
        value = float(number)
        if not math.isfinite(value) or canonical_json(value) != number:
            raise RecordError(0, f"the number {_clip(number)} is not written in its canonical form "
                                 f"({canonical_json(value) if math.isfinite(value) else 'out of range'})")
        return value

    def integer(number: str) -> int:
        if number == "-0" or len(number) > MAX_INTEGER_DIGITS:
            raise RecordError(0, f"the number {_clip(number)} is not written in its canonical form "
                                 f"(an integer of at most {MAX_INTEGER_DIGITS} digits, 0 without a sign)")
        return int(number)

    try:
        doc = json.loads(text, object_pairs_hook=pairs, parse_constant=constant, parse_float=floating,
                         parse_int=integer)
        canonical_json(doc).encode("utf-8")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(0, f"the record is not JSON: {exc}") from exc
    except UnicodeEncodeError as exc:
        raise RecordError(0, "the record holds a lone surrogate (a \\ud800-\\udfff escape without its pair), "
                             "which is no Unicode character") from exc
    except RecursionError as exc:
        raise RecordError(0, "the record nests arrays or objects too deeply") from exc
    return doc


def _clip(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _members(doc: Any, required: frozenset[str], what: str, version: int, optional: frozenset[str] = frozenset(),
             ) -> Mapping[str, Any]:
    if not isinstance(doc, dict):
        raise RecordError(version, f"{what} is not a JSON object")
    missing = sorted(required - doc.keys())
    if missing:
        raise RecordError(version, f"{what} lacks {', '.join(missing)}")
    unknown = sorted(doc.keys() - required - optional)
    if unknown:
        raise RecordError(version, f"{what} has unknown members {', '.join(unknown)}")
    return doc


def _event(doc: Any, index: int) -> RecordEvent:
    version: int = doc["version"] if isinstance(doc, dict) and _is_int(doc.get("version")) else index + 1
    event = _members(doc, EVENT_MEMBERS, f"event {index + 1}", version, frozenset({"redacted", "content_hash"}))
    for name in ("version", "schema_version"):
        if not _is_int(event[name]):
            raise RecordError(version, f"the event's {name} is not an integer")
    for name in ("type", "created_at", "command_id"):
        if not isinstance(event[name], str):
            raise RecordError(version, f"the event's {name} is not a string")
    for name in ("prev_hash", "hash"):
        if not isinstance(event[name], str) or not _HEX64.fullmatch(event[name]):
            raise RecordError(version, f"the event's {name} is not 64 lowercase hex digits")
    if not isinstance(event["payload"], dict):
        raise RecordError(version, "the event's payload is not an object")
    content = None
    if "redacted" in event or "content_hash" in event:
        content = event.get("content_hash")
        if event.get("redacted") is not True or not isinstance(content, str) or not _HEX64.fullmatch(content):
            raise RecordError(version, "a redacted event needs \"redacted\": true and a content_hash of 64 hex digits")
        if event["payload"].get("redacted") is not True:
            raise RecordError(version, "a redacted event's payload must say \"redacted\": true")
    return RecordEvent(event["version"], event["type"], event["payload"], event["schema_version"],
                       event["created_at"], event["command_id"], event["prev_hash"], event["hash"], content)


def _b64_hash(text: Any, what: str, version: int) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True) if isinstance(text, str) else b""
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32 or base64.b64encode(raw).decode() != text:
        raise RecordError(version, f"{what} is not a 32-byte hash in canonical base64")
    return raw


def _inclusion(doc: Any, version: int) -> Inclusion | None:
    if doc is None:
        return None
    inc = _members(doc, INCLUSION_MEMBERS, "the inclusion member", version)
    if not _is_int(inc["leaf_index"]) or not _is_int(inc["tree_size"]) or not 0 <= inc["leaf_index"] < inc["tree_size"]:
        raise RecordError(version, "the inclusion proof needs integers 0 <= leaf_index < tree_size")
    if not isinstance(inc["proof"], list):
        raise RecordError(version, "the inclusion proof is not a list of hashes")
    proof = tuple(_b64_hash(h, "a node of the inclusion proof", version) for h in inc["proof"])
    if not isinstance(inc["checkpoint"], str) or not isinstance(inc["log_key"], str):
        raise RecordError(version, "the inclusion member's checkpoint and log_key are text")
    return Inclusion(inc["log_key"], inc["leaf_index"], inc["tree_size"], proof, inc["checkpoint"])


def parse(doc: Any) -> Record:
    """A record document (parsed JSON) as a :class:`Record`, or :class:`RecordError` naming what is wrong."""
    top = _members(doc, RECORD_MEMBERS, "the record", 0)
    if top["format"] != FORMAT:
        raise RecordError(0, f"unknown record format {top['format']!r} (this verifier reads {FORMAT})")
    if not isinstance(top["game_id"], str) or not _GAME_ID.fullmatch(top["game_id"]):
        raise RecordError(0, "the game_id is not a game id")
    if top["status"] not in STATUSES:
        raise RecordError(0, f"the status must be one of {', '.join(STATUSES)}")
    reader = top["reader"]
    if not isinstance(reader, dict) or reader.get("kind") not in READER_KINDS or (
            reader.get("kind") == "seat") != ("seat" in reader) or not set(reader) <= {"kind", "seat"} or (
            "seat" in reader and not (_is_int(reader["seat"]) and reader["seat"] >= 0)):
        raise RecordError(0, 'the reader is {"kind": "full"}, {"kind": "seat", "seat": n} or {"kind": "spectator"}')
    if not isinstance(top["events"], list) or not top["events"]:
        raise RecordError(0, "a record needs its events, at least game_created")
    events = tuple(_event(doc, index) for index, doc in enumerate(top["events"]))
    last = events[-1].version
    head = _members(top["head"], frozenset({"version", "hash"}), "the head", last)
    if not _is_int(head["version"]) or not isinstance(head["hash"], str) or not _HEX64.fullmatch(head["hash"]):
        raise RecordError(last, "the head is {version: integer, hash: 64 hex digits}")
    signature = _members(top["signature"], frozenset({"key", "note"}), "the signature", head["version"])
    if not isinstance(signature["key"], str) or not isinstance(signature["note"], str):
        raise RecordError(head["version"], "the signature's key and note are text")
    seed = top["seed"]
    if seed is not None and not (isinstance(seed, str) and _DECIMAL.fullmatch(seed) and len(seed) <= MAX_SEED_DIGITS):
        raise RecordError(last, "the seed is the decimal text of a non-negative integer, or null")
    for name in ("creation", "result"):
        if top[name] is not None and not isinstance(top[name], dict):
            raise RecordError(0, f"the {name} member is an object or null")
    if top["creation"] is None:
        raise RecordError(1, "the creation member is missing")
    return Record(
        game_id=top["game_id"], status=top["status"], reader=dict(reader), creation=top["creation"],
        seed=None if seed is None else int(seed), result=top["result"], events=events,
        head_version=head["version"], head_hash=head["hash"], signature_key=signature["key"],
        signature_note=signature["note"], inclusion=_inclusion(top["inclusion"], head["version"]),
    )


def inclusion_json(*, log_key: str, leaf_index: int, tree_size: int, proof: Sequence[bytes], checkpoint: str,
                   ) -> dict[str, Any]:
    """The record's ``inclusion`` member, as the transparency log will hand it out."""
    return {"log_key": log_key, "leaf_index": leaf_index, "tree_size": tree_size,
            "proof": [base64.b64encode(node).decode() for node in proof], "checkpoint": checkpoint}

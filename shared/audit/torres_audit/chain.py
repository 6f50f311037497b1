"""Canonical JSON and the SHA-256 hash chain that makes the log tamper-evident (docs/audit.md, "The chain").

Each event's hash is ``SHA-256(prev_hash || content_hash)``, where the content hash covers every
stored field except the global position (a property of the notification log, not of the game). So
altering any byte of a stored event, or reordering, inserting or dropping one, breaks the chain at
that version. The same functions stamp events in the game service and check them in the offline verifier,
so the two can never disagree on what a hash covers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from torres_online.lifecycle import LoggedEvent

GENESIS_HASH = "0" * 64


def canonical_json(value: Any) -> str:
    """One byte-exact text per JSON value: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as docs/audit.md defines it (section 4): the same canonical JSON. So
    ``1``, ``1.0`` and ``true`` are three different values, where Python's ``==`` takes them for one."""
    return canonical_json(a) == canonical_json(b)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(
    *,
    game_id: str,
    version: int,
    type: str,
    payload: dict[str, Any],
    schema_version: int,
    created_at: str,
    command_id: str,
) -> str:
    """SHA-256 of the event's canonical JSON (everything but the chain link)."""
    return sha256_hex(
        canonical_json(
            {
                "game_id": game_id,
                "version": version,
                "type": type,
                "payload": payload,
                "schema_version": schema_version,
                "created_at": created_at,
                "command_id": command_id,
            }
        )
    )


def chain_hash(prev_hash: str, content: str) -> str:
    """``SHA-256(prev_hash || content_hash)`` in hex: simple enough for the database to compute too
    (``encode(sha256(convert_to(prev || content, 'UTF8')), 'hex')``), so PostgreSQL can extend the
    chain inside its append function without a second round trip."""
    return sha256_hex(prev_hash + content)


@dataclass(frozen=True)
class Problem:
    """The first thing wrong with a log or a record: the version it is found at (the head's version for what
    concerns the whole record) and why, in words a person can act on."""

    version: int
    reason: str

    def __str__(self) -> str:
        return f"version {self.version}: {self.reason}"


class ChainedEvent(LoggedEvent, Protocol):
    """What the chain covers of an event (a stored event, a record's event): what the fold reads, and more."""

    @property
    def schema_version(self) -> int: ...
    @property
    def command_id(self) -> str: ...
    @property
    def prev_hash(self) -> str: ...
    @property
    def hash(self) -> str: ...


def check_chain(game_id: str, events: Sequence[ChainedEvent], contents: Mapping[int, str] | None = None,
                ) -> Problem | None:
    """The first break in the chain of ``events`` (versions 1, 2, ... from the genesis hash), or None.

    ``contents`` gives the content hash of events whose payload the reader may not see (a redacted record):
    their link is checked with it, everything else is re-hashed from its fields.
    """
    prev = GENESIS_HASH
    given = contents or {}
    for expected, event in enumerate(events, start=1):
        v = event.version
        if v != expected:
            return Problem(expected, f"version gap: found {v} where {expected} was expected")
        if event.prev_hash != prev:
            return Problem(v, "prev_hash does not match the previous event's hash")
        content = given.get(v)
        if content is None:
            content = content_hash(game_id=game_id, version=v, type=event.type, payload=event.payload,
                                   schema_version=event.schema_version, created_at=event.created_at,
                                   command_id=event.command_id)
        if chain_hash(prev, content) != event.hash:
            return Problem(v, "hash mismatch: the stored event was altered")
        prev = event.hash
    return None

"""Canonical JSON and the SHA-256 hash chain that makes the log tamper-evident.

Each event's hash is ``SHA-256(prev_hash || content_hash)``, where the content hash covers every
stored field except the global position (a property of the notification log, not of the game). So
altering any byte of a stored event, or reordering, inserting or dropping one, breaks the chain at
that version.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

GENESIS_HASH = "0" * 64


def canonical_json(value: Any) -> str:
    """One byte-exact text per JSON value: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def format_time(moment: datetime) -> str:
    """Timestamps enter the hash as UTC ISO text with microseconds, which both backends round-trip."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


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

"""Game records: a game's whole log as one signed JSON document that anyone can verify offline.

``/verify`` is the service checking itself; a record is what lets a player, a tournament director or a
rating authority check a game *without* trusting the service: ``python -m torres_audit verify record.json``
re-hashes the chain, reproduces every deal and draw from the revealed seed, replays every action through the
rules and checks the service's signature over the head (docs/audit.md). A running game's record shows what
its reader may see (a seat's own secrets, the spectators' public facts): hidden payloads are replaced by
their content hashes, so the chain and the signature still verify; a finished game's record is complete.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torres_audit.chain import content_hash
from torres_audit.note import Signer
from torres_audit.record import FORMAT, event_json, sign_head
from torres_online.events import GAME_ENDED

from .redaction import FULL, Reader, visible_payload
from .store.base import GameSecret, StoredEvent


def reader_json(reader: Reader) -> dict[str, Any]:
    if reader.full:
        return {"kind": "full"}
    return {"kind": "spectator"} if reader.seat is None else {"kind": "seat", "seat": reader.seat}


def build_record(
    events: Sequence[StoredEvent], secret: GameSecret, reader: Reader, signer: Signer,
    *, inclusion: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of a game's log ``events`` (all of them, from ``game_created``) for ``reader``, signed by
    ``signer``. Once the game is over everyone reads everything, the seed included; before, the seed stays
    secret even from a full reader (it would reveal every deck). ``inclusion``: the transparency log's proof
    (:func:`torres_audit.record.inclusion_json`), when it holds this game."""
    if not events:
        raise ValueError("a record needs the game's events")
    first, last = events[0], events[-1]
    over = last.type == GAME_ENDED
    if over:
        reader = FULL
    docs = []
    for event in events:
        payload = visible_payload(event, reader)
        withheld = payload is not event.payload
        docs.append(event_json(
            version=event.version, type=event.type, payload=payload, schema_version=event.schema_version,
            created_at=event.created_at, command_id=event.command_id, prev_hash=event.prev_hash, hash=event.hash,
            content_hash=content_hash(
                game_id=event.game_id, version=event.version, type=event.type, payload=event.payload,
                schema_version=event.schema_version, created_at=event.created_at, command_id=event.command_id,
            ) if withheld else None,
        ))
    status = "over" if over else "active"
    return {
        "format": FORMAT,
        "game_id": first.game_id,
        "status": status,
        "reader": reader_json(reader),
        "creation": first.payload,
        "seed": str(secret.seed) if over else None,
        "result": last.payload if over else None,
        "events": docs,
        "head": {"version": last.version, "hash": last.hash},
        "signature": sign_head(signer, first.game_id, last.version, last.hash, status),
        "inclusion": inclusion,
    }

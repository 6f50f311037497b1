"""What each reader may see of the log (docs/rules.md section 13, hidden information).

Readers: the admin key and everyone after the game's end see everything; a seat sees public facts
plus its own secrets except deck order; spectators (and the service key) see public facts only.
Only ``action_applied`` events of :data:`SECRET_ACTION_TYPES` carry secrets before the end (the
seed is revealed by ``game_ended``, which only exists once the game is over).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torres_online.events import ACTION_APPLIED, SECRET_ACTION_TYPES

from .events import event_text
from .store.base import StoredEvent


@dataclass(frozen=True)
class Reader:
    """Who is reading: ``full`` (admin / game over), a ``seat``, or a spectator (``seat is None``)."""

    full: bool = False
    seat: int | None = None

    @classmethod
    def spectator(cls) -> Reader:
        return cls()


FULL = Reader(full=True)


def redact_event(event: StoredEvent, reader: Reader) -> dict[str, Any]:
    """The event as ``reader`` may see it, with its ``text`` (words for a move log) made from what remains."""
    doc = _redacted(event, reader)
    doc["text"] = event_text(doc["type"], doc["payload"])
    return doc


def _redacted(event: StoredEvent, reader: Reader) -> dict[str, Any]:
    doc = event.to_json()
    doc["payload"] = visible_payload(event, reader)
    return doc


def visible_payload(event: StoredEvent, reader: Reader) -> dict[str, Any]:
    """The payload as ``reader`` may see it: the event's own, or a redacted copy that says ``"redacted": true``
    (the game record then gives the event's content hash instead, so the chain still verifies)."""
    if reader.full or event.type != ACTION_APPLIED:
        return event.payload
    action = event.payload.get("action", {})
    if action.get("type") not in SECRET_ACTION_TYPES:
        return event.payload
    payload = {k: v for k, v in event.payload.items() if k != "salt"}
    if reader.seat is not None and reader.seat == event.payload.get("seat"):
        # The owner knows the card kept; deck order stays secret even to the owner (section 13).
        payload["action"] = {k: v for k, v in action.items() if k != "order"}
    else:
        payload["action"] = {"type": action["type"]}
    payload["redacted"] = True
    return payload


def redact_events(events: list[StoredEvent], reader: Reader) -> list[dict[str, Any]]:
    return [redact_event(e, reader) for e in events]

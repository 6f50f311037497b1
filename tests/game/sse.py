"""Reading server-sent events the way an EventSource does (comments dropped, fields split), for the push tests."""

from __future__ import annotations

import json
from typing import Any


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Each event as ``{"event", "id", "data"}`` (data parsed as JSON); comment-only blocks are skipped."""
    events: list[dict[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if "data" in fields:
            events.append({"event": fields.get("event", "message"), "id": fields.get("id"),
                           "data": json.loads(fields["data"])})
    return events

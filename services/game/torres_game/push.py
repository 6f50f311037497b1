"""Following a game's versions: the one loop behind SSE ``/stream`` and the WebSocket ``/ws``.

:func:`follow` turns a :class:`~torres_game.waiting.Subscription` into steps: one ``version`` step per version
(so a resumed stream gets exactly the versions it missed, in order, each once), ``heartbeat`` when nothing
happened for a while, and one final step saying why it ends: ``game-over``, ``timeout`` or ``shutdown``. It
reads the games row once at the start and again only when the notification listener asks for a re-check;
everything else comes from the notices. The HTTP layer renders the steps as SSE text or WebSocket messages.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from .waiting import Notice, Subscription


@dataclass(frozen=True)
class Step:
    kind: str  # "version" | "heartbeat" | "game-over" | "timeout" | "shutdown"
    version: int
    latest: Notice

    def body(self) -> dict[str, Any]:
        """The JSON body of this step: the latest version also says who is to move and the status."""
        if self.kind == "version" and self.version < self.latest.version:
            return {"version": self.version}
        return {"version": self.version, "status": self.latest.status, "to_move": self.latest.to_move}


def notice_of(summary: dict[str, Any]) -> Notice:
    return Notice(summary["game_id"], summary["version"], summary["status"], summary["to_move"])


def follow(
    sub: Subscription, read: Callable[[], Notice], first: Notice, seen: int, *, deadline: float, heartbeat: float,
) -> Iterator[Step]:
    """The steps of a stream that has seen versions up to ``seen``; ``first`` is the game read after subscribing."""
    latest = first
    while True:
        while seen < latest.version:
            seen += 1
            yield Step("version", seen, latest)
        if latest.status == "over":
            yield Step("game-over", seen, latest)
            return
        if sub.closing:
            yield Step("shutdown", seen, latest)
            return
        left = deadline - time.monotonic()
        if left <= 0:
            yield Step("timeout", seen, latest)
            return
        if not sub.wait(min(heartbeat, left)):
            if deadline - time.monotonic() > 0:
                yield Step("heartbeat", seen, latest)
            continue
        if sub.take_recheck():
            latest = read()
        elif sub.latest is not None and sub.latest.version > latest.version:
            latest = sub.latest


class EventFeed:
    """The reader's redacted events of each ``version`` step, read a page at a time (``page(after)``: the events
    after ``after`` as ``GET /events`` gives them to this reader). The one way both the WebSocket and the SSE
    stream attach events to their version messages, for a seat's or a full reader (header or stream ticket)."""

    def __init__(self, page: Callable[[int], list[dict[str, Any]]]) -> None:
        self._page = page
        self._pending: list[dict[str, Any]] = []

    def of(self, step: Step) -> list[dict[str, Any]]:
        if not self._pending or self._pending[0]["version"] != step.version:
            self._pending = [e for e in self._page(step.version - 1) if e["version"] <= step.latest.version]
        mine = [e for e in self._pending if e["version"] == step.version]
        self._pending = [e for e in self._pending if e["version"] > step.version]
        return mine


def sse(step: Step, feed: EventFeed | None = None) -> bytes:
    """One server-sent event. Only ``version`` events carry an ``id``, so ``Last-Event-ID`` is always a version;
    with a ``feed`` they also carry the version's ``events``, redacted for the reader."""
    if step.kind == "heartbeat":
        return b": keep-alive\n\n"
    head = f"id: {step.version}\n" if step.kind == "version" else ""
    body = step.body()
    if feed is not None and step.kind == "version":
        body["events"] = feed.of(step)
    return f"{head}event: {step.kind}\ndata: ".encode() + orjson.dumps(body) + b"\n\n"


# Sent at once when a stream opens: the client learns the connection works (and proxies flush their headers)
# before the first change, and ``retry`` tells EventSource how soon to reconnect after a drop.
SSE_OPENING = b": connected\nretry: 2000\n\n"


@contextlib.contextmanager
def slow_client_limits(environ: dict[str, Any], seconds: float, send_buffer: int) -> Iterator[None]:
    """Drop a client that stops reading instead of buffering for it. Two bounds: the socket's send buffer is fixed
    at ``send_buffer`` bytes (left alone, Linux grows it up to ``tcp_wmem``'s 4 MiB per connection: 40 GiB for
    10 000 stalled streams), and one write may wait at most ``seconds`` for room in it, past which the socket
    raises and the stream ends. The connection's own timeout comes back afterwards: the server reads the next
    keep-alive request with it."""
    sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
    if sock is None or seconds <= 0:
        yield
        return
    before = sock.gettimeout()
    with contextlib.suppress(OSError):
        if send_buffer > 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    sock.settimeout(seconds)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            sock.settimeout(before)

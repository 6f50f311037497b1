"""Signed webhooks, one implementation for every service that sends them (the matchmaker's ticket callbacks, the
game service's game webhooks) and for every receiver that checks them (:func:`verify`).

A delivery is a ``POST`` of a JSON body with three headers:

* ``X-Torres-Delivery``: the delivery's id, the same on every attempt of it: a receiver deduplicates by it
  (delivery is at least once);
* ``X-Torres-Timestamp``: Unix seconds when this attempt was signed;
* ``X-Torres-Signature``: ``sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" keyed with the shared secret>``.

A receiver recomputes the signature over the raw body it got and refuses a timestamp further than its tolerance
from its own clock (a replayed old delivery); :func:`verify` does both. Failed attempts are retried after
:func:`backoff` seconds: 1, 2, 4, ... up to :data:`MAX_BACKOFF`.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import select
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

SIGNATURE_HEADER = "X-Torres-Signature"
TIMESTAMP_HEADER = "X-Torres-Timestamp"
DELIVERY_HEADER = "X-Torres-Delivery"
#: The longest wait between two attempts of one delivery, seconds.
MAX_BACKOFF = 300.0
#: How far a delivery's timestamp may be from the receiver's clock by default, seconds.
DEFAULT_TOLERANCE = 300.0


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Torres-Signature`` value of ``body`` signed at ``timestamp``."""
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def signed_headers(secret: str, body: bytes, delivery_id: str, *, now: float | None = None) -> dict[str, str]:
    """The headers of one attempt: content type, delivery id, timestamp (now) and signature."""
    timestamp = str(int(time.time() if now is None else now))
    return {"Content-Type": "application/json", DELIVERY_HEADER: delivery_id, TIMESTAMP_HEADER: timestamp,
            SIGNATURE_HEADER: sign(secret, timestamp, body)}


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None:  # a plain dict with other capitalisation (what http.server or a framework handed over)
        wanted = name.lower()
        value = next((v for k, v in headers.items() if k.lower() == wanted), None)
    return value


def verify(secret: str, headers: Mapping[str, str], body: bytes, tolerance: float = DEFAULT_TOLERANCE,
           *, now: float | None = None) -> bool:
    """Whether ``body`` with ``headers`` was signed with ``secret`` no more than ``tolerance`` seconds from now:
    what a receiver checks before it trusts a delivery (the body exactly as received, before any parsing)."""
    timestamp = _header(headers, TIMESTAMP_HEADER)
    signature = _header(headers, SIGNATURE_HEADER)
    if not timestamp or not signature or not timestamp.isdigit():
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > tolerance:
        return False
    return hmac.compare_digest(signature.encode(), sign(secret, timestamp, body).encode())


def backoff(attempts: int, *, base: float = 1.0, cap: float = MAX_BACKOFF) -> float:
    """Seconds to wait before the next attempt after ``attempts`` failed ones: ``base``, doubling, at most ``cap``."""
    return min(cap, base * 2.0 ** max(0, attempts - 1))


@dataclass(frozen=True)
class Attempt:
    """What one attempt came to: accepted (a 2xx), the HTTP status if any answered, and the error otherwise."""

    ok: bool
    status: int | None = None
    error: str | None = None


class Poster:
    """Posts signed attempts over kept-alive connections, from any number of threads (or greenlets): what every
    sender of webhooks here uses (the game service's delivery workers, the matchmaker's callbacks).

    The standard library's ``http.client`` with a few idle connections kept per endpoint, rather than urllib3's
    pool (or httpx): a worker delivering a portal's webhooks does little but post, and through urllib3 a webhook
    cost the delivery worker 1 163 µs of CPU against 732 µs through this class, 156 µs of either being the claim and
    the record (``bench/webhook_cpu_bench.py``, side by side): urllib3's pool manager, locks, header dictionaries
    and response wrapper run for every request. What this keeps of it: connections reused only when idle and not
    closed by the peer, a timeout on connecting and on each read, TLS verified by the default context, no retries
    inside an attempt and no redirects followed (an attempt is one request, its outcome recorded and retried after
    :func:`backoff` by the caller; a 3xx is not an acceptance). ``last_error`` names a failure as the delivery log
    always has (``ConnectError``, ``ConnectTimeout``, ``ReadTimeout``, ``RemoteProtocolError``), whichever client
    posted.
    """

    def __init__(self, timeout: float, *, connections: int = 8) -> None:
        self._timeout = timeout
        #: Idle connections kept per endpoint: as many as the sender has attempts in flight at once.
        self._keep = connections
        self._idle: dict[tuple[str, str, int | None], list[http.client.HTTPConnection]] = {}
        self._lock = threading.Lock()
        self._tls = ssl.create_default_context()

    def post(self, url: str, secret: str, body: bytes, delivery_id: str) -> Attempt:
        """One signed attempt; never raises for what the receiver or the network did (that is the attempt's
        outcome)."""
        try:
            parts = urllib.parse.urlsplit(url)
            endpoint = (parts.scheme, parts.hostname or "", parts.port)
        except ValueError as exc:  # a port that is not a number
            return Attempt(False, None, type(exc).__name__)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return Attempt(False, None, "InvalidURL")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection = self._take(endpoint)
        connecting = connection is None
        try:
            if connection is None:
                connection = self._connect(endpoint)
                connecting = False
            connection.request("POST", path, body, signed_headers(secret, body, delivery_id))
            response = connection.getresponse()
            response.read()
        except TimeoutError:
            _close(connection)
            return Attempt(False, None, "ConnectTimeout" if connecting else "ReadTimeout")
        except (http.client.HTTPException, ConnectionResetError, BrokenPipeError):
            _close(connection)
            return Attempt(False, None, "ConnectError" if connecting else "RemoteProtocolError")
        except OSError as exc:  # refused, unreachable, a name that does not resolve, a certificate refused
            _close(connection)
            return Attempt(False, None, "ConnectError" if connecting else type(exc).__name__)
        if response.will_close:
            connection.close()
        else:
            self._give(endpoint, connection)
        ok = 200 <= response.status < 300
        return Attempt(ok, response.status, None if ok else f"HTTP {response.status}")

    def _connect(self, endpoint: tuple[str, str, int | None]) -> http.client.HTTPConnection:
        scheme, host, port = endpoint
        connection = (http.client.HTTPSConnection(host, port, timeout=self._timeout, context=self._tls)
                      if scheme == "https" else http.client.HTTPConnection(host, port, timeout=self._timeout))
        connection.connect()
        assert connection.sock is not None
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a post is one small exchange
        return connection

    def _take(self, endpoint: tuple[str, str, int | None]) -> http.client.HTTPConnection | None:
        """An idle connection to ``endpoint`` the peer has not closed meanwhile (readable while idle: its end of
        file, or bytes nobody asked for), or None."""
        while True:
            with self._lock:
                idle = self._idle.get(endpoint)
                if not idle:
                    return None
                connection = idle.pop()
            sock = connection.sock
            if sock is not None and not select.select([sock], [], [], 0)[0]:
                return connection
            connection.close()

    def _give(self, endpoint: tuple[str, str, int | None], connection: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(endpoint, [])
            if len(idle) < self._keep:
                idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()


def _close(connection: http.client.HTTPConnection | None) -> None:
    if connection is not None:
        connection.close()

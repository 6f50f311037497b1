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
import time
from collections.abc import Mapping
from dataclasses import dataclass

import urllib3

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


#: What a delivery log's ``last_error`` says of a failed connection or a late answer: the names it has said since
#: the first release (httpx's), whichever client posts.
_ERRORS = {urllib3.exceptions.NewConnectionError: "ConnectError",
           urllib3.exceptions.ConnectTimeoutError: "ConnectTimeout",
           urllib3.exceptions.ReadTimeoutError: "ReadTimeout",
           urllib3.exceptions.ProtocolError: "RemoteProtocolError"}


class Poster:
    """Posts signed attempts over kept-alive connections, from any number of threads: what every sender of webhooks
    here uses (the game service's delivery workers, the matchmaker's callbacks).

    urllib3's pool rather than httpx: a post costs the delivering process about 170 µs of CPU against httpx's 280 µs
    (`bench/webhook_bench.py` counts the delivery process's CPU per webhook), and a worker delivering a portal's
    webhooks does little else. No retries inside an attempt and no redirects followed: an attempt is one request,
    its outcome recorded and retried after :func:`backoff` by the caller, and a 3xx is not an acceptance.
    """

    def __init__(self, timeout: float, *, connections: int = 8) -> None:
        #: ``connections`` kept alive per endpoint: as many as the sender has attempts in flight at once.
        self._pool = urllib3.PoolManager(num_pools=64, maxsize=connections, retries=False,
                                         timeout=urllib3.Timeout(connect=timeout, read=timeout))

    def post(self, url: str, secret: str, body: bytes, delivery_id: str) -> Attempt:
        """One signed attempt; never raises for what the receiver or the network did (that is the attempt's
        outcome)."""
        try:
            response = self._pool.request("POST", url, body=body, headers=signed_headers(secret, body, delivery_id),
                                          redirect=False)
        except (urllib3.exceptions.HTTPError, OSError, ValueError) as exc:  # ValueError: not an http(s) URL
            return Attempt(False, None, _ERRORS.get(type(exc), type(exc).__name__))
        ok = 200 <= response.status < 300
        return Attempt(ok, response.status, None if ok else f"HTTP {response.status}")

    def close(self) -> None:
        self._pool.clear()

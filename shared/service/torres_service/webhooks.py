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

:class:`Poster` makes the attempts, through httpcore (the connection pool under httpx): each attempt ends by one
deadline, and goes only to public addresses unless ``TORRES_WEBHOOK_ALLOW_NETWORKS`` lists others.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import hmac
import ipaddress
import math
import re
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import httpcore

from .settings import Setting

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


# -- where a webhook may go ----------------------------------------------------------------------------------

ALLOW_NETWORKS = Setting(
    "TORRES_WEBHOOK_ALLOW_NETWORKS", "address ranges (CIDR, comma-separated) that game webhooks and ticket "
    "callbacks may be posted to although they are not public: loopback, private, link-local and cloud-metadata "
    "addresses are refused otherwise, both in the URL and in what its name resolves to when posting. For "
    "development only (`make run`, the example portal: `127.0.0.0/8,::1/128`)", default="")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
#: Names that are loopback by definition (RFC 6761), refused like 127.0.0.1 without asking a resolver.
_LOOPBACK_NAMES = ("localhost", "localhost.")


def allowed_networks(text: str | None = None) -> tuple[Network, ...]:
    """The ranges ``TORRES_WEBHOOK_ALLOW_NETWORKS`` lists (``text``, or the process's environment); a range that
    does not parse is an error at start, not a silently narrower list."""
    value = ALLOW_NETWORKS.read() if text is None else text
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in value.split(",") if part.strip())


def is_outside(address: Address, allow: Iterable[Network] = ()) -> bool:
    """Whether a post may go to ``address``: a public (globally routable, not multicast) address, or one in
    ``allow``. An IPv4 address wrapped in IPv6 (``::ffff:127.0.0.1``, 6to4) is judged as the IPv4 address it
    reaches."""
    if isinstance(address, ipaddress.IPv6Address):
        address = address.ipv4_mapped or address.sixtofour or address
    if any(address.version == net.version and address in net for net in allow):
        return True
    return address.is_global and not address.is_multicast


def url_refusal(url: str, allow: Iterable[Network] = ()) -> str | None:
    """Why ``url`` may not receive webhooks, or None: not http(s), no host, or a host that is an address (or
    ``localhost``) outside the public internet and not allowed. A name is judged again by what it resolves to at
    each connection (:class:`Poster`), since what it resolves to can change after it was accepted."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return "not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "an http(s) URL with a host"
    host = parts.hostname
    if host.lower() in _LOOPBACK_NAMES or host.lower().endswith(".localhost"):
        addresses: list[Address] = [ipaddress.ip_address("127.0.0.1")]
    else:
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            return None  # a name: judged when it is resolved
    if not all(is_outside(a, allow) for a in addresses):
        return f"{host} is not a public address (TORRES_WEBHOOK_ALLOW_NETWORKS lists the ranges allowed besides)"
    return None


# -- the poster ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Attempt:
    """What one attempt came to: accepted (a 2xx), the HTTP status if any answered, and the error otherwise."""

    ok: bool
    status: int | None = None
    error: str | None = None


#: What may stand in a request line's target or a header value we send: visible ASCII, no space, no CR or LF.
_TOKEN = re.compile(r"[\x21-\x7e]+")
#: The most of a response body read: a receiver has nothing to say to us beyond its status.
MAX_RESPONSE = 64 * 1024


class ForbiddenAddress(httpcore.ConnectError):
    """The endpoint's name resolved to an address outside the public internet that is not allowed."""


class _Deadline(threading.local):
    """When the current attempt of this thread (greenlet, under gevent) must be over: every wait of its
    connection's socket is cut to what is left."""

    until = math.inf

    def left(self) -> float:
        return self.until - time.monotonic()


class _Resolver:
    """``getaddrinfo`` off the posting thread, waited for no longer than the attempt has left; one lookup of a
    name at a time (a name whose servers do not answer ties up one thread, however many attempts want it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, int], concurrent.futures.Future[list[tuple[int, str]]]] = {}

    def resolve(self, host: str, port: int, timeout: float) -> list[tuple[int, str]]:
        try:
            literal = ipaddress.ip_address(host.strip("[]"))
            return [(socket.AF_INET6 if literal.version == 6 else socket.AF_INET, str(literal))]
        except ValueError:
            pass
        with self._lock:
            future = self._pending.get((host, port))
            if future is None:
                future = self._pending[host, port] = concurrent.futures.Future()
                threading.Thread(target=self._lookup, args=(host, port, future), daemon=True,
                                 name="torres-webhook-resolve").start()
        try:
            return future.result(timeout=max(0.0, timeout))
        except concurrent.futures.TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host}") from None
        except OSError as exc:
            raise httpcore.ConnectError(f"resolving {host}: {exc}") from exc

    def _lookup(self, host: str, port: int, future: concurrent.futures.Future[list[tuple[int, str]]]) -> None:
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            # a link-local IPv6 address may carry its zone ("fe80::1%eth0"): judged without it, and refused
            future.set_result([(family, str(address[0]).split("%", 1)[0]) for family, _, _, _, address in found])
        except BaseException as exc:  # handed to the waiting attempt
            future.set_exception(exc)
        finally:
            with self._lock:
                self._pending.pop((host, port), None)


class _Stream(httpcore.NetworkStream):
    """A connection whose every read, write and handshake waits no longer than its attempt has left."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: _Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def _left(self, timeout: float | None, error: type[httpcore.TimeoutException]) -> float:
        left = self._deadline.left()
        if left <= 0:
            raise error("the attempt's deadline passed")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(ssl_context, server_hostname, self._left(timeout, httpcore.ConnectTimeout))
        return _Stream(inner, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """httpcore's network backend (its documented point of extension) with what a webhook needs of a
    connection: the name resolved within the attempt's deadline, every address checked before it is connected to
    (so a name that resolves to a private address later, DNS rebinding, is refused too), and the addresses tried
    in turn within what is left of the deadline, not each with a fresh timeout."""

    def __init__(self, allow: tuple[Network, ...], deadline: _Deadline) -> None:
        self._allow = allow
        self._deadline = deadline
        self._resolver = _Resolver()
        self._sync = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        addresses = self._resolver.resolve(host, port, self._deadline.left())
        if not addresses or not all(is_outside(ipaddress.ip_address(a), self._allow) for _, a in addresses):
            raise ForbiddenAddress(f"{host} resolves to {', '.join(a for _, a in addresses) or 'no address'}")
        error: httpcore.ConnectError | httpcore.ConnectTimeout = httpcore.ConnectError(f"{host}: no address")
        for _, address in addresses:
            left = self._deadline.left()
            if left <= 0:
                raise httpcore.ConnectTimeout(f"connecting to {host}")
            try:
                stream = self._sync.connect_tcp(address, port, left if timeout is None else min(timeout, left),
                                                local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
                continue
            return _Stream(stream, self._deadline)
        raise error

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("webhooks go over TCP")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


#: The delivery log's name of each failure httpcore raises (the first that matches).
_FAILURES: tuple[tuple[type[Exception], str], ...] = (
    (ForbiddenAddress, "ForbiddenAddress"),
    (httpcore.ConnectTimeout, "ConnectTimeout"),
    (httpcore.PoolTimeout, "ConnectTimeout"),
    (httpcore.ReadTimeout, "ReadTimeout"),
    (httpcore.WriteTimeout, "ReadTimeout"),
    (httpcore.ConnectError, "ConnectError"),
    (httpcore.ReadError, "RemoteProtocolError"),  # reset, or closed under us
    (httpcore.WriteError, "RemoteProtocolError"),
    (httpcore.RemoteProtocolError, "RemoteProtocolError"),
    (httpcore.LocalProtocolError, "InvalidURL"),
    (httpcore.UnsupportedProtocol, "InvalidURL"),
)


class Poster:
    """Posts signed attempts over kept-alive connections, from any number of threads or greenlets at once: what
    every sender of webhooks here uses (the game service's delivery workers, the matchmaker's callbacks).

    httpcore's connection pool (the layer of httpx that does HTTP/1.1 and pooling; httpx itself offers no way to
    give its transport a network backend) with :class:`_Backend` under it. An attempt is one request: no retries
    inside it, no redirect followed (a 3xx is not an acceptance), TLS verified by the default context. It ends by
    one deadline, ``timeout`` seconds after it starts, covering resolving, connecting, TLS, sending and the whole
    response: an endpoint that answers a byte at a time fails when the deadline comes. A response body beyond
    :data:`MAX_RESPONSE` fails the attempt too. Failures are named as the delivery log records them
    (``ConnectError``, ``ConnectTimeout``, ``ReadTimeout``, ``RemoteProtocolError``, ``ForbiddenAddress``,
    ``ResponseTooLarge``, ``HTTP <status>``).
    """

    def __init__(self, timeout: float, *, connections: int = 8, tls: ssl.SSLContext | None = None,
                 allow: Iterable[Network] | None = None) -> None:
        self._timeout = timeout
        self._allow = allowed_networks() if allow is None else tuple(allow)
        self._deadline = _Deadline()
        # No cap on connections: the caller bounds the attempts in flight (per endpoint, and in all); a cap here
        # would have one endpoint's hung connections hold the others' attempts in the pool's queue.
        self._pool = httpcore.ConnectionPool(
            ssl_context=tls or ssl.create_default_context(), max_connections=None,
            max_keepalive_connections=max(1, connections), keepalive_expiry=60.0, retries=0,
            network_backend=_Backend(self._allow, self._deadline))

    def refusal(self, url: str) -> str | None:
        """Why ``url`` is refused before any connection (see :func:`url_refusal`), or None."""
        return url_refusal(url, self._allow)

    def post(self, url: str, secret: str, body: bytes, delivery_id: str) -> Attempt:
        """One signed attempt; never raises for what the receiver or the network did (that is the attempt's
        outcome)."""
        try:
            parts = urllib.parse.urlsplit(url)
            parts.port  # noqa: B018 - a port that is not a number raises here
        except ValueError as exc:
            return Attempt(False, None, type(exc).__name__)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if parts.scheme not in ("http", "https") or not parts.hostname or not _TOKEN.fullmatch(target) \
                or not _TOKEN.fullmatch(parts.netloc):
            return Attempt(False, None, "InvalidURL")
        if self.refusal(url) is not None:
            return Attempt(False, None, "ForbiddenAddress")
        if not _TOKEN.fullmatch(delivery_id):
            return Attempt(False, None, "InvalidDeliveryId")
        headers = {**signed_headers(secret, body, delivery_id), "User-Agent": "torres-webhooks"}
        timeouts = dict.fromkeys(("connect", "read", "write", "pool"), self._timeout)
        self._deadline.until = time.monotonic() + self._timeout
        try:
            with self._pool.stream("POST", url, headers=list(headers.items()), content=body,
                                   extensions={"timeout": timeouts}) as response:
                size = 0
                for chunk in response.iter_stream():
                    size += len(chunk)
                    if size > MAX_RESPONSE:  # left unread: the connection is closed, not kept
                        return Attempt(False, response.status, "ResponseTooLarge")
        except Exception as exc:  # every failure is an outcome, named for the log
            return Attempt(False, None, next((name for kind, name in _FAILURES if isinstance(exc, kind)),
                                             type(exc).__name__))
        finally:
            self._deadline.until = math.inf
        ok = 200 <= response.status < 300
        return Attempt(ok, response.status, None if ok else f"HTTP {response.status}")

    def close(self) -> None:
        self._pool.close()

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

import errno
import hashlib
import hmac
import re
import select
import selectors
import socket
import ssl
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass

import httptools

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


@dataclass(frozen=True)
class Post:
    """One attempt to make: where, signed with what, the body and the delivery id."""

    url: str
    secret: str
    body: bytes
    delivery_id: str


#: What may stand in a request line's target or a header value we send: visible ASCII, no space, no CR or LF.
_TOKEN = re.compile(r"[\x21-\x7e]+")
#: A wait of an exchange: the socket and the selector events it waits for.
_Wait = tuple[socket.socket, int]
_Endpoint = tuple[str, str, int]


class _Failed(Exception):
    """An exchange ended without an acceptable HTTP answer: ``name`` is what the delivery log records."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class _Response:
    """httptools' callbacks for one response: its status, and whether the connection may carry another."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.status: int | None = None
        self.keep_alive = False
        self.complete = False

    def on_headers_complete(self) -> None:
        self.status = self.parser.get_status_code()
        self.keep_alive = self.parser.should_keep_alive()

    def on_message_complete(self) -> None:
        self.complete = True


class Poster:
    """Posts signed attempts, several at once from one thread, over kept-alive connections: what every sender of
    webhooks here uses (the game service's delivery workers, a batch at a time; the matchmaker's callbacks, one at a
    time), from any number of threads or greenlets.

    Non-blocking sockets multiplexed by :mod:`selectors` (gevent's, cooperatively, once a gevent worker has patched
    it), each exchange a generator that yields what it waits for; the request head written here (it is ours: a fixed
    shape, every value checked to be a header token) and the response read by httptools (llhttp, the parser uvicorn
    uses). Not a general client: a worker delivering a portal's webhooks does little but post, and through
    ``http.client`` on 8 threads the delivery worker spent 237 µs of CPU per webhook, against 60 µs this way, 23 µs
    of either being the claim and the record (``bench/webhook_cpu_bench.py``, side by side; docs/performance.md,
    "Webhooks"); through urllib3 it had spent more again. What it keeps of a client: connections reused only when
    idle and not closed by the peer, a timeout on connecting and on each wait of an exchange, TLS verified by the
    default context, no retries inside an attempt and no redirects followed (an attempt is one request, its outcome
    recorded and retried after :func:`backoff` by the caller; a 3xx is not an acceptance). A failure is named as the
    delivery log always has (``ConnectError``, ``ConnectTimeout``, ``ReadTimeout``, ``RemoteProtocolError``).
    """

    def __init__(self, timeout: float, *, connections: int = 8, tls: ssl.SSLContext | None = None) -> None:
        self._timeout = timeout
        #: Attempts in flight at once, and idle connections kept per endpoint.
        self._keep = max(1, connections)
        self._idle: dict[_Endpoint, list[socket.socket]] = {}
        self._lock = threading.Lock()
        self._tls = tls or ssl.create_default_context()  # the system's roots; a test's own CA where it passes one

    def post(self, url: str, secret: str, body: bytes, delivery_id: str) -> Attempt:
        """One signed attempt; never raises for what the receiver or the network did (that is the attempt's
        outcome)."""
        return self.post_all([Post(url, secret, body, delivery_id)])[0]

    def post_all(self, posts: Sequence[Post]) -> list[Attempt]:
        """Each of ``posts`` attempted once, ``connections`` of them in flight at a time; their outcomes in order."""
        outcomes: dict[int, Attempt] = {}
        waiting: deque[int] = deque(range(len(posts)))
        exchanges: dict[int, Generator[_Wait, None, Attempt]] = {}
        waits: dict[int, tuple[socket.socket, float]] = {}  # what each exchange waits on, and until when
        with selectors.DefaultSelector() as selector:

            def advance(n: int, error: BaseException | None = None) -> None:
                """Run exchange ``n`` to its next wait (or its end), after its last one came or timed out."""
                try:
                    sock, events = exchanges[n].send(None) if error is None else exchanges[n].throw(error)
                except StopIteration as done:
                    outcomes[n] = done.value
                    del exchanges[n]
                    return
                selector.register(sock, events, n)
                waits[n] = sock, time.monotonic() + self._timeout

            while waiting or exchanges:
                while waiting and len(exchanges) < self._keep:
                    n = waiting.popleft()
                    exchanges[n] = self._exchange(posts[n])
                    advance(n)
                if not waits:
                    continue
                for key, _ in selector.select(max(0.0, min(until for _, until in waits.values()) - time.monotonic())):
                    selector.unregister(waits.pop(key.data)[0])
                    advance(key.data)
                now = time.monotonic()
                for n in [n for n, (_, until) in waits.items() if until <= now]:
                    selector.unregister(waits.pop(n)[0])
                    advance(n, TimeoutError())
        return [outcomes[n] for n in range(len(posts))]

    def _exchange(self, post: Post) -> Generator[_Wait, None, Attempt]:
        """One attempt, from taking or opening a connection to the response's status."""
        try:
            parts = urllib.parse.urlsplit(post.url)
            endpoint = (parts.scheme, parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
        except ValueError as exc:  # a port that is not a number
            return Attempt(False, None, type(exc).__name__)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.netloc.rpartition("@")[2]  # the Host header: the URL's host and port, without credentials
        if parts.scheme not in ("http", "https") or not parts.hostname or not _TOKEN.fullmatch(target) \
                or not _TOKEN.fullmatch(host):
            return Attempt(False, None, "InvalidURL")
        if not _TOKEN.fullmatch(post.delivery_id):
            return Attempt(False, None, "InvalidDeliveryId")
        headers = signed_headers(post.secret, post.body, post.delivery_id)
        request = (f"POST {target} HTTP/1.1\r\nHost: {host}\r\n"
                   + "".join(f"{name}: {value}\r\n" for name, value in headers.items())
                   + f"Content-Length: {len(post.body)}\r\nUser-Agent: torres-webhooks\r\n\r\n").encode() + post.body
        sock = self._take(endpoint)
        phase = "exchange"
        try:
            if sock is None:
                phase = "connect"
                sock = yield from self._connect(endpoint)
                phase = "exchange"
            yield from _send(sock, request)
            response = yield from _receive(sock)
        except TimeoutError:
            _close(sock)
            return Attempt(False, None, "ConnectTimeout" if phase == "connect" else "ReadTimeout")
        except _Failed as failed:  # only an exchange fails so (connecting fails with an OSError)
            _close(sock)
            return Attempt(False, None, failed.name)
        except OSError as exc:  # refused, unreachable, a name that does not resolve, a certificate refused, reset
            _close(sock)
            if phase == "connect":
                return Attempt(False, None, "ConnectError")
            reset = isinstance(exc, ConnectionResetError | BrokenPipeError)
            return Attempt(False, None, "RemoteProtocolError" if reset else type(exc).__name__)
        assert sock is not None and response.status is not None
        if response.complete and response.keep_alive:
            self._give(endpoint, sock)
        else:
            sock.close()
        ok = 200 <= response.status < 300
        return Attempt(ok, response.status, None if ok else f"HTTP {response.status}")

    def _connect(self, endpoint: _Endpoint) -> Generator[_Wait, None, socket.socket]:
        """A new connection (every address the name resolves to in turn, as ``socket.create_connection``), TLS
        negotiated for https."""
        scheme, host, port = endpoint
        error = OSError(f"{host} resolves to no address")
        for family, kind, proto, _, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
            sock = socket.socket(family, kind, proto)
            try:
                sock.setblocking(False)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a post is one small exchange
                code = sock.connect_ex(address)
                if code in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EAGAIN):
                    yield sock, selectors.EVENT_WRITE
                    code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if code:
                    raise OSError(code, f"connecting to {host}:{port}")
                if scheme != "https":
                    return sock
                tls = self._tls.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
                sock = tls
                while True:
                    try:
                        tls.do_handshake()
                        return tls
                    except ssl.SSLWantReadError:
                        yield tls, selectors.EVENT_READ
                    except ssl.SSLWantWriteError:
                        yield tls, selectors.EVENT_WRITE
            except OSError as exc:
                sock.close()
                error = exc
            except BaseException:
                sock.close()
                raise
        raise error

    def _take(self, endpoint: _Endpoint) -> socket.socket | None:
        """An idle connection to ``endpoint`` the peer has not closed meanwhile (readable while idle: its end of
        file, or bytes nobody asked for), or None."""
        while True:
            with self._lock:
                idle = self._idle.get(endpoint)
                if not idle:
                    return None
                sock = idle.pop()
            if not (isinstance(sock, ssl.SSLSocket) and sock.pending()) and not _readable(sock):
                return sock
            sock.close()

    def _give(self, endpoint: _Endpoint, sock: socket.socket) -> None:
        with self._lock:
            idle = self._idle.setdefault(endpoint, [])
            if len(idle) < self._keep:
                idle.append(sock)
                return
        sock.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, {}
        for sockets in idle.values():
            for sock in sockets:
                sock.close()


def _readable(sock: socket.socket) -> bool:
    """Whether ``sock`` has something to read now: ``poll``, not ``select``, whose descriptor numbers end at 1 024
    (a game-service process holding thousands of streams has descriptors far beyond)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


def _send(sock: socket.socket, data: bytes) -> Generator[_Wait, None, None]:
    view = memoryview(data)
    while view:
        try:
            view = view[sock.send(view):]
        except (BlockingIOError, ssl.SSLWantWriteError):
            yield sock, selectors.EVENT_WRITE
        except ssl.SSLWantReadError:
            yield sock, selectors.EVENT_READ


def _receive(sock: socket.socket) -> Generator[_Wait, None, _Response]:
    """The response, read until it is complete, or until the peer closes after its head (a response whose body
    ends at the close: its status counts, and the connection is not kept)."""
    response = _Response()
    while not response.complete:
        try:
            data = sock.recv(65536)
        except (BlockingIOError, ssl.SSLWantReadError):
            yield sock, selectors.EVENT_READ
            continue
        except ssl.SSLWantWriteError:
            yield sock, selectors.EVENT_WRITE
            continue
        if not data:
            if response.status is None:
                raise _Failed("RemoteProtocolError")
            break
        try:
            response.parser.feed_data(data)
        except httptools.HttpParserError:
            if not response.complete:
                raise _Failed("RemoteProtocolError") from None
            response.keep_alive = False  # bytes after a complete response: it counts, the connection does not
    return response


def _close(sock: socket.socket | None) -> None:
    if sock is not None:
        sock.close()

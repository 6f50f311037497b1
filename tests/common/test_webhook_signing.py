"""The one implementation of signed webhooks (torres_service.webhooks): what the game service's webhooks
and the matchmaker's callbacks send, and what a receiver checks; and the tenants file's webhook settings."""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import hmac
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import pytest

from torres_service import keys as keys_cli
from torres_service import webhooks
from torres_service.principals import Registries, Registry

SECRET = "a-portal-chosen-webhook-secret"
#: The endpoints here are on loopback: a poster reaches them only when told it may.
LOOPBACK = webhooks.allowed_networks("127.0.0.0/8")


def test_a_signed_attempt_verifies_and_anything_changed_does_not() -> None:
    body = b'{"id": "g.1.game.created", "type": "game.created"}'
    headers = webhooks.signed_headers(SECRET, body, "g.1.game.created", now=1_800_000_000)
    assert headers["X-Torres-Delivery"] == "g.1.game.created" and headers["X-Torres-Timestamp"] == "1800000000"
    expected = hmac.new(SECRET.encode(), b"1800000000." + body, hashlib.sha256).hexdigest()
    assert headers["X-Torres-Signature"] == f"sha256={expected}"  # the documented construction, exactly
    assert webhooks.verify(SECRET, headers, body, now=1_800_000_100)
    lower = {k.lower(): v for k, v in headers.items()}  # what a framework may hand over
    assert webhooks.verify(SECRET, lower, body, now=1_800_000_100)
    assert not webhooks.verify("another-tenants-secret", headers, body, now=1_800_000_100)
    assert not webhooks.verify(SECRET, headers, body + b" ", now=1_800_000_100)
    assert not webhooks.verify(SECRET, {**headers, "X-Torres-Timestamp": "1800000001"}, body, now=1_800_000_100)
    assert not webhooks.verify(SECRET, headers, body, now=1_800_000_000 + 301)  # a replay past the tolerance
    assert webhooks.verify(SECRET, headers, body, tolerance=600, now=1_800_000_000 + 301)
    assert not webhooks.verify(SECRET, {}, body)
    assert not webhooks.verify(SECRET, {**headers, "X-Torres-Timestamp": "-5"}, body, now=1_800_000_100)


def test_the_back_off_doubles_up_to_its_cap() -> None:
    assert [webhooks.backoff(n) for n in range(1, 12)] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]


def test_the_keys_cli_sets_a_webhook_prints_its_secret_once_and_lists_none(tmp_path: Path) -> None:
    path = tmp_path / "tenants.json"

    def cli(*args: str) -> dict:
        return keys_cli.run(keys_cli.parser().parse_args(["--file", str(path), *args]))

    cli("add-tenant", "portal")
    made = cli("set-webhook", "portal", "--url", "https://portal.example/hooks")
    assert made["url"] == "https://portal.example/hooks" and len(made["secret"]) >= 32
    tenant = Registries(path=str(path)).current.tenant("portal")
    assert tenant is not None and tenant.webhook is not None and tenant.webhook.secret == made["secret"]
    assert "secret" not in json.dumps(cli("list"))
    assert "secret" not in cli("set-webhook", "portal", "--url", "https://portal.example/v2", "--secret", SECRET)
    assert Registry.from_json(json.loads(path.read_text())).tenants["portal"].webhook.secret == SECRET  # type: ignore[union-attr]
    with pytest.raises(SystemExit):
        cli("set-webhook", "portal", "--url", "ftp://portal.example/", "--secret", SECRET)
    with pytest.raises(SystemExit):
        cli("set-webhook", "portal", "--url", "https://portal.example/", "--secret", "short")
    cli("remove-webhook", "portal")
    assert Registry.from_json(json.loads(path.read_text())).tenants["portal"].webhook is None


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hooks", "http://localhost/hooks", "http://10.0.0.7/hooks",
                                 "http://169.254.169.254/latest/meta-data/", "https://[fd00::1]/hooks"])
def test_the_keys_cli_refuses_a_webhook_inside_the_cluster_unless_its_range_is_allowed(
        url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tenants.json"

    def cli(*args: str) -> dict:
        return keys_cli.run(keys_cli.parser().parse_args(["--file", str(path), *args]))

    monkeypatch.delenv("TORRES_WEBHOOK_ALLOW_NETWORKS", raising=False)
    cli("add-tenant", "portal")
    with pytest.raises(SystemExit, match="not a public address"):
        cli("set-webhook", "portal", "--url", url, "--secret", SECRET)
    assert Registries(path=str(path)).current.tenant("portal").webhook is None  # type: ignore[union-attr]
    monkeypatch.setenv("TORRES_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8,10.0.0.0/8,169.254.0.0/16,fc00::/7")
    assert cli("set-webhook", "portal", "--url", url, "--secret", SECRET)["url"] == url


def test_the_single_key_default_takes_its_webhook_from_two_variables() -> None:
    registry = Registries.from_env({"TORRES_WEBHOOK_URL": "http://127.0.0.1:9/hooks", "TORRES_WEBHOOK_SECRET": SECRET},
                                   api_key="k").current
    tenant = registry.tenant("default")
    assert tenant is not None and tenant.webhook is not None and tenant.webhook.url == "http://127.0.0.1:9/hooks"
    assert Registries.from_env({}, api_key="k").current.tenant("default").webhook is None  # type: ignore[union-attr]


# -- the poster ---------------------------------------------------------------------------------------------

class RawEndpoint:
    """A loopback endpoint written on sockets, so that a test decides exactly what the peer does: answer and keep
    the connection, answer and close it without saying so, answer with a given status, or read and never answer.
    It counts the connections it accepted and keeps every request's bytes."""

    #: What a response is made of, by behaviour (the others answer with a Content-Length of 0).
    ANSWERS: ClassVar[dict[str, str]] = {
        "close-delimited": "HTTP/1.1 {status} X\r\n\r\nthe body ends where the connection does",
        "chunked-dribble": "HTTP/1.1 {status} X\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        "trickle": "HTTP/1.1 {status} X\r\nContent-Length: 40\r\n\r\n" + "x" * 40,
        "too-large": "HTTP/1.1 {status} X\r\nContent-Length: 1000000\r\n\r\n" + "x" * 1_000_000,
    }

    def __init__(self, behaviour: str, status: int = 200, *, together: int = 1,
                 tls: ssl.SSLContext | None = None) -> None:
        self.behaviour, self.status = behaviour, status
        self.connections = 0
        self.requests: list[bytes] = []
        #: "together": no request is answered before ``together`` requests are open at once.
        self._together = threading.Barrier(together)
        self._tls = tls
        self._server = socket.create_server(("127.0.0.1", 0))
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self._server.getsockname()[1]}/hooks?portal=1"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        if self._tls is not None:
            try:
                conn = self._tls.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError):  # the client refused the certificate
                conn.close()
                return
        with conn, contextlib.suppress(ConnectionResetError, BrokenPipeError):  # the client gave up
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                while len(data) < length:
                    data += conn.recv(65536)
                self.requests.append(head + b"\r\n\r\n" + data[:length])
                data = data[length:]
                if self.behaviour == "silent":
                    time.sleep(2)
                    return
                if self.behaviour == "hang-up":
                    return
                if self.behaviour == "reset":  # an RST, not a FIN: SO_LINGER of 0 seconds
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    return
                if self.behaviour == "together":
                    try:
                        self._together.wait(timeout=3)
                    except threading.BrokenBarrierError:
                        return
                answer = self.ANSWERS.get(self.behaviour, "HTTP/1.1 {status} X\r\nContent-Length: 0\r\n\r\n")
                if self.behaviour in ("chunked-dribble", "trickle"):  # a byte at a time: the answer in pieces
                    for byte in answer.format(status=self.status).encode():
                        try:
                            conn.sendall(bytes([byte]))
                        except OSError:
                            return  # the client gave up
                        time.sleep(0.001 if self.behaviour == "chunked-dribble" else 0.1)
                else:
                    conn.sendall(answer.format(status=self.status).encode())
                if self.behaviour in ("close-unannounced", "close-delimited"):
                    conn.shutdown(socket.SHUT_RDWR)
                    return

    def close(self) -> None:
        self._server.close()


@pytest.fixture
def endpoint() -> Iterator[Callable[..., RawEndpoint]]:
    made: list[RawEndpoint] = []

    def make(behaviour: str, status: int = 200, **options: Any) -> RawEndpoint:
        made.append(RawEndpoint(behaviour, status, **options))
        return made[-1]

    yield make
    for e in made:
        e.close()


def test_the_poster_keeps_a_connection_alive_and_opens_another_when_the_peer_closed_it(
        endpoint: Callable[..., RawEndpoint]) -> None:
    poster = webhooks.Poster(2.0, allow=LOOPBACK)
    kept, closing = endpoint("keep-alive"), endpoint("close-unannounced")
    try:
        for n in range(3):
            assert poster.post(kept.url, SECRET, b'{"n": %d}' % n, f"d{n}") == webhooks.Attempt(True, 200)
            assert poster.post(closing.url, SECRET, b'{"n": %d}' % n, f"d{n}") == webhooks.Attempt(True, 200)
            time.sleep(0.05)  # the peer's close has arrived before the next post takes the connection
    finally:
        poster.close()
    assert (kept.connections, closing.connections) == (1, 3)
    head, _, body = kept.requests[2].partition(b"\r\n\r\n")
    assert head.startswith(b"POST /hooks?portal=1 HTTP/1.1\r\n") and body == b'{"n": 2}'
    headers = dict(line.decode().split(": ", 1) for line in head.split(b"\r\n")[1:])
    assert headers["X-Torres-Delivery"] == "d2" and webhooks.verify(SECRET, headers, body)


def test_the_poster_names_each_failure_as_the_delivery_log_always_has(endpoint: Callable[..., RawEndpoint]) -> None:
    poster = webhooks.Poster(0.5, allow=LOOPBACK)
    refused = socket.create_server(("127.0.0.1", 0))
    port = refused.getsockname()[1]
    refused.close()  # nobody listens there now
    try:
        assert poster.post(f"http://127.0.0.1:{port}/", SECRET, b"{}", "d") == webhooks.Attempt(
            False, None, "ConnectError")
        assert poster.post(endpoint("silent").url, SECRET, b"{}", "d") == webhooks.Attempt(False, None, "ReadTimeout")
        assert poster.post(endpoint("hang-up").url, SECRET, b"{}", "d") == webhooks.Attempt(
            False, None, "RemoteProtocolError")
        assert poster.post(endpoint("keep-alive", 500).url, SECRET, b"{}", "d") == webhooks.Attempt(
            False, 500, "HTTP 500")
        redirect = endpoint("keep-alive", 302)  # not followed, and not an acceptance
        assert poster.post(redirect.url, SECRET, b"{}", "d") == webhooks.Attempt(False, 302, "HTTP 302")
        assert len(redirect.requests) == 1
        assert poster.post("ftp://127.0.0.1/hooks", SECRET, b"{}", "d") == webhooks.Attempt(False, None, "InvalidURL")
        assert poster.post("http://127.0.0.1:port/", SECRET, b"{}", "d").error == "ValueError"
    finally:
        poster.close()


def test_the_poster_reads_a_response_in_pieces_chunked_or_ended_by_the_close(
        endpoint: Callable[..., RawEndpoint]) -> None:
    poster = webhooks.Poster(2.0, allow=LOOPBACK)
    dribble, delimited = endpoint("chunked-dribble"), endpoint("close-delimited")
    try:
        for n in range(2):
            assert poster.post(dribble.url, SECRET, b"{}", f"d{n}") == webhooks.Attempt(True, 200)
            assert poster.post(delimited.url, SECRET, b"{}", f"d{n}") == webhooks.Attempt(True, 200)
    finally:
        poster.close()
    # A complete chunked response leaves the connection for the next post; one ended by the close cannot.
    assert (dribble.connections, delimited.connections) == (1, 2)


def test_the_poster_has_attempts_in_flight_from_many_threads_at_once(endpoint: Callable[..., RawEndpoint]) -> None:
    """The delivery worker posts from several slots at once through one poster: an endpoint that answers nobody
    before four requests are open at once gets its four."""
    poster = webhooks.Poster(5.0, connections=4, allow=LOOPBACK)
    target = endpoint("together", together=4)
    try:
        with ThreadPoolExecutor(4) as slots:
            outcomes = list(slots.map(lambda n: poster.post(target.url, SECRET, b'{"n": %d}' % n, f"d{n}"), range(4)))
    finally:
        poster.close()
    assert outcomes == [webhooks.Attempt(True, 200)] * 4


def test_an_attempt_ends_by_its_deadline_whatever_the_endpoint_does(endpoint: Callable[..., RawEndpoint]) -> None:
    """The timeout is one deadline for the whole attempt: an answer that trickles in a byte every 0.1 s (each
    wait far shorter than the timeout) fails when the deadline comes, as a hung endpoint does; a reset and a
    response too large fail with their names, and none of them counts as delivered."""
    poster = webhooks.Poster(0.5, allow=LOOPBACK)
    try:
        started = time.monotonic()
        assert poster.post(endpoint("trickle").url, SECRET, b"{}", "d") == webhooks.Attempt(False, None, "ReadTimeout")
        assert time.monotonic() - started < 1.0
        started = time.monotonic()
        assert poster.post(endpoint("silent").url, SECRET, b"{}", "d") == webhooks.Attempt(False, None, "ReadTimeout")
        assert time.monotonic() - started < 1.0
        assert poster.post(endpoint("reset").url, SECRET, b"{}", "d") == webhooks.Attempt(
            False, None, "RemoteProtocolError")
        assert poster.post(endpoint("too-large").url, SECRET, b"{}", "d") == webhooks.Attempt(
            False, 200, "ResponseTooLarge")
    finally:
        poster.close()


def resolver_for(monkeypatch: pytest.MonkeyPatch, name: str, answer: Callable[[], None]) -> None:
    """The system resolver stood in for, for ``name`` alone: ``answer()`` runs before the real lookup of it (it
    sleeps as a resolver whose servers do not answer, or raises as one that found nothing); other names resolve."""
    real = socket.getaddrinfo

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == name:
            answer()
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)


def test_a_resolver_that_does_not_answer_holds_only_its_own_attempt_and_not_past_the_deadline(
        endpoint: Callable[..., RawEndpoint], monkeypatch: pytest.MonkeyPatch) -> None:
    """A name whose DNS servers take 5 s (the system resolver, stood in for by a getaddrinfo that sleeps for that
    one name): its attempt fails at its own deadline, and a post to another endpoint made meanwhile is not held."""
    resolver_for(monkeypatch, "slow-dns.example", lambda: time.sleep(5))
    poster = webhooks.Poster(1.0, allow=LOOPBACK)
    target = endpoint("keep-alive")
    try:
        with ThreadPoolExecutor(2) as slots:
            started = time.monotonic()
            stuck = slots.submit(poster.post, "http://slow-dns.example/hooks", SECRET, b"{}", "d1")
            time.sleep(0.1)
            assert poster.post(target.url, SECRET, b"{}", "d2") == webhooks.Attempt(True, 200)
            assert time.monotonic() - started < 0.8  # not behind the other endpoint's resolution
            assert stuck.result() == webhooks.Attempt(False, None, "ConnectTimeout")
            assert time.monotonic() - started < 1.8  # its own deadline, not the resolver's 5 s
    finally:
        poster.close()


def test_a_name_that_does_not_resolve_fails_as_a_connect_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The system resolver's answer for a name that does not exist (``EAI_NONAME``), given by a getaddrinfo that
    stands in for it for that one name: a real lookup of a ``.invalid`` name asks the machine's DNS server, off
    loopback, and a loaded machine's answer can come after the attempt's deadline (a ConnectTimeout, tested
    above)."""
    def missing() -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    resolver_for(monkeypatch, "no-such-host.invalid", missing)
    poster = webhooks.Poster(2.0)
    try:
        assert poster.post("http://no-such-host.invalid/hooks", SECRET, b"{}", "d") == webhooks.Attempt(
            False, None, "ConnectError")
    finally:
        poster.close()


@pytest.mark.parametrize("url", ["http://127.0.0.1:{port}/", "http://[::1]:{port}/", "http://localhost:{port}/",
                                 "http://10.1.2.3:{port}/", "http://192.168.0.1:{port}/", "http://172.16.0.1:{port}/",
                                 "http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/",
                                 "http://[::ffff:127.0.0.1]:{port}/", "http://100.64.0.1/", "http://0.0.0.0:{port}/",
                                 "http://[fe80::1]/"])
def test_a_webhook_is_refused_to_a_loopback_private_link_local_or_metadata_address(
        url: str, endpoint: Callable[..., RawEndpoint]) -> None:
    """By default, whether the URL names the address or it is what the URL's name resolves to: nothing is
    sent there. The allow setting's ranges are the one way past it."""
    target = endpoint("keep-alive")
    url = url.format(port=target.url.split(":")[2].split("/")[0])
    assert webhooks.url_refusal(url) is not None
    poster = webhooks.Poster(1.0, allow=())
    try:
        assert poster.post(url, SECRET, b"{}", "d") == webhooks.Attempt(False, None, "ForbiddenAddress")
    finally:
        poster.close()
    assert target.connections == 0
    assert webhooks.url_refusal("https://hooks.example.com/torres") is None
    assert webhooks.url_refusal("http://93.184.216.34/hooks") is None


def test_a_name_that_resolves_to_a_private_address_when_posting_is_refused(
        endpoint: Callable[..., RawEndpoint]) -> None:
    """DNS rebinding: a name accepted when it was given (no address in it) but resolving to loopback when the
    post is made. This machine's own name resolves so (127.0.0.1 in /etc/hosts, or a container's private
    address); the poster refuses it unless the allow setting lists that range."""
    name = socket.gethostname()
    resolved = {ipaddress.ip_address(a[4][0]) for a in socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)}
    assert resolved and not any(webhooks.is_outside(a) for a in resolved), resolved
    target = endpoint("keep-alive")
    url = target.url.replace("127.0.0.1", name)
    assert webhooks.url_refusal(url) is None  # a name: accepted when given
    refusing = webhooks.Poster(1.0, allow=())
    allowing = webhooks.Poster(1.0, allow=[ipaddress.ip_network(f"{a}/{a.max_prefixlen}") for a in resolved]
                               + list(LOOPBACK))
    try:
        assert refusing.post(url, SECRET, b"{}", "d") == webhooks.Attempt(False, None, "ForbiddenAddress")
        assert target.connections == 0
        if any(a.is_loopback for a in resolved):
            assert allowing.post(url, SECRET, b"{}", "d") == webhooks.Attempt(True, 200)
    finally:
        refusing.close()
        allowing.close()


def test_the_allow_setting_reads_ranges_and_refuses_what_does_not_parse() -> None:
    assert webhooks.allowed_networks("127.0.0.0/8, ::1/128") == (ipaddress.ip_network("127.0.0.0/8"),
                                                                 ipaddress.ip_network("::1/128"))
    assert webhooks.allowed_networks("") == ()
    with pytest.raises(ValueError):
        webhooks.allowed_networks("localhost")
    assert webhooks.url_refusal("http://127.0.0.1:1/", webhooks.allowed_networks("127.0.0.0/8")) is None


def test_the_poster_refuses_to_put_a_line_break_or_a_space_into_its_request(
        endpoint: Callable[..., RawEndpoint]) -> None:
    """A header injected through a delivery id or a URL: refused before anything is sent."""
    poster = webhooks.Poster(1.0, allow=LOOPBACK)
    target = endpoint("keep-alive")
    try:
        assert poster.post(target.url, SECRET, b"{}", "d\r\nX-Injected: 1") == webhooks.Attempt(
            False, None, "InvalidDeliveryId")
        assert poster.post(target.url.replace("/hooks", "/ho oks"), SECRET, b"{}", "d") == webhooks.Attempt(
            False, None, "InvalidURL")
        injected = target.url.replace("/hooks", "/a\r\nX-Injected: 1")
        assert poster.post(injected, SECRET, b"{}", "d").error == "InvalidURL"
    finally:
        poster.close()
    assert target.connections == 0 and target.requests == []


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_the_poster_posts_over_tls_and_refuses_a_certificate_it_does_not_trust(
        endpoint: Callable[..., RawEndpoint], tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert, key)
    target = endpoint("keep-alive", tls=server)
    trusting = webhooks.Poster(2.0, tls=ssl.create_default_context(cafile=str(cert)), allow=LOOPBACK)
    default = webhooks.Poster(2.0, allow=LOOPBACK)  # the system's roots: a self-signed certificate is an impostor's
    try:
        for n in range(2):
            assert trusting.post(target.url, SECRET, b'{"n": %d}' % n, f"d{n}") == webhooks.Attempt(True, 200)
        assert default.post(target.url, SECRET, b'{"secret": 1}', "d9") == webhooks.Attempt(False, None, "ConnectError")
    finally:
        trusting.close()
        default.close()
    assert target.connections == 2  # one kept alive for both posts, one refused at the handshake
    assert [r.partition(b"\r\n\r\n")[2] for r in target.requests] == [b'{"n": 0}', b'{"n": 1}']


GEVENT_POSTS = """
from gevent import monkey
monkey.patch_all()
import http.server, os, selectors, sys, threading
from concurrent.futures import ThreadPoolExecutor
from torres_service import webhooks

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        ok = webhooks.verify("s", self.headers, body)
        self.send_response(200 if ok else 403)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
poster = webhooks.Poster(2.0, connections=4, allow=webhooks.allowed_networks("127.0.0.0/8"))
with ThreadPoolExecutor(4) as slots:
    outcomes = list(slots.map(lambda n: poster.post(url, "s", b"{}", f"d{n}"), range(10)))
if "--many-descriptors" in sys.argv:  # the next connections' numbers beyond select()'s 1 024, then reused
    poster.close()
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    outcomes = [poster.post(url, "s", b"{}", f"e{n}") for n in range(10)]
print(type(selectors.DefaultSelector()).__module__, [o.status for o in outcomes])
"""


@pytest.mark.parametrize("patched", [True, False], ids=["gevent", "threads"])
@pytest.mark.parametrize("descriptors", ["few", "many"])
def test_the_poster_posts_in_a_gevent_or_a_threaded_process_and_past_1024_descriptors(patched: bool,
                                                                                       descriptors: str) -> None:
    """The game service's own delivery thread runs in a gevent worker: the poster's sockets and selector are
    gevent's there, and its posts complete while the hub serves the (green) endpoint in the same process. With
    more than 1 024 descriptors open (a process holding thousands of streams), a kept-alive connection is still
    checked and reused, where ``select()`` refuses such numbers."""
    script = GEVENT_POSTS if patched else GEVENT_POSTS.replace("monkey.patch_all()", "")
    argv = [sys.executable, "-c", script] + (["--many-descriptors"] if descriptors == "many" else [])
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert out.returncode == 0, out.stderr
    module, statuses = out.stdout.split(" ", 1)
    assert module.startswith("gevent") == patched and statuses.strip() == str([200] * 10)

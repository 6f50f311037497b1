"""The one implementation of signed webhooks (torres_service.webhooks, issue 29): what the game service's webhooks
and the matchmaker's callbacks send, and what a receiver checks; and the tenants file's webhook settings."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from torres_service import keys as keys_cli
from torres_service import webhooks
from torres_service.principals import Registries, Registry

SECRET = "a-portal-chosen-webhook-secret"


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

    def __init__(self, behaviour: str, status: int = 200) -> None:
        self.behaviour, self.status = behaviour, status
        self.connections = 0
        self.requests: list[bytes] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}/hooks?portal=1"
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
        with conn:
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
                conn.sendall(f"HTTP/1.1 {self.status} X\r\nContent-Length: 0\r\n\r\n".encode())
                if self.behaviour == "close-unannounced":
                    conn.shutdown(socket.SHUT_RDWR)
                    return

    def close(self) -> None:
        self._server.close()


@pytest.fixture
def endpoint() -> Iterator[Callable[..., RawEndpoint]]:
    made: list[RawEndpoint] = []

    def make(behaviour: str, status: int = 200) -> RawEndpoint:
        made.append(RawEndpoint(behaviour, status))
        return made[-1]

    yield make
    for e in made:
        e.close()


def test_the_poster_keeps_a_connection_alive_and_opens_another_when_the_peer_closed_it(
        endpoint: Callable[..., RawEndpoint]) -> None:
    poster = webhooks.Poster(2.0)
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
    poster = webhooks.Poster(0.5)
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

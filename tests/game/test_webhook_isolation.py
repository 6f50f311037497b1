"""One tenant's endpoint never holds back another's: the production setup (PostgreSQL, delivery workers as
processes of their own, every delivery setting at its default) with a healthy portal among portals whose endpoints
hang, trickle, reset, answer 500, do not resolve or show a certificate nobody trusts, each with a backlog.

The healthy portal's webhooks, written all along, are all delivered, once each, within 2 s at the 99th
percentile, through a rolling restart of a worker; the failing endpoints' attempts are recorded with their names,
follow the documented back-off, and are held back as a whole (the circuit) instead of filling the workers' slots.
"""

from __future__ import annotations

import contextlib
import datetime
import http.server
import ipaddress
import itertools
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from torres_game.store import PostgresEventStore
from torres_game.store.base import GameRecord, GameSecret, NewEvent, WebhookRow
from torres_service import webhooks as signing

from .conftest import MIGRATIONS
from .tenant_helpers import cli
from .test_webhooks import outbox

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
SECRET = "a-portal-chosen-webhook-secret"


class Endpoint:
    """A failing portal endpoint on loopback: ``hang`` reads the request and never answers, ``trickle`` answers a
    byte a second, ``reset`` resets the connection, ``error`` answers 500, ``badcert`` speaks TLS with a
    certificate nobody trusts. It keeps when each delivery id arrived."""

    def __init__(self, behaviour: str, tls: ssl.SSLContext | None = None) -> None:
        self.behaviour = behaviour
        self.arrivals: dict[str, list[float]] = {}
        self._tls = tls
        self._server = socket.create_server(("127.0.0.1", 0), backlog=256)
        self._held: list[socket.socket] = []
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self._server.getsockname()[1]}/hooks"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        if self._tls is not None:
            with contextlib.suppress(OSError):
                self._tls.wrap_socket(conn, server_side=True)  # the client refuses the certificate
            conn.close()
            return
        with contextlib.suppress(OSError):
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        conn.close()
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                fields = dict(line.decode().split(": ", 1) for line in head.split(b"\r\n")[1:])
                length = int(fields["Content-Length"])
                while len(data) < length:
                    data += conn.recv(65536)
                data = data[length:]
                self.arrivals.setdefault(fields["X-Torres-Delivery"], []).append(time.time())
                if self.behaviour == "hang":
                    self._held.append(conn)
                    return
                if self.behaviour == "reset":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    conn.close()
                    return
                if self.behaviour == "trickle":
                    for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n":
                        conn.sendall(bytes([byte]))
                        time.sleep(1.0)
                    continue
                conn.sendall(b"HTTP/1.1 500 Busy\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> None:
        self._server.close()
        for conn in self._held:
            conn.close()


class Healthy:
    """The neighbour's endpoint: answers 200 at once, keeping every arrival of every delivery id."""

    def __init__(self) -> None:
        self.arrivals: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        healthy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                at = time.time()
                assert signing.verify(SECRET, self.headers, body)
                with healthy._lock:
                    healthy.arrivals.setdefault(self.headers["X-Torres-Delivery"], []).append(at)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hooks"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _untrusted_tls() -> ssl.SSLContext:
    """A server context with a self-signed certificate for 127.0.0.1 (no client trusts it)."""
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
            .sign(key, hashes.SHA256()))
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        cert_path, key_path = Path(folder) / "c.pem", Path(folder) / "k.pem"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_path, key_path)
    return context


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_webhooks(store: PostgresEventStore, tenant: str, count: int) -> list[str]:
    """A game of ``tenant`` created with ``count`` webhooks in its outbox (as its appends would have written)."""
    game_id = f"g-{uuid.uuid4().hex[:12]}"
    hooks = [WebhookRow(f"{game_id}.{n}.turn.started", tenant, "turn.started", {"id": f"{game_id}.{n}.turn.started"})
             for n in range(1, count + 1)]
    store.create_game(GameRecord(game_id, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}], tenant=tenant,
                                 webhooks=True),
                      GameSecret(1, [None]), [NewEvent("game_created", {})], f"create:{game_id}", webhooks=hooks)
    return [h.delivery_id for h in hooks]


FAILING = {"hang": "ReadTimeout", "trickle": "ReadTimeout", "reset": "RemoteProtocolError", "error": "HTTP 500",
           "dns": "ConnectError", "badcert": "ConnectError"}


@pytest.fixture
def endpoints() -> Iterator[dict[str, Any]]:
    made: dict[str, Any] = {name: Endpoint(name) for name in ("hang", "trickle", "reset", "error")}
    made["badcert"] = Endpoint("badcert", tls=_untrusted_tls())
    made["healthy"] = Healthy()
    yield made
    for endpoint in made.values():
        endpoint.close()


def test_failing_endpoints_never_hold_back_a_healthy_neighbour(
        throwaway_database: Callable[[str], Any], tmp_path: Path, endpoints: dict[str, Any]) -> None:
    tenants = tmp_path / "tenants.json"
    os.environ["TORRES_WEBHOOK_ALLOW_NETWORKS"] = "127.0.0.0/8"  # the keys CLI below, and the workers
    try:
        urls = {name: e.url for name, e in endpoints.items()} | {"dns": "http://no-such-portal.invalid/hooks"}
        for name, url in urls.items():
            cli(tenants, "add-tenant", name)
            cli(tenants, "set-webhook", name, "--url", url, "--secret", SECRET)
    finally:
        del os.environ["TORRES_WEBHOOK_ALLOW_NETWORKS"]
    with throwaway_database("torres_hooks_isolation") as url:
        store = PostgresEventStore(url, migrations_dir=MIGRATIONS, max_size=4)
        store.migrate()
        backlog = {name: write_webhooks(store, name, 3000 if name == "hang" else 200) for name in FAILING}
        metrics_port = free_port()
        env = {**os.environ, "DATABASE_URL": url, "TORRES_TENANTS_FILE": str(tenants),
               "TORRES_MIGRATIONS_DIR": str(MIGRATIONS), "TORRES_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8",
               "TORRES_JSON_LOGS": "1"}

        def worker(n: int, **extra: str) -> subprocess.Popen[bytes]:
            out = (tmp_path / f"worker-{n}.log").open("wb")
            return subprocess.Popen([sys.executable, "-m", "torres_game", "webhooks"], env={**env, **extra},
                                    cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)

        workers = [worker(1, TORRES_WEBHOOK_METRICS_PORT=str(metrics_port)), worker(2)]
        written: dict[str, float] = {}
        try:
            deadline = time.monotonic() + 30
            while not any(endpoints[name].arrivals for name in ("hang", "error", "reset")):  # the workers at work
                assert time.monotonic() < deadline, (tmp_path / "worker-1.log").read_text()
                time.sleep(0.05)
            started = time.monotonic()
            while time.monotonic() - started < 40:  # the healthy portal's games, 10 webhooks a second
                at = time.time()
                [delivery_id] = write_webhooks(store, "healthy", 1)
                written[delivery_id] = at
                if len(written) == 150:  # a rolling restart: the second worker stopped, a third started
                    workers[1].send_signal(signal.SIGTERM)
                    assert workers[1].wait(30) == 0, (tmp_path / "worker-2.log").read_text()
                    workers.append(worker(3))
                time.sleep(0.1)
            healthy = endpoints["healthy"]
            deadline = time.monotonic() + 15
            while set(healthy.arrivals) != set(written) and time.monotonic() < deadline:
                time.sleep(0.2)
            scraped = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
        finally:
            for process in workers:
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for process in workers:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(30)
        rows = {w.delivery_id: w for w in outbox(store)}
        store.close()

    # The neighbour: every webhook delivered, once, and soon after it was written.
    arrivals = endpoints["healthy"].arrivals
    assert set(arrivals) == set(written), f"{len(set(written) - set(arrivals))} of {len(written)} not delivered"
    assert {d: len(a) for d, a in arrivals.items() if len(a) > 1} == {}, "a healthy neighbour's webhook re-posted"
    assert all(rows[d].status == "delivered" and rows[d].attempts == 1 for d in written)
    latencies = sorted(arrivals[d][0] - written[d] for d in written)
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    timeline = [(round(written[d] - min(written.values()), 1), round(arrivals[d][0] - written[d], 2)) for d in written]
    assert p99 < 2.0, f"p99 {p99:.2f} s, max {latencies[-1]:.2f} s; {[t for t in timeline if t[1] > 1]}"

    # The failing ones: attempts recorded with their names, retried no sooner than the back-off, held back as a
    # whole: far fewer attempts than their rows' own back-off alone would have made.
    for name, error in FAILING.items():
        attempted = [rows[d] for d in backlog[name] if rows[d].attempts]
        assert attempted, f"{name}: never attempted"
        assert {r.last_error for r in attempted} == {error}, name
        assert all(r.status == "pending" for r in attempted)
        assert sum(r.attempts for r in attempted) < 120, f"{name}: {sum(r.attempts for r in attempted)} attempts"
        for r in attempted:
            assert r.next_attempt_at > r.created_at
        endpoint = endpoints.get(name)
        for times in getattr(endpoint, "arrivals", {}).values():
            for n, (one, two) in enumerate(itertools.pairwise(times), start=1):
                assert two - one >= signing.backoff(n) - 0.05, (name, times)
    assert sum(len(t) for t in endpoints["hang"].arrivals.values()) <= 60
    # what /metrics says of it: each tenant's backlog and oldest webhook, the circuits this worker holds open
    assert f'torres_game_webhook_backlog{{tenant="hang"}} {float(len(backlog["hang"]))}' in scraped
    assert 'torres_game_webhook_oldest_pending_seconds{tenant="error"}' in scraped
    assert 'torres_game_webhook_circuit_open{tenant="error"} 1.0' in scraped
    assert 'torres_game_webhook_circuit_open{tenant="healthy"}' not in scraped \
        or 'torres_game_webhook_circuit_open{tenant="healthy"} 0.0' in scraped

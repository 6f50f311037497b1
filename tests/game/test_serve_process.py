"""The embedded default as ``make run`` starts it: ``python -m torres_game serve`` in its own process (the
werkzeug development server, a thread per connection), on SQLite, observed from outside.

- File descriptors: hundreds of requests, each on a fresh TCP connection (so each on a new server thread),
  must leave the process with the descriptors it had before (the per-thread SQLite connections of
  the store were never closed, two descriptors per request, 500s once the ulimit was reached).
- ``/stream`` sends its headers and a first comment at once, before any event (a browser EventSource counts
  as open only then), and says ``timeout``, not ``end``, when its own time runs out on a game still going.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from polling import wait_until
from serving import free_port

from .conftest import API_KEY, MIGRATIONS

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to count descriptors")



class Served:
    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process, self.port = process, port

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[
            int, Any]:
        """One request on a connection of its own (a new server thread each time)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            data = None if body is None else json.dumps(body)
            conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            response = conn.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            conn.close()

    def open_descriptors(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{data / 'torres.sqlite3'}", "TORRES_API_KEY": API_KEY,
           "TORRES_ADMIN_KEY": "serve-admin", "TORRES_AI_DRIVER": "none", "TORRES_MIGRATIONS_DIR": str(MIGRATIONS),
           "TORRES_LOG_LEVEL": "WARNING"}
    process = subprocess.Popen([sys.executable, "-m", "torres_game", "serve", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = Served(process, port)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if server.request("GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            assert process.poll() is None, "the server exited"
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.1)
        yield server
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def game(served: Served) -> dict[str, Any]:
    status, body = served.request("POST", "/v1/games", {"seats": [{"kind": "human", "player_id": "p1"},
                                                                   {"kind": "human", "player_id": "p2"}]},
                                  {"X-API-Key": API_KEY})
    assert status == 201, body
    return body


def test_many_requests_on_fresh_connections_leave_no_descriptors_behind(served: Served,
                                                                        game: dict[str, Any]) -> None:
    gid = game["game_id"]
    token = game["seats"][0]["token"]
    paths = [f"/v1/games/{gid}", f"/v1/games/{gid}/events", f"/v1/games/{gid}/legal-actions", "/readyz",
             "/v1/games?limit=5"]
    headers = {"Authorization": f"Bearer {token}", "X-API-Key": API_KEY}  # a list needs the tenant's key
    for n in range(20):  # warm-up: the store's idle connections, the WAL files, imports
        served.request("GET", paths[n % len(paths)], headers=headers)
    before = served.open_descriptors()
    for n in range(300):
        status, body = served.request("GET", paths[n % len(paths)], headers=headers)
        assert status == 200, (n, body)
    # A leak of one connection per request thread was +600 here; the pool keeps at most a few idle. The last
    # requests' threads may still be closing their socket and connection when the client has its answer (seen
    # under load: +5 at once): a leak stays, those go.
    wait_until(lambda: served.open_descriptors() - before <= 4, 10, "the request threads' descriptors closed",
               lambda: f"before {before}, now {served.open_descriptors()}")


def test_stream_sends_headers_and_a_comment_at_once_then_timeout_not_end(served: Served,
                                                                         game: dict[str, Any]) -> None:
    gid = game["game_id"]
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        started = time.monotonic()
        # version=1 is the game's current version: nothing happens until the 2 s timeout
        sock.sendall(f"GET /v1/games/{gid}/stream?version=1&timeout=2 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        sock.settimeout(1.0)  # far below the first wait (2 s here, up to 15 s in general)
        head = b""
        while b": connected\n" not in head:
            chunk = sock.recv(4096)
            assert chunk, head
            head += chunk
        assert time.monotonic() - started < 1.5
        assert head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head
        sock.settimeout(10)
        rest = b""
        while chunk := sock.recv(4096):
            rest += chunk
    assert b"event: timeout" in rest and b'"version":1' in rest and b"event: game-over" not in rest

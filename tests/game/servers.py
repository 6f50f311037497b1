"""Real game-service processes for the push tests: gunicorn started with the production configuration
(``infra/gunicorn.conf.py``: gevent workers), and an HTTP client that answers like Flask's test client, so that
API tests written against the test client can run unchanged against such a process."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from serving import free_port
from verbs import Verbs

from torres_game.store import EventStore, PostgresEventStore, SqliteEventStore

from .conftest import ADMIN_KEY, API_KEY, MIGRATIONS

ROOT = Path(__file__).resolve().parents[2]
GUNICORN_CONF = ROOT / "infra" / "gunicorn.conf.py"



def side_store(request: pytest.FixtureRequest, folder: Path) -> tuple[str, EventStore]:
    """For a fixture parametrized over "sqlite" and "postgres": the database URL a served process is to use (a
    file in ``folder``, or the session's PostgreSQL database) and a small store of the test's own on it, to look
    at what the process wrote. The process migrates; the caller closes the store."""
    if request.param == "postgres":
        url = request.getfixturevalue("pg_url")
        return url, PostgresEventStore(url, min_size=1, max_size=2, migrations_dir=None)
    return f"sqlite:///{folder / 'games.sqlite3'}", SqliteEventStore(folder / "games.sqlite3")


class HttpResponse:
    """The parts of werkzeug's test response the API tests read."""

    def __init__(self, status: int, headers: http.client.HTTPMessage, data: bytes) -> None:
        self.status_code = status
        self.headers = headers
        self.data = data

    @property
    def mimetype(self) -> str:
        return (self.headers.get("Content-Type") or "").split(";")[0].strip()

    def get_data(self, as_text: bool = False) -> Any:
        return self.data.decode() if as_text else self.data

    def get_json(self) -> Any:
        return json.loads(self.data) if self.data else None

    @property
    def json(self) -> Any:
        return self.get_json()


class HttpClient(Verbs[HttpResponse]):
    """``client.get/post/put/patch/delete(path, json=, data=, headers=, query_string=, content_type=)`` over HTTP."""

    def __init__(self, port: int) -> None:
        self.port = port

    def open(self, path: str, method: str = "GET", *, json: Any = None, data: Any = None,
             headers: dict[str, str] | None = None, query_string: dict[str, Any] | None = None,
             content_type: str | None = None) -> HttpResponse:
        hdrs = dict(headers or {})
        body: bytes | None = None
        if json is not None:
            body = _json_bytes(json)
            hdrs.setdefault("Content-Type", "application/json")
        elif data is not None:
            body = data.encode() if isinstance(data, str) else data
        if content_type is not None:
            hdrs["Content-Type"] = content_type
        if query_string:
            path += ("&" if "?" in path else "?") + urlencode(query_string)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request(method, path, body=body, headers=hdrs)
            response = conn.getresponse()
            return HttpResponse(response.status, response.headers, response.read())
        finally:
            conn.close()


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()


class Server:
    """One gunicorn process tree (master + workers) serving the game service."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process = process
        self.port = port
        self.client = HttpClient(port)

    def terminate(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)


@contextlib.contextmanager
def gunicorn(database_url: str, *, workers: int = 1, extra_env: dict[str, str] | None = None,
             worker_class: str | None = None, stdout: Any = subprocess.DEVNULL) -> Iterator[Server]:
    """Start ``gunicorn -c infra/gunicorn.conf.py 'torres_game.wsgi:app'`` on a free loopback port; stop it after.
    ``stdout``: where its output (the app's JSON log) goes."""
    port = free_port()
    env = {**os.environ, "PORT": str(port), "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": str(workers),
           "DATABASE_URL": database_url, "TORRES_API_KEY": API_KEY, "TORRES_ADMIN_KEY": ADMIN_KEY,
           "TORRES_AI_DRIVER": "none", "LOG_LEVEL": "WARNING", "TORRES_MIGRATIONS_DIR": str(MIGRATIONS),
           "GUNICORN_LOG_LEVEL": "warning", **(extra_env or {})}
    if worker_class:
        env["GUNICORN_WORKER_CLASS"] = worker_class
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), "torres_game.wsgi:app"],
        env=env, cwd=ROOT, stdout=stdout, start_new_session=True,
    )
    server = Server(process, port)
    try:
        wait_until_ready(process, lambda: server.client.get("/readyz").status_code == 200, "gunicorn")
        yield server
    finally:
        server.terminate()
        reap(process, 30)


def wait_until_ready(process: subprocess.Popen[bytes], ready: Callable[[], bool], what: str,
                     timeout: float = 60, errors: tuple[type[Exception], ...] = (OSError,)) -> None:
    """Poll ``ready`` (``errors``, a refused connection, count as not yet) until it holds; an exit of the process
    or ``timeout`` is an error."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        with contextlib.suppress(*errors):
            if ready():
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not become ready")
        time.sleep(0.1)


def reap(process: subprocess.Popen[bytes], grace: float) -> None:
    """Wait ``grace`` seconds for a process asked to stop, then SIGKILL its whole group."""
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)

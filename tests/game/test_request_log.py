"""The game service's log as ``make run`` shows it (``python -m torres_game serve`` at the default level): one line
per request, and none for the routine polling (the matchmaker asks ``/v1/notifications`` every second, probes ask
``/healthz``) unless the level is DEBUG. Observed from outside, in the process's own output."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import API_KEY, MIGRATIONS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(port: int, method: str, path: str, body: object = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body),
                     headers={"Content-Type": "application/json", "X-API-Key": API_KEY})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _served_log(tmp_path: Path, level: str | None) -> list[str]:
    """Start the service, make the requests below, stop it; return the lines it wrote after starting."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("TORRES_LOG_LEVEL", "LOG_LEVEL")}
    env |= {"DATABASE_URL": f"sqlite:///{tmp_path / 'torres.sqlite3'}", "TORRES_API_KEY": API_KEY,
            "TORRES_ADMIN_KEY": "log-admin", "TORRES_AI_DRIVER": "none", "TORRES_MIGRATIONS_DIR": str(MIGRATIONS)}
    if level:
        env["LOG_LEVEL"] = level
    out = tmp_path / "serve.log"
    with out.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-m", "torres_game", "serve", "--port", str(port)], env=env,
                                   stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if _request(port, "GET", "/readyz") == 200:
                    break
            except OSError:
                pass
            assert process.poll() is None, out.read_text()
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.1)
        started = len(out.read_text().splitlines())
        for _ in range(3):
            assert _request(port, "GET", "/v1/notifications?limit=1") == 200
            assert _request(port, "GET", "/healthz") == 200
        seats = [{"kind": "human", "player_id": "ada"}, {"kind": "human", "player_id": "bob"}]
        assert _request(port, "POST", "/v1/games", {"seats": seats}) == 201
        assert _request(port, "GET", "/v1/notifications?limit=nonsense") == 400
    finally:
        process.terminate()
        process.wait(timeout=20)
    return out.read_text().splitlines()[started:]


def test_each_request_is_logged_once_and_routine_polling_is_quiet(tmp_path: Path) -> None:
    lines = _served_log(tmp_path, None)
    games = [line for line in lines if "/v1/games" in line]
    assert len(games) == 1 and json.loads(games[0])["status"] == 201, lines  # no second line from the server
    refused = [line for line in lines if "/v1/notifications" in line]
    assert len(refused) == 1 and json.loads(refused[0])["status"] == 400, lines  # a refused poll is news
    assert not [line for line in lines if "/healthz" in line or "/readyz" in line], lines


@pytest.mark.parametrize("level", ["DEBUG"])
def test_routine_polling_shows_at_debug(tmp_path: Path, level: str) -> None:
    lines = _served_log(tmp_path, level)
    polls = [json.loads(line) for line in lines if '"/v1/notifications"' in line]
    assert [(p["level"], p["status"]) for p in polls] == [("debug", 200)] * 3 + [("info", 400)], lines
    assert len([line for line in lines if '"/healthz"' in line]) == 3, lines

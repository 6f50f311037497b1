"""`make run` when its ports are taken: another server on the game or matchmaking port -- a second
`make run`, say -- must stop the launcher before it starts anything, with one line naming the option that moves
the port; and the readiness check must never take another server's answers for its own children's."""

from __future__ import annotations

import importlib.util
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import ClassVar

import pytest
from serving import free_port, served

from stack.launcher import ROOT, clean_env, launcher_command


class OtherTorres(BaseHTTPRequestHandler):
    """Answers like another running game service or matchmaker: healthy, but it knows none of our keys."""

    requests: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.requests.append(self.path)
        status = 200 if self.path.startswith(("/healthz", "/readyz")) else 401
        body = b'{"status": "ok"}' if status == 200 else b'{"code": "unauthorized"}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def other_server() -> Iterator[tuple[int, list[str]]]:
    """A real HTTP server listening on a loopback port; yields its port and the paths it was asked for."""
    handler = type("Handler", (OtherTorres,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with served(server):
        yield server.server_address[1], handler.requests


def bindable(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def run_launcher(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, env=clean_env(**env), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("taken", ["game", "matchmaking"])
def test_make_run_refuses_a_taken_port_before_starting_anything(
        taken: str, other_server: tuple[int, list[str]], tmp_path: Path) -> None:
    port, asked = other_server
    free = free_port()
    game_port, mm_port = (port, free) if taken == "game" else (free, port)
    data = tmp_path / "data"
    run = run_launcher(launcher_command(game_port, mm_port, data))
    assert run.returncode == 2, run.stdout + run.stderr
    message = run.stderr.strip()
    assert len(message.splitlines()) == 1, message
    option, variable = ("--game-port", "GAME_PORT") if taken == "game" else ("--matchmaking-port", "MATCHMAKING_PORT")
    assert f"port {port}" in message and "already in use" in message, message
    assert option in message and variable in message, message
    assert str(free) not in message, message
    # nothing started: no banner, no data or log directory, the free port still free, the other server not asked
    assert "Torres is running" not in run.stdout and run.stdout == "", run.stdout
    assert not data.exists()
    assert bindable(free)
    assert asked == []


def test_make_run_names_both_ports_when_both_are_taken_through_the_environment(
        other_server: tuple[int, list[str]], tmp_path: Path) -> None:
    port, _ = other_server
    with socket.socket() as second:  # a bare listening socket, no HTTP at all
        second.bind(("127.0.0.1", 0))
        second.listen()
        mm_port = second.getsockname()[1]
        data = tmp_path / "data"
        command = [sys.executable, str(ROOT / "infra" / "local_stack.py"), "--no-play", "--data-dir", str(data)]
        run = run_launcher(command, GAME_PORT=str(port), MATCHMAKING_PORT=str(mm_port))
    assert run.returncode == 2, run.stdout + run.stderr
    message = run.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert f"port {port} (game service; --game-port / GAME_PORT) is already in use" in message, message
    assert f"port {mm_port} (matchmaker; --matchmaking-port / MATCHMAKING_PORT) is already in use" in message, message
    assert not data.exists()


def test_make_run_refuses_one_port_for_both_services(tmp_path: Path) -> None:
    port = free_port()
    run = run_launcher(launcher_command(port, port, tmp_path / "data"))
    assert run.returncode == 2 and f"cannot share port {port}" in run.stderr, run.stderr
    assert not (tmp_path / "data").exists()


# -- the readiness check, given a child that is not the server answering on its port ---------------------------

@pytest.fixture(scope="module")
def launcher() -> ModuleType:
    spec = importlib.util.spec_from_file_location("local_stack", ROOT / "infra" / "local_stack.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def idle_child() -> Iterator[subprocess.Popen[bytes]]:
    """A child that lives but never listens: a service still starting (or about to fail to bind)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child
    child.kill()
    child.wait()


@pytest.mark.parametrize("key", ["our-generated-key", None], ids=["game-key-refused", "socket-not-the-childs"])
def test_readiness_is_not_fooled_by_another_server_on_the_port(
        launcher: ModuleType, other_server: tuple[int, list[str]], idle_child: subprocess.Popen[bytes],
        tmp_path: Path, key: str | None) -> None:
    port, asked = other_server
    if key is None and launcher.holds_port(idle_child.pid, port) is None:
        pytest.skip("no /proc here: only the key check can tell the servers apart")
    log = tmp_path / "game.log"
    with pytest.raises(SystemExit) as failed:
        launcher.wait_ready("game service", f"http://127.0.0.1:{port}", port, idle_child, log, key=key, seconds=2)
    assert f"another server answers at http://127.0.0.1:{port}" in str(failed.value)
    assert "/healthz" in asked


def test_readiness_reports_why_the_child_did_not_start(
        launcher: ModuleType, other_server: tuple[int, list[str]], tmp_path: Path) -> None:
    port, _ = other_server
    log = tmp_path / "matchmaking.log"
    with log.open("wb") as out:
        child = subprocess.Popen([sys.executable, "-c", "raise OSError(98, 'Address already in use')"],
                                 stdout=out, stderr=subprocess.STDOUT)
    child.wait()
    with pytest.raises(SystemExit) as failed:
        launcher.wait_ready("matchmaker", f"http://127.0.0.1:{port}", port, child, log, seconds=5)
    assert "the matchmaker did not start (exit 1): OSError: [Errno 98] Address already in use" in str(failed.value)


def test_make_run_suggests_ports_that_are_free_now(other_server: tuple[int, list[str]], tmp_path: Path) -> None:
    """The ports the refusal suggests must be ones a server could listen on: here the ports just above the taken
    ones, and 8001 / 8101 (the pair a fixed suggestion would name), are busy too."""
    port, _ = other_server
    mm_port = free_port()
    held: list[socket.socket] = []
    for busy in (port + 1, port + 2, mm_port + 1, 8001, 8101):
        sock = socket.socket()
        try:
            sock.bind(("127.0.0.1", busy))
            sock.listen()
            held.append(sock)
        except OSError:  # busy already: as good for this test
            sock.close()
    try:
        run = run_launcher(launcher_command(port, mm_port, tmp_path / "data"))
        assert run.returncode == 2, run.stdout + run.stderr
        message = run.stderr.strip()
        suggested = re.search(r'--game-port (\d+) --matchmaking-port (\d+)', message)
        by_env = re.search(r"GAME_PORT=(\d+) MATCHMAKING_PORT=(\d+) make run", message)
        assert suggested and by_env and suggested.groups() == by_env.groups(), message
        game, mm = (int(p) for p in suggested.groups())
        assert game != mm and port not in (game, mm), message
        assert bindable(game) and bindable(mm), message
    finally:
        for sock in held:
            sock.close()

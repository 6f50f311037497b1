"""Fixtures of the SDK tests: the generator script (sdk/generate.py), Node.js with the TypeScript SDK's tools
(sdk/typescript/node_modules, installed by `make test` through `make sdk-tools`), and a real game service."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from game.conftest import API_KEY
from game.servers import gunicorn, reap, wait_until_ready
from serving import free_port

ROOT = Path(__file__).resolve().parents[2]
TYPESCRIPT = ROOT / "sdk" / "typescript"


@pytest.fixture(scope="session")
def generator() -> ModuleType:
    """sdk/generate.py as a module (it is a script, not an installed package)."""
    sys.path.insert(0, str(ROOT / "sdk"))
    try:
        import generate
    finally:
        sys.path.remove(str(ROOT / "sdk"))
    return generate


@pytest.fixture(scope="session")
def node() -> str:
    """The node binary, once the TypeScript SDK's packages are installed; skips (the suite's "not reachable"
    wording, a failure under TORRES_REQUIRE_SERVICES=1) when either is missing."""
    found = shutil.which("node")
    if not found:
        pytest.skip("Node.js not reachable: no `node` on PATH (the TypeScript SDK's generator and test need it)")
    if not (TYPESCRIPT / "node_modules" / ".installed").exists():
        pytest.skip(f"Node.js packages not reachable: {TYPESCRIPT / 'node_modules'} is not installed")
    return found


@pytest.fixture
def game_server(tmp_path: Path) -> Iterator[str]:
    """The game service as production runs it (gunicorn, gevent workers), on SQLite in ``tmp_path`` and a free
    loopback port, with in-process AI seats; its base URL."""
    with gunicorn(f"sqlite:///{tmp_path / 'games.sqlite3'}", extra_env={"TORRES_AI_DRIVER": "thread"}) as server:
        yield f"http://127.0.0.1:{server.port}"


#: The matchmaker's portal key and the secret its tenant signs player tokens with (HS256, at least 32 bytes).
MATCHMAKING_KEY = "test-matchmaking-portal-key"
PLAYER_TOKEN_SECRET = "sdk-test-player-token-secret-of-32-bytes-or-more"


@pytest.fixture
def matchmaker(game_server: str, tmp_path: Path) -> Iterator[str]:
    """The matchmaker (``python -m torres_matchmaking serve``: embedded store, matcher and ratings consumer in
    its threads) on a free loopback port, creating its games in ``game_server``; its base URL. Its output goes to
    ``tmp_path/matchmaker.log``."""
    port = free_port()
    env = {**os.environ, "GAME_SERVICE_URL": game_server, "GAME_SERVICE_API_KEY": API_KEY,
           "TORRES_API_KEY": MATCHMAKING_KEY, "TORRES_PLAYER_TOKEN_SECRET": PLAYER_TOKEN_SECRET,
           "LOG_LEVEL": "WARNING", "MM_RATINGS_POLL_SECONDS": "0.2"}
    for name in ("REDIS_URL", "TORRES_TENANTS_FILE", "MM_WEBHOOK_SECRET"):
        env.pop(name, None)
    log = (tmp_path / "matchmaker.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "torres_matchmaking", "serve", "--port", str(port)], env=env,
                               cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(process, lambda: httpx.get(f"{base}/readyz", timeout=2).status_code == 200,
                         f"the matchmaker (see {log.name})", errors=(httpx.HTTPError,))
        yield base
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        reap(process, 20)
        log.close()

"""Fixtures of the SDK tests: the generator script (sdk/generate.py), Node.js with the TypeScript SDK's tools
(sdk/typescript/node_modules, installed by `make test` through `make sdk-tools`), and a real game service."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from game.servers import gunicorn

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

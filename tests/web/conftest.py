"""Browser tests of the web client: the whole `make run` stack (infra/local_stack.py) on free loopback ports,
driven through Debian's Chromium by Playwright.

Chromium comes from the system (`apt-get install -y chromium`; `.ci/run` installs it), not from
`playwright install`. Without it these tests skip saying so, and under TORRES_REQUIRE_SERVICES=1 (CI) such a
skip is a failure (tests/conftest.py): CI never passes without having run them.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("TORRES_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
#: The only console errors a test may expect: the browser's own line for a 4xx the page then shows in words.
REFUSAL = re.compile(r"Failed to load resource: the server responded with a status of 4\d\d")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which(CHROMIUM) or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if path is None:
        pytest.skip(f"Chromium not reachable at {CHROMIUM}: the browser tests need `apt-get install -y chromium`")
    return path


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[dict[str, str]]:
    """`make run` itself (embedded SQLite, in-process AI and matchmaking store), on free ports."""
    game_port, mm_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "TORRES_MATCHMAKING_URL",
                        "TORRES_CORS_ORIGINS")}
    env.update(TORRES_API_KEY="web-test-service-key", TORRES_ADMIN_KEY="web-test-admin-key", TORRES_AI_DELAY="0")
    data = tmp_path_factory.mktemp("web-stack")
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "infra" / "local_stack.py"), "--no-play", "--game-port", str(game_port),
         "--matchmaking-port", str(mm_port), "--data-dir", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    deadline = time.monotonic() + 60
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "play in another terminal" in line:
            break
    banner = "".join(lines)
    play_url = re.search(r"web client\s+(\S+)", banner)
    try:
        assert play_url, f"make run did not print the web client's address:\n{banner}"
        yield {"game": f"http://127.0.0.1:{game_port}", "matchmaking": f"http://127.0.0.1:{mm_port}",
               "play": play_url.group(1), "key": env["TORRES_API_KEY"], "admin": env["TORRES_ADMIN_KEY"]}
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - the lock file installs it
        pytest.skip(f"Playwright not reachable: {exc}")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Console:
    """Every console error and uncaught page error of the pages it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Any) -> Any:
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        return page

    def unexpected(self, allow_refusals: int = 0) -> list[str]:
        refusals = [e for e in self.errors if REFUSAL.search(e)]
        others = [e for e in self.errors if not REFUSAL.search(e)]
        return others + refusals[allow_refusals:]


@pytest.fixture
def console() -> Console:
    return Console()


@pytest.fixture
def new_page(browser: Any, console: Console) -> Iterator[Any]:
    """``new_page()``: a page in a fresh browser context (its own storage: another person), console watched."""
    contexts: list[Any] = []

    def make() -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        context.set_default_timeout(15_000)
        contexts.append(context)
        return console.watch(context.new_page())

    yield make
    for context in contexts:
        context.close()

"""Browser tests of the web client: the whole `make run` stack (infra/local_stack.py) on free loopback ports,
driven through Chromium by Playwright.

Chromium comes from the system, not from `playwright install`: Debian's `chromium-headless-shell` (`apt-get install
-y chromium-headless-shell`; `.ci/run` installs it), the old headless shell that Playwright itself runs for headless
tests: the same Blink and V8 as the browser, without its user interface, for less CPU (docs/performance.md, "Test
suite"). Without it these tests skip saying so, and under TORRES_REQUIRE_SERVICES=1 (CI) such a skip is a failure
(tests/conftest.py): CI never passes without having run them.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import served
from stack.launcher import local_stack

from torres_audit.note import Signer

CHROMIUM = os.environ.get("TORRES_CHROMIUM", "/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
#: The only console errors a test may expect: the browser's own line for a 4xx the page then shows in words.
REFUSAL = re.compile(r"Failed to load resource: the server responded with a status of 4\d\d")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which(CHROMIUM) or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if path is None:
        pytest.skip(f"Chromium not reachable at {CHROMIUM}: "
                    "the browser tests need `apt-get install -y chromium-headless-shell`")
    return path


#: A portal's page that embeds the client: the iframe's address comes in its own fragment
#: (`host.html#<url>`), and it keeps every message the client posts, with the sender's origin.
HOST_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>A portal</title>
<link rel="icon" href="data:,"></head>
<body style="margin:0;font-family:sans-serif;background:#f3f0ff">
<p style="margin:.4rem .8rem">example-portal.test: your game</p>
<iframe id="game" title="Torres" style="width:100%;height:1100px;border:0"></iframe>
<script>
  window.messages = [];
  const frame = document.getElementById('game');
  window.addEventListener('message', (e) => {
    if (e.source === frame.contentWindow) window.messages.push({ origin: e.origin, data: e.data });
  });
  frame.src = decodeURIComponent(location.hash.slice(1));
</script></body></html>"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def host_server(folder: Path) -> Iterator[str]:
    """A static web server on a free loopback port (another origin than the services'): its origin."""
    (folder / "host.html").write_text(HOST_PAGE)
    with served(http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                functools.partial(_Quiet, directory=str(folder)))) as url:
        yield url


@pytest.fixture(scope="session")
def portal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The origin of a portal's pages, listed in the stack's TORRES_FRAME_ANCESTORS."""
    with host_server(tmp_path_factory.mktemp("portal")) as origin:
        yield origin


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory, chromium_path: str, portal: str) -> Iterator[dict[str, str]]:
    """`make run` itself (embedded SQLite, in-process AI and matchmaking store), on free ports; the portal's
    origin may frame its `/play/`."""
    keys = {"TORRES_API_KEY": "web-test-service-key", "TORRES_ADMIN_KEY": "web-test-admin-key",
            "TORRES_FRAME_ANCESTORS": portal,
            # A log key the tests know, so that they can sign what an operator holding it could (a forked tree).
            "TORRES_LOG_SIGNING_KEY": Signer.generate("web-test.invalid/log").skey()}
    with local_stack(tmp_path_factory.mktemp("web-stack"), TORRES_AI_DELAY="0", **keys) as running:
        play_url = re.search(r"web client\s+(\S+)", running["banner"])
        assert play_url, f"make run did not print the web client's address:\n{running['banner']}"
        yield {**running, "play": play_url.group(1), "admin": keys["TORRES_ADMIN_KEY"],
               "log_skey": keys["TORRES_LOG_SIGNING_KEY"]}


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
        # 30 s, not 15: in one of three fresh-clone runs of the whole suite (2026-11-27 05:53) two waits of two tests
        # (a keypress's new version, a replay's jump) passed 15 s within the same minute, and both tests pass alone
        # in 2-3 s: the machine stalled, not the page. A page that never answers still fails.
        context.set_default_timeout(30_000)
        contexts.append(context)
        return console.watch(context.new_page())

    yield make
    for context in contexts:
        context.close()

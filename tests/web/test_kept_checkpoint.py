"""Every browser a monitor: the replay page keeps the latest checkpoint it verified (per service, in the browser's
storage) and checks each later one against it. A browser that visited before a rollback or a fork shows the
failure as what it is, an inconsistent history signed by the service, with both checkpoints to download; a
fresh browser (no kept checkpoint) has nothing to compare and says so. Chromium through Playwright, against the
`make run` stack (whose log key the test knows, as an operator would)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx
import pytest

from torres_audit.note import Checkpoint, Signer, parse_note

from .axe_scan import serious_violations
from .conftest import Console
from .test_browser_audit import finished_game

pytestmark = pytest.mark.timeout(300)


def visit(page: Any, stack: dict[str, str], gid: str) -> str:
    """A new visit of the replay page (a new document: the browser's storage is all that stays)."""
    page.goto("about:blank")
    page.goto(stack["play"].split("#")[0] + f"#game={gid}&replay=1")
    page.wait_for_selector("#log-history")
    return str(page.get_attribute("#log-history", "data-state"))


def latest(stack: dict[str, str]) -> str:
    return httpx.get(f"{stack['game']}/v1/audit/checkpoint").text


def serve_checkpoint(page: Any, text: str) -> None:
    """The service shows this browser another checkpoint than before (the operator's rollback or fork)."""
    page.route("**/v1/audit/checkpoint", lambda route: route.fulfill(status=200, content_type="text/plain",
                                                                     body=text))


def downloaded(page: Any, selector: str, folder: Path) -> str:
    with page.expect_download() as info:
        page.click(selector)
    path = folder / info.value.suggested_filename
    info.value.save_as(path)
    return path.read_text()


def test_a_browser_keeps_the_checkpoint_and_checks_the_next_one_extends_it(stack: dict[str, str], new_page: Any,
                                                                          console: Console) -> None:
    gid, _ = finished_game(stack)
    page = new_page()
    assert visit(page, stack, gid) == "first"
    assert "this browser now keeps the log's checkpoint" in page.inner_text("#log-history")
    kept_size = int(latest(stack).split("\n")[1])
    finished_game(stack)  # the log grows
    assert visit(page, stack, gid) == "consistent"
    text = page.inner_text("#log-history")
    assert f"extends the one this browser kept on an earlier visit (size {kept_size})" in text
    assert "consistency proof checked" in text
    assert console.unexpected() == []


def test_a_browser_that_saw_the_log_before_a_rollback_shows_the_inconsistent_history(
        stack: dict[str, str], new_page: Any, console: Console, tmp_path: Path) -> None:
    gid, _ = finished_game(stack)
    finished_game(stack)
    page = new_page()
    assert visit(page, stack, gid) == "first"
    kept = latest(stack)
    size = int(kept.split("\n")[1])
    older = httpx.get(f"{stack['game']}/v1/audit/checkpoint", params={"tree_size": size - 1}).text
    serve_checkpoint(page, older)  # a genuine, older checkpoint: the log rolled back to it
    assert visit(page, stack, gid) == "inconsistent"
    assert page.get_attribute("#log-history", "role") == "alert"
    assert page.inner_text("#log-history-title") == "✘ Inconsistent history signed by the service"
    rolled_back = f"the log was rolled back: this browser kept its checkpoint of size {size}"
    assert rolled_back in page.inner_text("#log-history")
    assert downloaded(page, "#log-history-kept", tmp_path) == kept
    assert downloaded(page, "#log-history-latest", tmp_path) == older
    # The kept checkpoint is the evidence: it is not replaced by the rolled-back one.
    assert visit(page, stack, gid) == "inconsistent"
    assert serious_violations(page) == []
    # Keyboard: the two downloads are reachable with Tab.
    page.focus("#log-history-kept")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "log-history-latest"
    page.unroute("**/v1/audit/checkpoint")
    # A fresh browser (another person) never saw the honest log: it has nothing to compare with.
    other = new_page()
    serve_checkpoint(other, older)
    assert visit(other, stack, gid) == "first"
    assert console.unexpected() == []


def test_a_browser_that_saw_the_log_before_a_fork_shows_the_inconsistent_history(
        stack: dict[str, str], new_page: Any, console: Console, tmp_path: Path) -> None:
    gid, _ = finished_game(stack)
    page = new_page()
    assert visit(page, stack, gid) == "first"
    kept = latest(stack)
    cp = Checkpoint.parse(parse_note(kept).text)
    log = Signer.from_skey(stack["log_skey"])
    # The operator with the real key signs another tree of the same size (one game rewritten), then a larger tree
    # that does not extend the kept one.
    fork = Checkpoint(cp.origin, cp.size, bytes(reversed(cp.root))).sign(log)
    serve_checkpoint(page, fork)
    assert visit(page, stack, gid) == "inconsistent"
    text = page.inner_text("#log-history")
    assert f"the log forked: two different roots for tree size {cp.size}" in text
    assert base64.b64encode(cp.root).decode() in text
    assert downloaded(page, "#log-history-latest", tmp_path) == fork
    page.unroute("**/v1/audit/checkpoint")

    grown = Checkpoint(cp.origin, cp.size + 1, b"\x11" * 32).sign(log)
    page.route("**/v1/audit/checkpoint", lambda route: route.fulfill(status=200, content_type="text/plain",
                                                                     body=grown))
    page.route("**/v1/audit/proof/consistency*", lambda route: route.fulfill(
        status=200, content_type="application/json",
        body=f'{{"first": {cp.size}, "second": {cp.size + 1}, "proof": ["{base64.b64encode(bytes(32)).decode()}"]}}'))
    assert visit(page, stack, gid) == "inconsistent"
    assert f"does not extend the one this browser kept (size {cp.size}" in page.inner_text("#log-history")
    assert console.unexpected() == []

"""How the browser tests act on the game page as a person would: wait until it is settled, click, wait for what the
click caused. One copy for the client's, the embedded client's and the example portal's tests (``page`` may be a
page or an iframe's frame)."""

from __future__ import annotations

from typing import Any


def settled(page: Any) -> None:
    """The page shows a version of the game and sends nothing."""
    page.wait_for_function("() => document.querySelector('main').dataset.busy === '0'")


def click_and_wait(page: Any, locator: Any) -> None:
    """Click on a settled page, as a person would (a click while the page redraws a refresh can land on a control
    being replaced); if that submitted an action, wait until the page shows a newer version (or a refusal)."""
    settled(page)
    before = page.evaluate("() => ({...document.querySelector('main').dataset})")
    locator.click()
    page.wait_for_function(
        """b => { const m = document.querySelector('main');
                  return m.dataset.busy === '0' && (m.dataset.version !== b.version || m.dataset.refusals !== b.refusals
                    || document.querySelector('.square.selected, .chooser, button.card.selected')); }""",
        arg=before)


def set_up_by_clicks(page: Any) -> None:
    """Place the setup's figures on the first target each time until the page's seat has its first turn."""
    while page.evaluate("() => document.querySelector('main').dataset.stage") == "setup":
        page.wait_for_function("() => ['mine', 'over'].includes(document.querySelector('main').dataset.turn)"
                               " && document.querySelector('main').dataset.busy === '0'")
        if page.evaluate("() => document.querySelector('main').dataset.stage") == "setup":
            click_and_wait(page, page.locator("svg.board g.square.target").first)
    page.wait_for_function("() => { const m = document.querySelector('main'); return m.dataset.turn === 'mine'"
                           " && m.dataset.stage === 'turn' && m.dataset.busy === '0'; }")

"""The lobby's defects, each tried in Chromium as a person would meet it (each test fails on the client
before the fix): "Leave the queue" shown without a ticket (and throwing when clicked), a game opened by its link
listed twice in "My games", an AI-fill wait the matchmaker refuses, an invite link that overflows its card and
cannot be copied, and the creator's seat shown to the invited player as "(me)"."""

from __future__ import annotations

import re
from typing import Any

from .conftest import Console


def lobby(page: Any, stack: dict[str, str]) -> None:
    page.goto(stack["play"])  # the address `make run` prints, with the service key in the fragment
    page.wait_for_selector("#find-match")


def test_leave_the_queue_is_offered_only_while_queued(stack: dict[str, str], new_page: Any, console: Console) -> None:
    page = new_page()
    lobby(page, stack)
    assert not page.locator("#cancel-ticket").is_visible()  # no ticket: nothing to leave
    page.fill("#player-id", "lobby-queuer")
    for count in ("2", "3"):
        page.locator(f"#matchmaking input[name=count][value='{count}']").set_checked(False)
    page.locator("#matchmaking input[name=count][value='4']").set_checked(True)  # a 4-player table: nobody else
    page.fill("#max-wait", "300")  # the AI would fill the table only after five minutes
    page.click("#find-match")
    page.wait_for_function("() => (document.getElementById('ticket-status')?.textContent || '').startsWith('Ticket')")
    assert page.locator("#cancel-ticket").is_visible()
    page.click("#cancel-ticket")
    page.wait_for_function("() => document.getElementById('ticket-status').textContent === 'Left the queue.'")
    assert not page.locator("#cancel-ticket").is_visible()
    assert console.unexpected() == []


def test_the_ai_fill_wait_offers_no_more_than_the_matchmaker_accepts(stack: dict[str, str], new_page: Any,
                                                                     console: Console) -> None:
    """The matchmaker refuses a wait longer than the ticket's lifetime (300 s by default) with a 400; the form
    must not offer one."""
    page = new_page()
    lobby(page, stack)
    assert page.get_attribute("#max-wait", "max") == "300"
    page.fill("#max-wait", "301")
    assert page.evaluate("() => document.getElementById('max-wait').validity.rangeOverflow")
    assert console.unexpected() == []


def test_a_game_opened_by_its_link_is_listed_once(stack: dict[str, str], new_page: Any, console: Console) -> None:
    page = new_page()
    lobby(page, stack)
    page.select_option("select[name=kind1]", "human")  # another person, invited by a link
    page.click("#start-game")
    page.wait_for_selector("#enter-game")
    game_id = re.search(r"game=([0-9a-f-]+)", page.get_attribute("#enter-game", "href") or "")[1]  # type: ignore[index]
    own_link = page.get_attribute("#enter-game", "href")
    page.goto(f"{stack['play'].split('#')[0]}{own_link}")  # the creator follows their own link, as a person would
    page.wait_for_selector("svg.board")
    page.click("text=Lobby")
    page.wait_for_selector("#my-games")
    rows = page.locator("#my-games tbody tr", has=page.locator(f"code:has-text('{game_id[:8]}')"))
    assert rows.count() == 2  # seat 0 (the creator's) and seat 1 (the invited person's link), each once
    assert console.unexpected() == []


def test_an_invite_link_stays_in_its_card_and_can_be_copied(stack: dict[str, str], browser: Any,
                                                            console: Console) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone: the narrowest card
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=stack["play"].split("/play")[0])
    try:
        page = console.watch(context.new_page())
        lobby(page, stack)
        page.select_option("select[name=kind1]", "human")
        page.click("#start-game")
        invite = page.locator("a.invite").first
        invite.wait_for()
        card, link = page.locator("#new-game").bounding_box(), invite.bounding_box()
        assert card is not None and link is not None
        assert link["x"] + link["width"] <= card["x"] + card["width"] + 0.5, (link, card)
        page.click("button.copy")
        page.wait_for_function("() => document.querySelector('button.copy').textContent === 'Copied'")
        assert page.evaluate("() => navigator.clipboard.readText()") == invite.get_attribute("href")
        assert console.unexpected() == []
    finally:
        context.close()


def test_the_invited_player_sees_the_creator_by_name(stack: dict[str, str], new_page: Any, console: Console) -> None:
    """The creator's seat carries the name typed in the lobby (and a player id made of it), not the form's word
    "me", which the invited player used to read as "Seat 0 · blue (me)"."""
    host = new_page()
    lobby(host, stack)
    host.fill("#my-name", "Anna Schmidt")
    host.select_option("select[name=kind1]", "human")
    host.click("#start-game")
    invite = host.locator("a.invite").first
    invite.wait_for()
    guest = new_page()
    guest.goto(invite.get_attribute("href") or "")
    guest.wait_for_selector("ul.seats .seat-head strong")
    heads = guest.locator("ul.seats .seat-head strong").all_inner_texts()
    assert heads[0].startswith("Anna Schmidt · ") and "(Anna-Schmidt)" in heads[0], heads
    assert "(me)" not in " ".join(heads) and "you" in heads[1], heads
    assert console.unexpected() == []

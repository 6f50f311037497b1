"""The matcher with its own internal key against a game service that reads a tenants file: each game
it creates names its players' tenant, so it is in that portal's list and answers 404 to every other portal's key.

Real Redis (DB 14), the real game service over HTTP (a werkzeug server thread on SQLite), the real keys CLI.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from serving import free_port, served
from werkzeug.serving import make_server

from torres_game.app import create_app as create_game_app
from torres_game.config import Config as GameConfig
from torres_matchmaking.config import Config
from torres_matchmaking.game_client import GameServiceClient
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.ratings import RatingBook
from torres_matchmaking.store import Redis
from torres_matchmaking.tickets import TicketService
from torres_service import keys as keys_cli

from .conftest import ADMIN_KEY, MIGRATIONS, REDIS_URL, FakeClock


def _cli(path: Path, *args: str) -> dict[str, Any]:
    return keys_cli.run(keys_cli.parser().parse_args(["--file", str(path), *args]))


@pytest.fixture
def tenants(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "tenants.json"
    keys: dict[str, str] = {}
    for name, shared in (("alpha", False), ("beta", False), ("gamma", True), ("delta", True)):
        _cli(path, "add-tenant", name, *(["--shared-pool"] if shared else []))
        keys[name] = _cli(path, "add-key", name, "--scopes", "games")["key"]
    keys["matcher"] = _cli(path, "add-key", "matcher", "--internal", "--scopes", "games")["key"]
    return path, keys


@pytest.fixture
def game_url(tmp_path: Path, tenants: tuple[Path, dict[str, str]]) -> Iterator[str]:
    config = GameConfig(database_url=f"sqlite:///{tmp_path / 'games.sqlite3'}", admin_key=ADMIN_KEY,
                        tenants_file=str(tenants[0]), ai_driver="none", migrations_dir=MIGRATIONS,
                        log_level="WARNING", json_logs=True)
    app = create_game_app(config)
    try:
        with served(make_server("127.0.0.1", free_port(), app, threaded=True)) as url:
            yield url
    finally:
        app.extensions["torres_game"].close()


def matching(tenants: tuple[Path, dict[str, str]], game_url: str) -> tuple[TicketService, Matcher]:
    """The ticket service and a matcher with its own internal key, on the test Redis and the game service."""
    path, keys = tenants
    config = Config(redis_url=REDIS_URL, game_service_url=game_url, game_service_api_key=keys["matcher"],
                    log_level="WARNING", tick_seconds=0.05, tenants_file=str(path))
    store, clock = Redis.open(config), FakeClock()
    return (TicketService(store, config, RatingBook(store), clock),
            Matcher(store, config, GameServiceClient(game_url, keys["matcher"]), clock=clock))


def test_the_matchers_internal_key_creates_each_game_for_its_players_tenant(
        redis_client: redis.Redis, tenants: tuple[Path, dict[str, str]], game_url: str) -> None:
    keys = tenants[1]
    tickets, matcher = matching(tenants, game_url)

    def queue(tenant: str, player: str, shared: bool = False) -> str:
        return tickets.create(player_id=player, player_counts=[2], edition="rio_grande", master=False,
                              max_wait_seconds=None, tenant=tenant, shared_pool=shared)["ticket_id"]

    own = {queue("alpha", "ann"): "alpha", queue("alpha", "al"): "alpha", queue("beta", "bo"): "beta",
           queue("beta", "bea"): "beta"}
    shared = [queue("gamma", "gil", shared=True), queue("delta", "dee", shared=True)]
    assert matcher.tick().created == 3

    def listed(tenant: str) -> set[str]:
        response = httpx.get(f"{game_url}/v1/games", headers={"X-API-Key": keys[tenant]})
        assert response.status_code == 200, response.text
        return {g["game_id"] for g in response.json()["games"]}

    for ticket_id, tenant in own.items():
        ticket = tickets.get(ticket_id)
        assert ticket["status"] == "matched"
        assert ticket["game_id"] in listed(tenant)  # the portal's own game, in its own list
        others = [t for t in ("alpha", "beta", "gamma", "delta") if t != tenant]
        for other in others:
            response = httpx.get(f"{game_url}/v1/games/{ticket['game_id']}", headers={"X-API-Key": keys[other]})
            assert response.status_code == 404, (other, response.text)

    # A shared-pool game belongs to its first player's tenant; the other portal's player reaches it by seat token.
    gil, dee = tickets.get(shared[0]), tickets.get(shared[1])
    assert gil["game_id"] == dee["game_id"]
    owners = {t for t in ("gamma", "delta") if gil["game_id"] in listed(t)}
    assert len(owners) == 1
    for ticket in (gil, dee):
        view = httpx.get(f"{game_url}/v1/games/{ticket['game_id']}/view",
                         headers={"Authorization": f"Bearer {ticket['seat_token']}"})
        assert view.status_code == 200 and view.json()["seat"] == ticket["seat"]


def test_a_matched_players_name_is_their_seats_display_name(
        redis_client: redis.Redis, tenants: tuple[Path, dict[str, str]], game_url: str) -> None:
    """The name a portal's token gives its player (the ticket's display_name) is the seat's display name in the game
    the matcher creates (the claim writes it into the group's stored seating, which a matcher taking the group over
    sends too); a player without one gets none."""
    keys = tenants[1]
    tickets, matcher = matching(tenants, game_url)
    named = {"ann": "Ann Arbor", "al": None}
    ids = {player: tickets.create(player_id=player, player_counts=[2], edition="rio_grande", master=False,
                                  max_wait_seconds=None, tenant="alpha", display_name=name)["ticket_id"]
           for player, name in named.items()}
    assert matcher.tick().created == 1
    game_id = tickets.get(ids["ann"])["game_id"]
    game = httpx.get(f"{game_url}/v1/games/{game_id}", headers={"X-API-Key": keys["alpha"]}).json()
    shown = {seat["player_id"]: seat.get("display_name") for seat in game["seats"]}
    assert shown == named

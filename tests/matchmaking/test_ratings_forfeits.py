"""Games ended early are rated from their result: who left ranks last; an aborted game is unrated."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import redis
from game_http import play_first_legal

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_matchmaking.consumer import RatingConsumer
from torres_matchmaking.game_client import GameServiceClient
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.ratings import Rating, rate_game
from torres_matchmaking.store import Redis

from .conftest import API_KEY, FakeClock, GameServer, Players


def _matched_game(config: Config, store: Redis, clock: FakeClock, redis_client: redis.Redis,
                  players: tuple[str, ...]) -> tuple[Players, list[dict[str, Any]]]:
    services = Services.build(config)
    services.tickets.clock = clock
    api = Players(create_app(config, services=services).test_client())
    games = GameServiceClient(config.game_service_url, API_KEY)
    ids = {}
    for player in players:
        created = api.post("/v1/tickets", json={"player_counts": [2]}, player=player)
        assert created.status_code == 201
        ids[player] = created.get_json()["ticket_id"]
    assert Matcher(store, config, games, clock=clock).tick().created == 1
    tickets = [api.get(f"/v1/tickets/{ticket_id}", player=p).get_json() for p, ticket_id in ids.items()]
    return api, sorted(tickets, key=lambda t: t["seat"])


def _rating(api: Players, player: str) -> dict[str, Any]:
    return api.get(f"/v1/players/{player}/rating", player=player).get_json()


def test_a_seat_that_resigns_loses_rating_whatever_the_score(
    config: Config, store: Redis, clock: FakeClock, redis_client: redis.Redis, game_server: GameServer,
) -> None:
    api, tickets = _matched_game(config, store, clock, redis_client, ("cat", "dan"))
    game_id = tickets[0]["game_id"]
    with httpx.Client(base_url=game_server.url) as http:
        mover = play_first_legal(http, game_id, [t["seat_token"] for t in tickets], "first")
        auth = {"Authorization": f"Bearer {tickets[mover]['seat_token']}"}
        leaver = tickets[mover]
        response = http.post(f"/v1/games/{game_id}/resign", json={"seat": mover}, headers=auth)
        assert response.status_code == 201 and response.json()["status"] == "over"
    stayer = tickets[1 - mover]
    consumer = RatingConsumer(store, GameServiceClient(config.game_service_url, API_KEY))
    assert consumer.drain() == 1
    assert _rating(api, leaver["player_id"])["mu"] < 25.0 < _rating(api, stayer["player_id"])["mu"]
    assert _rating(api, leaver["player_id"])["games"] == 1
    assert consumer.drain() == 0  # once


def test_a_game_aborted_before_any_move_is_not_rated(
    config: Config, store: Redis, clock: FakeClock, redis_client: redis.Redis, game_server: GameServer,
) -> None:
    api, tickets = _matched_game(config, store, clock, redis_client, ("eve", "fay"))
    with httpx.Client(base_url=game_server.url) as http:
        response = http.post(f"/v1/games/{tickets[0]['game_id']}/abandon", json={"reason": "orphan game"},
                             headers={"X-API-Key": API_KEY})
        assert response.status_code == 201
    assert RatingConsumer(store, GameServiceClient(config.game_service_url, API_KEY)).drain() == 0
    assert _rating(api, "eve")["games"] == 0 and _rating(api, "fay")["mu"] == 25.0


def test_the_result_ranks_decide_over_the_scores() -> None:
    seats = [{"kind": "human", "player_id": "a"}, {"kind": "human", "player_id": "b"}]
    current = {"a": Rating("a"), "b": Rating("b")}
    # a scored more but forfeited: ranked last by the result, a loses rating
    a, b = rate_game(seats, current, scores=[30, 10], winner=1, ranks=[1, 0])
    assert a.mu < 25.0 < b.mu


def test_a_tie_in_the_result_is_rated_as_a_draw() -> None:
    """A game abandoned with equal scores has ``winner: null`` and ``ranks [0, 0]``: equal ratings stay
    equal, and the weaker player gains on the stronger one."""
    seats = [{"kind": "human", "player_id": "a"}, {"kind": "human", "player_id": "b"}]
    a, b = rate_game(seats, {"a": Rating("a"), "b": Rating("b")}, scores=[7, 7], winner=None, ranks=[0, 0])
    assert a.mu == pytest.approx(b.mu) == pytest.approx(25.0)
    weak, strong = rate_game(seats, {"a": Rating("a", mu=20.0), "b": Rating("b", mu=30.0)}, scores=[7, 7],
                             winner=None, ranks=[0, 0])
    assert weak.mu > 20.0 and strong.mu < 30.0

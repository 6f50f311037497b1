"""Ratings from finished games in the game service's notification log: changed once, never twice."""

from __future__ import annotations

import random
from typing import Any

import httpx
import redis

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_matchmaking.consumer import RatingConsumer
from torres_matchmaking.game_client import GameServiceClient
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.ratings import ranks_of
from torres_matchmaking.store import Redis

from .conftest import API_KEY, FakeClock, GameServer, Players


def _play_to_the_end(server: GameServer, tickets: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    """Both humans play random legal actions with their own seat tokens until the game is over."""
    rng = random.Random(seed)
    game_id = tickets[0]["game_id"]
    tokens = {t["seat"]: t["seat_token"] for t in tickets}
    with httpx.Client(base_url=server.url) as http:
        for n in range(2000):
            summary = http.get(f"/v1/games/{game_id}").json()
            if summary["status"] == "over":
                return summary
            seat = summary["to_move"]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = http.get(f"/v1/games/{game_id}/legal-actions", headers=auth).json()
            response = http.post(f"/v1/games/{game_id}/actions", headers=auth, json={
                "seat": seat, "action": rng.choice(legal["actions"]), "expected_version": legal["version"],
                "command_id": f"c{n}"})
            assert response.status_code == 201, response.text
    raise AssertionError("the game did not end")


def _ratings(client: Players, *players: str) -> dict[str, dict[str, Any]]:
    """Each player's rating, as that player reads it with their own token."""
    return {p: client.get(f"/v1/players/{p}/rating", player=p).get_json() for p in players}


def test_ratings_change_once_per_finished_game(config: Config, store: Redis, clock: FakeClock,
                                               redis_client: redis.Redis, game_server: GameServer) -> None:
    services = Services.build(config)
    services.tickets.clock = clock
    api = Players(create_app(config, services=services).test_client())
    games = GameServiceClient(config.game_service_url, API_KEY)
    ids = {p: api.post("/v1/tickets", json={"player_counts": [2]}, player=p).get_json()["ticket_id"]
           for p in ("ann", "ben")}
    assert Matcher(store, config, games, clock=clock).tick().created == 1
    tickets = [api.get(f"/v1/tickets/{ticket_id}", player=p).get_json() for p, ticket_id in ids.items()]
    before = _ratings(api, "ann", "ben")
    assert before["ann"]["games"] == 0 and before["ann"]["mu"] == 25.0

    consumer = RatingConsumer(store, games)
    assert consumer.drain() == 0  # the game is still running: nothing to rate
    summary = _play_to_the_end(game_server, tickets, seed=7)
    assert consumer.drain() == 1
    after = _ratings(api, "ann", "ben")
    winner_seat = summary["winner"]
    winner = summary["seats"][winner_seat]["player_id"]
    loser = ({"ann", "ben"} - {winner}).pop()
    assert after[winner]["mu"] > before[winner]["mu"] and after[loser]["mu"] < before[loser]["mu"]
    assert after[winner]["sigma"] < before[winner]["sigma"] and after[winner]["games"] == 1
    board = api.get("/v1/leaderboard", key=API_KEY).get_json()
    assert [e["player_id"] for e in board["entries"]] == [winner, loser] and board["total"] == 2
    assert api.get("/v1/leaderboard", player="ann").get_json() == board  # a player reads their portal's board

    # a restarted consumer resumes from the stored position: the game is not counted again
    restarted = RatingConsumer(Redis.open(config), GameServiceClient(config.game_service_url, API_KEY))
    assert restarted.position() == consumer.position() > 0
    assert restarted.drain() == 0
    # even a consumer that lost its position (reset to 0) skips the game: its id is remembered
    redis_client.set(store.keys.ratings_position, 0)
    assert RatingConsumer(store, games).drain() == 0
    assert _ratings(api, "ann", "ben") == after


def test_two_consumers_at_once_apply_each_game_once(config: Config, store: Redis) -> None:
    """The position compare-and-set: a consumer that read an old position cannot apply on top."""
    keys = RatingConsumer(store, GameServiceClient(config.game_service_url, API_KEY))._keys(("default", "ann"))
    assert store.scripts.run("apply_rating", keys, 0, 5, "g1", "ann", "26.0", "8.0", "2.0") == [1]
    assert store.scripts.run("apply_rating", keys, 0, 5, "g1", "ann", "27.0", "8.0", "3.0") == [0, "5"]
    assert store.scripts.run("apply_rating", keys, 5, 9, "g1", "ann", "27.0", "8.0", "3.0") == [2]
    assert store.client.hgetall(store.keys.rating("default", "ann")) == {"mu": "26.0", "sigma": "8.0", "games": "1"}


def test_games_not_made_by_the_matchmaker_are_not_rated(config: Config, store: Redis,
                                                        game_server: GameServer) -> None:
    games = GameServiceClient(config.game_service_url, API_KEY)
    created = games.create_game("rio_grande", False, [{"kind": "human", "player_id": "x"},
                                                      {"kind": "human", "player_id": "y"}])
    _play_to_the_end(game_server, [{"game_id": created.game_id, "seat": s["seat"], "seat_token": s["token"]}
                                   for s in created.seats], seed=3)
    assert RatingConsumer(store, games).drain() == 0
    assert store.client.exists(store.keys.rating("default", "x")) == 0


def test_ranks_put_the_rules_winner_first() -> None:
    assert ranks_of([10, 12], winner=1) == [1, 0]
    assert ranks_of([12, 12, 3], winner=1) == [1, 0, 2]  # a tie on points, broken by the rules
    assert ranks_of([5, 9, 9, 1], winner=None) == [1, 0, 0, 2]

"""The matcher on real Redis against the real game service over HTTP, with a hand-moved clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from serving import free_port

from torres_matchmaking.config import Config
from torres_matchmaking.errors import GameServiceError
from torres_matchmaking.game_client import CreatedGame, GameServiceClient
from torres_matchmaking.grouping import Candidate, Window, form_groups
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.ratings import RatingBook, ai_level_for
from torres_matchmaking.store import Redis
from torres_matchmaking.tickets import TicketService

from .conftest import API_KEY, FakeClock, FaultyProxy, GameServer, game_summary, set_rating


def _services(store: Redis, config: Config, clock: FakeClock) -> tuple[TicketService, Matcher]:
    games = GameServiceClient(config.game_service_url, API_KEY)
    return TicketService(store, config, RatingBook(store), clock), Matcher(store, config, games, clock=clock)


def _ticket(tickets: TicketService, player: str, counts: list[int], max_wait: float | None = None,
            **kw: Any) -> str:
    return tickets.create(player_id=player, player_counts=counts, edition=kw.get("edition", "rio_grande"),
                          master=kw.get("master", False), max_wait_seconds=max_wait)["ticket_id"]


def test_window_widens_with_waiting_time(store: Redis, config: Config, clock: FakeClock,
                                         redis_client: redis.Redis, game_server: GameServer) -> None:
    set_rating(redis_client, "low", 20.0)
    set_rating(redis_client, "high", 27.0)  # 7 apart: base window 3, + 0.5 per second waited
    tickets, matcher = _services(store, config, clock)
    a, b = _ticket(tickets, "low", [2]), _ticket(tickets, "high", [2])
    assert matcher.tick().created == 0
    clock.advance(7.9)  # window 6.95 < 7
    assert matcher.tick().created == 0
    assert tickets.get(a)["status"] == "queued"
    clock.advance(0.1)  # window 7.0
    report = matcher.tick()
    assert report.created == 1 and report.games[0][1].spread == pytest.approx(7.0)
    ta, tb = tickets.get(a), tickets.get(b)
    assert ta["status"] == tb["status"] == "matched" and ta["game_id"] == tb["game_id"]
    summary = game_summary(game_server, ta["game_id"])
    assert {s["player_id"] for s in summary["seats"]} == {"low", "high"}
    assert summary["seats"][ta["seat"]]["player_id"] == "low"
    # the seat token is the game service's own: it opens that seat's view
    view = httpx.get(f"{game_server.url}/v1/games/{ta['game_id']}/view",
                     headers={"Authorization": f"Bearer {ta['seat_token']}"}).json()
    assert view["seat"] == ta["seat"]


def test_closest_ratings_are_grouped_first(store: Redis, config: Config, clock: FakeClock,
                                           redis_client: redis.Redis, game_server: GameServer) -> None:
    for player, mu in {"a": 10.0, "b": 11.0, "c": 30.0, "d": 31.5}.items():
        set_rating(redis_client, player, mu)
    tickets, matcher = _services(store, config, clock)
    ids = {p: _ticket(tickets, p, [2]) for p in "abcd"}
    assert matcher.tick().created == 2
    games = {p: tickets.get(t)["game_id"] for p, t in ids.items()}
    assert games["a"] == games["b"] and games["c"] == games["d"] and games["a"] != games["c"]


def test_pure_grouping_widening_and_ai_fill() -> None:
    window = Window(base=2.0, growth=1.0, maximum=10.0)
    old = Candidate("t1", "p1", 20.0, (2,), created_at=0.0, max_wait=None)
    new = Candidate("t2", "p2", 25.0, (2,), created_at=99.0, max_wait=None)
    assert form_groups([old, new], 100.0, window, ai_level_for) == []  # the newcomer's window is 3
    assert len(form_groups([old, new], 103.0, window, ai_level_for)) == 1  # ... now 5: both accept
    assert window.at(1000) == 10.0
    lone = Candidate("t3", "p3", 31.0, (3, 4), created_at=0.0, max_wait=10.0)
    (group,) = form_groups([lone], 10.0, window, ai_level_for)
    assert group.players == 3 and group.ai_levels == ("hard", "hard")
    assert form_groups([lone], 9.9, window, ai_level_for) == []


def test_ai_fill_after_the_wait_limit(store: Redis, config: Config, clock: FakeClock,
                                      redis_client: redis.Redis, game_server: GameServer) -> None:
    set_rating(redis_client, "weak", 15.0)
    set_rating(redis_client, "strong", 35.0)
    tickets, matcher = _services(store, config, clock)
    weak = _ticket(tickets, "weak", [3, 4], max_wait=5)
    strong = _ticket(tickets, "strong", [2], max_wait=8)
    humans_only = _ticket(tickets, "patient", [2], max_wait=None)
    clock.advance(4.9)
    assert matcher.tick().created == 0
    clock.advance(0.1)  # weak has waited 5 s: AI fill; strong (8 s) not yet
    assert matcher.tick().created == 1
    t = tickets.get(weak)
    seats = game_summary(game_server, t["game_id"])["seats"]
    assert len(seats) == 3 and [s["kind"] for s in seats].count("ai") == 2
    assert {s["level"] for s in seats if s["kind"] == "ai"} == {"easy"}  # near the weak player's rating
    assert tickets.get(strong)["status"] == "queued"
    clock.advance(3)
    matcher.tick()
    seats = game_summary(game_server, tickets.get(strong)["game_id"])["seats"]
    assert [s.get("level") for s in seats if s["kind"] == "ai"] == ["hard"]
    clock.advance(200)  # the windows are wide open now, but nobody else waits for a 2-player game
    matcher.tick()
    assert tickets.get(humans_only)["status"] == "queued"  # max_wait None: never AI-filled


def test_game_service_failure_and_recovery(store: Redis, config: Config, clock: FakeClock,
                                           tmp_path: Path) -> None:
    """A failed creation keeps its group: the same group (same Idempotency-Key) is placed once the service
    is back, instead of going round again under a new key that could make a second game."""
    port = free_port()
    down = config.with_(game_service_url=f"http://127.0.0.1:{port}", retry_delay=2.0)
    tickets, matcher = _services(store, down, clock)
    ids = [_ticket(tickets, f"p{i}", [2], max_wait=1) for i in range(4)]
    report = matcher.tick()
    assert report.claimed == 2 and report.failed == 2 and report.created == 0
    pool = ("rio_grande", False)
    groups = {store.client.hget(store.keys.ticket(t), "group") for t in ids}
    for tid in ids:  # still held by their groups; a portal reads "queued"
        t = tickets.get(tid)
        assert t["status"] == "queued" and "game_id" not in t
    assert len(groups) == 2 and store.client.zcard(store.keys.claims(pool)) == 2
    clock.advance(1.0)
    assert matcher.tick().backing_off  # no hammering the service while it is down
    server = GameServer(tmp_path / "late.sqlite3", port=port).start()
    try:
        clock.advance(1.5)
        report = matcher.tick()
        assert report.resumed == 2 and report.created == 2 and report.failed == 0
        games = {tickets.get(t)["game_id"] for t in ids}
        assert len(games) == 2
        placed = [s["player_id"] for g in server.all_games() for s in g["seats"] if s["kind"] == "human"]
        assert sorted(placed) == [f"p{i}" for i in range(4)]  # each exactly once, nobody lost
        assert store.client.zcard(store.keys.claims(pool)) == 0
        assert {store.client.hget(store.keys.ticket(t), "group") for t in ids} == groups  # the same groups
    finally:
        server.stop()


class LosesFirstAnswer(GameServiceClient):
    """The game service commits the first creation, but its answer never arrives (a timeout, say)."""

    lost = 0

    def create_game(self, edition: str, master: bool, seats: list[dict[str, Any]],
                    request_key: str | None = None, tenant: str | None = None) -> CreatedGame:
        created = super().create_game(edition, master, seats, request_key=request_key, tenant=tenant)
        if not self.lost:
            self.lost += 1
            raise GameServiceError("POST /v1/games: ReadTimeout")
        return created


def test_a_lost_creation_answer_leaves_no_orphaned_game(store: Redis, config: Config, clock: FakeClock,
                                                        game_server: GameServer) -> None:
    games = LosesFirstAnswer(config.game_service_url, API_KEY)
    tickets = TicketService(store, config, RatingBook(store), clock)
    matcher = Matcher(store, config, games, clock=clock)
    ids = [_ticket(tickets, f"lost-{i}", [2]) for i in range(2)]
    report = matcher.tick()
    assert games.lost == 1 and report.created == 1 and report.failed == 0
    game_id = tickets.get(ids[0])["game_id"]
    assert tickets.get(ids[1])["game_id"] == game_id
    mine = [g for g in game_server.all_games() if {s.get("player_id") for s in g["seats"]} == {"lost-0", "lost-1"}]
    assert [g["game_id"] for g in mine] == [game_id]  # the retry got the first game back: one game, not two


def _claim(store: Redis, clock: FakeClock, gid: str, *ids: str) -> list[Any]:
    pool = ("rio_grande", False)
    keys = [*store.keys.pool_keys(pool), store.keys.group(pool, gid), *(store.keys.ticket(t) for t in ids)]
    seats = [{"kind": "human", "player_id": store.client.hget(store.keys.ticket(t), "player_id")} for t in ids]
    return store.scripts.run("claim", keys, repr(clock.now), gid, repr(clock.now + 30), json.dumps(seats), 600,
                             *ids)


def test_cancel_cannot_take_a_claimed_ticket(store: Redis, config: Config, clock: FakeClock) -> None:
    """The two scripts exclude each other: a claimed ticket refuses cancel; a cancelled one refuses claim."""
    tickets, _ = _services(store, config, clock)
    a, b, c = (_ticket(tickets, p, [2]) for p in ("a", "b", "c"))
    assert _claim(store, clock, "g1", a, b)[:2] == [1, "default,default"]
    with pytest.raises(Exception, match="being placed"):
        tickets.cancel(a)
    tickets.cancel(c)
    assert _claim(store, clock, "g2", b, c) == [0, b, "claimed"]
    assert _claim(store, clock, "g3", c) == [0, c, "cancelled"]


def test_a_dead_matchers_group_is_placed_by_the_next_one_in_one_game(
        store: Redis, config: Config, clock: FakeClock, game_server: GameServer) -> None:
    """A group claimed by a matcher that died is taken over once it is due: same group, one game."""
    tickets, matcher = _services(store, config.with_(claim_timeout=30), clock)
    a, b = _ticket(tickets, "dead-a", [2]), _ticket(tickets, "dead-b", [2])
    assert _claim(store, clock, "deadbeef", a, b)[0] == 1  # ... and the matcher that claimed it is gone
    clock.advance(29)
    assert matcher.tick().resumed == 0
    clock.advance(2)
    report = matcher.tick()
    assert report.resumed == 1 and report.created == 1
    ta, tb = tickets.get(a), tickets.get(b)
    assert ta["status"] == tb["status"] == "matched" and ta["game_id"] == tb["game_id"]
    # a late confirmation (the dead matcher's, had it lived) of the same game is a no-op
    pool = ("rio_grande", False)
    again = GameServiceClient(config.game_service_url, API_KEY).create_game(
        "rio_grande", False, [{"kind": "human", "player_id": "dead-a"}, {"kind": "human", "player_id": "dead-b"}],
        request_key="mm-group-deadbeef")
    assert again.game_id == ta["game_id"]
    keys = [*store.keys.pool_keys(pool), store.keys.group(pool, "deadbeef"), store.keys.ticket(a),
            store.keys.ticket(b)]
    assert store.scripts.run("confirm", keys, repr(clock.now), 60, "deadbeef", again.game_id, 0, "t", 1, "t") == [2]


def test_a_stalled_group_can_be_cancelled_and_its_game_is_aborted(
        store: Redis, config: Config, clock: FakeClock, game_server: GameServer, proxy: FaultyProxy) -> None:
    """A player in a group stuck longer than claim_timeout may cancel; the group is dissolved, its game
    (created now if not before, so no late creation can make one later) is abandoned, the others re-queue."""
    stalled = config.with_(claim_timeout=30)
    tickets = TicketService(store, stalled, RatingBook(store), clock)
    matcher = Matcher(store, stalled, GameServiceClient(proxy.url, API_KEY), clock=clock)
    a, b = _ticket(tickets, "stuck-a", [2]), _ticket(tickets, "stuck-b", [2])
    assert _claim(store, clock, "cafe", a, b)[0] == 1
    clock.advance(10)
    with pytest.raises(Exception, match="being placed"):
        tickets.cancel(a)
    clock.advance(25)
    assert tickets.cancel(a)["status"] == "cancelled"
    matcher.tick()
    assert tickets.get(b)["status"] == "queued"
    pool = ("rio_grande", False)
    assert store.client.hget(store.keys.group(pool, "cafe"), "state") == "dissolved"
    game = [g for g in game_server.all_games() if {s.get("player_id") for s in g["seats"]} == {"stuck-a", "stuck-b"}]
    assert len(game) == 1 and proxy.creation_keys == ["mm-group-cafe"]
    game_id = game[0]["game_id"]
    assert proxy.abandons == [(game_id, {"reason": "matchmaking group cafe was dissolved by a cancel"})]
    # the game service's abandon ended it, so nothing is left to retry
    assert game_summary(game_server, game_id)["status"] == "over"
    assert store.client.zscore(store.keys.orphans(pool), game_id) is None

"""The matcher on real Redis against the real game service over HTTP, with a hand-moved clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from torres_matchmaking.config import Config
from torres_matchmaking.errors import GameServiceError
from torres_matchmaking.game_client import CreatedGame, GameServiceClient
from torres_matchmaking.grouping import Candidate, Window, form_groups
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.ratings import RatingBook, ai_level_for
from torres_matchmaking.store import Redis
from torres_matchmaking.tickets import TicketService

from .conftest import API_KEY, FakeClock, GameServer, free_port, game_summary, set_rating


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
    port = free_port()
    down = config.with_(game_service_url=f"http://127.0.0.1:{port}", retry_delay=2.0)
    tickets, matcher = _services(store, down, clock)
    ids = [_ticket(tickets, f"p{i}", [2], max_wait=1) for i in range(4)]
    report = matcher.tick()
    assert report.claimed == 2 and report.failed == 2 and report.created == 0
    for tid in ids:  # back in the queue, unharmed
        t = tickets.get(tid)
        assert t["status"] == "queued" and "game_id" not in t
    assert store.client.zcard(store.keys.queue("rio_grande", False, 2)) == 4
    assert store.client.zcard(store.keys.claims) == 0
    assert int(store.client.hget(store.keys.ticket(ids[0]), "attempts")) == 1
    clock.advance(1.0)
    assert matcher.tick().backing_off  # no hammering the service while it is down
    server = GameServer(tmp_path / "late.sqlite3", port=port).start()
    try:
        clock.advance(1.5)
        report = matcher.tick()
        assert report.created == 2 and report.failed == 0
        games = {tickets.get(t)["game_id"] for t in ids}
        assert len(games) == 2
        placed = [s["player_id"] for g in server.all_games() for s in g["seats"] if s["kind"] == "human"]
        assert sorted(placed) == [f"p{i}" for i in range(4)]  # each exactly once, nobody lost
    finally:
        server.stop()


class LosesFirstAnswer(GameServiceClient):
    """The game service commits the first creation, but its answer never arrives (a timeout, say)."""

    lost = 0

    def create_game(self, edition: str, master: bool, seats: list[dict[str, Any]],
                    request_key: str | None = None) -> CreatedGame:
        created = super().create_game(edition, master, seats, request_key=request_key)
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


def test_cancel_cannot_take_a_claimed_ticket(store: Redis, config: Config, clock: FakeClock) -> None:
    """The two scripts exclude each other: a claimed ticket refuses cancel; a cancelled one refuses claim."""
    tickets, _ = _services(store, config, clock)
    a, b, c = (_ticket(tickets, p, [2]) for p in ("a", "b", "c"))
    assert store.scripts.run("claim", repr(clock.now), "claim-1", a, b) == [1]
    with pytest.raises(Exception, match="being placed"):
        tickets.cancel(a)
    tickets.cancel(c)
    ok, tid, status = store.scripts.run("claim", repr(clock.now), "claim-2", b, c)
    assert (ok, tid, status) == (0, b, "claimed")
    assert store.scripts.run("claim", repr(clock.now), "claim-3", c) == [0, c, "cancelled"]
    assert store.scripts.run("release", "wrong-claim", a, b) == 0  # only the holder may release
    assert store.scripts.run("release", "claim-1", a, b) == 2
    assert tickets.cancel(a)["status"] == "cancelled"


def test_stale_claims_of_a_dead_matcher_are_requeued(store: Redis, config: Config, clock: FakeClock) -> None:
    tickets, matcher = _services(store, config.with_(claim_timeout=30), clock)
    a, b = _ticket(tickets, "a", [2]), _ticket(tickets, "b", [3])
    store.scripts.run("claim", repr(clock.now), "dead", a, b)
    clock.advance(29)
    assert matcher.recover_stale_claims() == 0
    clock.advance(2)
    assert matcher.recover_stale_claims() == 2
    assert tickets.get(a)["status"] == "queued"
    assert store.client.zscore(store.keys.queue("rio_grande", False, 3), b) is not None
    assert store.scripts.run("confirm", repr(clock.now), 60, "dead", "g1", "{}", 60, a, 0, "tok") == [0, a]

"""Rate limits and stream caps (torres_service.ratelimits) on a small app with the services' own front
(problem_api, the input guard): what a burst gets, who else is unaffected, when the count starts again, where it is
kept (per process, or in the real Redis shared by two app instances), what happens when that Redis is gone, and
how open streams are counted and given back.

The services' own tests (tests/game/test_ratelimits.py) run the same through gunicorn."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask, Response
from flask.testing import FlaskClient
from private_redis import PrivateRedis
from prometheus_client import REGISTRY

from torres_service.limits import InputLimits
from torres_service.metrics import PUSH_SUFFIXES
from torres_service.principals import (
    INTERNAL_SCOPES,
    TENANT_SCOPES,
    ApiKey,
    PlayerTokens,
    Registries,
    Registry,
    Tenant,
    issue_player_token,
    key_digest,
)
from torres_service.problems import FIRST_CHECKS, ProblemBlueprint, problem_api
from torres_service.ratelimit_counts import LEASE_MOST, RequestCounts, StreamCaps, TooManyStreams
from torres_service.ratelimit_identity import SETTINGS, Settings, VerifiedPlayers, redis_storage_uri, tenant_of
from torres_service.ratelimits import Guard, install

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
ALICE, BOB, CAROL = "203.0.113.7", "203.0.113.8", "198.51.100.9"  # documentation addresses: never loopback
SECRET_A, SECRET_B = "a" * 40, "b" * 40
REGISTRY_DOC = Registry({
    "acme": Tenant("acme", (ApiKey("k1", key_digest("acme-key"), frozenset({"games"})),
                            ApiKey("k2", key_digest("acme-key-2"), frozenset({"games"}))),
                   PlayerTokens("acme", hs256_secret=SECRET_A)),
    "globex": Tenant("globex", (ApiKey("k1", key_digest("globex-key"), frozenset({"games"})),),
                     PlayerTokens("globex", hs256_secret=SECRET_B)),
}, {"matcher": (ApiKey("k1", key_digest("matcher-key"), frozenset({"games"})),)})


def make_app(settings: Settings, *, verified: bool = False, service: str = "") -> tuple[Flask, Guard]:
    """A service in miniature: the kit's problem front, a route, a stream, a probe; the guard installed last.
    ``service`` names its counts (in Redis: the key prefix); each app has its own unless told."""
    app = Flask(f"ratelimits-{uuid.uuid4().hex[:6]}")
    api = problem_api(app, title="t", description="t", limits=InputLimits())
    blp = ProblemBlueprint("things", __name__, url_prefix="/v1")
    calls: list[str] = []
    release = threading.Event()

    @blp.route("/things", methods=["GET", "POST"])
    def things() -> dict[str, Any]:
        calls.append("things")
        return {"ok": True}

    @blp.route("/things/<thing>/stream", methods=["GET"])
    def stream(thing: str) -> Response:
        def body() -> Iterator[bytes]:
            yield b": connected\n\n"
            release.wait(10)

        return Response(body(), mimetype="text/event-stream")

    @blp.route("/things/<thing>/wait", methods=["GET"])
    def wait(thing: str) -> dict[str, Any]:
        if thing == "broken":
            raise RuntimeError("a wait that fails")
        return {"waited": thing}

    ops = ProblemBlueprint("ops", __name__)

    @ops.route("/healthz", methods=["GET"])
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    api.register_blueprint(blp)
    api.register_blueprint(ops)
    registries = Registries(REGISTRY_DOC)
    player_of = VerifiedPlayers(registries) if verified else None
    guard = install(app, service or f"test-{uuid.uuid4().hex[:8]}", registries=registries, settings=settings,
                    **({"player_of": player_of} if player_of else {}))
    assert guard is not None
    app.config["CALLS"] = calls
    app.config["RELEASE"] = release
    return app, guard


def client(app: Flask, address: str = ALICE) -> FlaskClient:
    test_client = app.test_client()
    test_client.environ_base["REMOTE_ADDR"] = address
    return test_client


def refused(response: Any) -> bool:
    return response.status_code == 429


def burst(c: FlaskClient, n: int, path: str = "/v1/things", **kw: Any) -> list[int]:
    return [c.get(path, **kw).status_code for _ in range(n)]


NO_EXEMPT = Settings(exempt=(), address="5 per 10 seconds", tenant="4 per 10 seconds", player="3 per 10 seconds")


# -- a burst, its answer, and who else is unaffected ---------------------------------------------------------

def test_an_address_burst_gets_429_problem_with_retry_after_and_other_addresses_go_on() -> None:
    app, _ = make_app(NO_EXEMPT)
    alice = client(app, ALICE)
    assert burst(alice, 5) == [200] * 5
    response = alice.get("/v1/things")
    assert response.status_code == 429 and response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "rate_limited" and body["type"] == "urn:torres:problem:rate_limited"
    assert body["limit_class"] == "address" and body["limit"] == 5 and body["window_seconds"] == 10
    retry = int(response.headers["Retry-After"])
    assert 1 <= retry <= 10 and body["retry_after"] == retry
    assert response.headers["X-RateLimit-Limit"] == "5" and response.headers["X-RateLimit-Remaining"] == "0"
    assert burst(client(app, BOB), 5) == [200] * 5  # another address: its own count
    assert client(app, "2001:db8::1").get("/v1/things").status_code == 200


def test_a_refused_request_reaches_no_view_and_no_body_is_read() -> None:
    app, _ = make_app(Settings(exempt=(), address="2 per 10 seconds"))
    alice = client(app)
    burst(alice, 2)
    calls = len(app.config["CALLS"])
    response = alice.post("/v1/things", data=b"{not json", content_type="application/json")
    assert response.status_code == 429  # not the guard's 400: the limit comes first
    assert len(app.config["CALLS"]) == calls


def test_unknown_paths_and_malformed_heads_are_counted_too() -> None:
    """flask-limiter skips requests without an endpoint by default; a scan of random paths (404s) or a flood of
    malformed Authorization headers (401 from the input guard) is still a flood."""
    app, _ = make_app(Settings(exempt=(), address="3 per 10 seconds"))
    alice = client(app)
    assert [alice.get(f"/nothing/{n}").status_code for n in range(3)] == [404] * 3
    assert alice.get("/v1/things", headers={"Authorization": "Basic eDp5"}).status_code == 429
    bob = client(app, BOB)
    assert burst(bob, 3, headers={"Authorization": "Basic eDp5"}) == [401] * 3
    assert bob.get("/nothing").status_code == 429


def test_one_process_counting_in_memory_admits_exactly_the_limit() -> None:
    """Leases in one process strand nothing: a limit of 50 (leases of 3 at first, then smaller) admits 50 requests,
    not one fewer, and refuses the 51st."""
    app, guard = make_app(Settings(exempt=(), address="50 per 10 seconds"))
    assert guard.counts.leases, "the fixed window is counted in leases in memory too"
    assert burst(client(app), 60) == [200] * 50 + [429] * 10


def test_probes_and_loopback_are_never_limited() -> None:
    app, _ = make_app(Settings(address="2 per 10 seconds"))  # default exemptions: loopback
    alice = client(app)
    assert burst(alice, 2) == [200, 200] and refused(alice.get("/v1/things"))
    assert burst(alice, 20, "/healthz") == [200] * 20
    assert burst(client(app, "127.0.0.1"), 20) == [200] * 20
    assert burst(client(app, "::1"), 20) == [200] * 20


def test_the_count_starts_again_after_the_window() -> None:
    app, _ = make_app(Settings(exempt=(), address="3 per 1 second"))
    alice = client(app)
    time.sleep(1 - time.time() % 1 + 0.02)  # at the start of a window, so that the burst fits in one
    assert burst(alice, 4) == [200, 200, 200, 429]
    assert alice.get("/v1/things").headers["Retry-After"] == "1"
    time.sleep(1.05)
    assert burst(alice, 3) == [200] * 3


def test_a_tenants_keys_share_its_limit_and_other_tenants_are_unaffected() -> None:
    app, _ = make_app(Settings(exempt=(), address="100 per 10 seconds", tenant="4 per 10 seconds"))
    alice = client(app)
    acme = [alice.get("/v1/things", headers={"X-API-Key": key}).status_code
            for key in ("acme-key", "acme-key-2") * 2]
    assert acme == [200] * 4
    response = alice.get("/v1/things", headers={"X-API-Key": "acme-key"})
    assert refused(response) and response.get_json()["limit_class"] == "tenant"
    assert burst(alice, 4, headers={"X-API-Key": "globex-key"}) == [200] * 4  # same address, other tenant
    # A key nobody holds is no tenant's: counted by address only (our own services' keys: not at all).
    assert burst(alice, 6, headers={"X-API-Key": "forged"}) == [200] * 6
    assert alice.get("/v1/things").status_code == 200


def test_our_own_services_keys_are_not_limited_at_all() -> None:
    """The matcher creates games with its internal key from a few addresses, at the rate players are matched: a
    request with our own services' key (an internal one, or the single-key default's) is exempt from every limit,
    its address's included; a portal's key from the same address is not."""
    app, _ = make_app(Settings(exempt=(), address="3 per 10 seconds"))
    matcher = client(app, CAROL)
    assert burst(matcher, 10, headers={"X-API-Key": "matcher-key"}) == [200] * 10
    assert burst(matcher, 3, headers={"X-API-Key": "acme-key"}) == [200] * 3
    assert refused(matcher.get("/v1/things", headers={"X-API-Key": "acme-key"}))
    assert matcher.get("/v1/things", headers={"X-API-Key": "matcher-key"}).status_code == 200


def test_a_players_burst_leaves_other_players_on_the_same_address_unaffected() -> None:
    app, _ = make_app(Settings(exempt=(), address="100 per 10 seconds", player="3 per 10 seconds"))
    alice = client(app)
    assert burst(alice, 3, headers={"Authorization": "Bearer seat-token-0"}) == [200] * 3
    response = alice.get("/v1/things", headers={"Authorization": "Bearer seat-token-0"})
    assert refused(response) and response.get_json()["limit_class"] == "player"
    assert burst(alice, 3, headers={"Authorization": "Bearer seat-token-1"}) == [200] * 3
    assert burst(alice, 3) == [200] * 3  # no token: the address's count only


def test_a_forged_player_token_never_spends_the_named_players_budget() -> None:
    """The matchmaker counts the player a verified token names. A token that claims the victim but is signed with
    another key (or by nobody) does not verify, so it is counted by address, never as the victim."""
    app, _ = make_app(Settings(exempt=(), address="100 per 10 seconds", player="3 per 10 seconds"), verified=True)
    victim = issue_player_token(PlayerTokens("acme", hs256_secret=SECRET_A), "victim")
    forged = issue_player_token(PlayerTokens("acme", hs256_secret="f" * 40), "victim")
    mallory = client(app, CAROL)
    assert burst(mallory, 10, headers={"Authorization": f"Bearer {forged}"}) == [200] * 10
    assert burst(client(app, ALICE), 3, headers={"Authorization": f"Bearer {victim}"}) == [200] * 3
    # A second token of the same player (a refreshed one) shares the player's count.
    again = issue_player_token(PlayerTokens("acme", hs256_secret=SECRET_A), "victim", lifetime=600)
    assert refused(client(app, BOB).get("/v1/things", headers={"Authorization": f"Bearer {again}"}))
    other = issue_player_token(PlayerTokens("globex", hs256_secret=SECRET_B), "victim")  # another portal's
    assert client(app, ALICE).get("/v1/things", headers={"Authorization": f"Bearer {other}"}).status_code == 200


def test_tenant_of_names_only_portals() -> None:
    registries = Registries(REGISTRY_DOC)
    assert tenant_of(registries, "acme-key-2") == "acme"
    assert tenant_of(registries, "matcher-key") is None and tenant_of(registries, "nobody's") is None
    single = Registries(Registry.single_key("the-one-key"))
    assert tenant_of(single, "the-one-key") is None  # the matcher's and the AI workers' key too
    assert Registry.single_key("k").principal("k").scopes == (TENANT_SCOPES - {"admin"}) | INTERNAL_SCOPES
    assert tenant_of(None, "acme-key") is None


def test_429s_are_counted_by_class() -> None:
    def count(kind: str, name: str) -> float:
        value = REGISTRY.get_sample_value("torres_http_rate_limited_total",
                                          {"service": "test", "kind": kind, "limit_class": name})
        return value or 0.0

    before = count("requests", "player"), count("streams", "player")
    app, _ = make_app(Settings(exempt=(), player="1 per 10 seconds"), service="test")
    alice = client(app)
    auth = {"Authorization": "Bearer counted"}
    burst(alice, 3, headers=auth)
    assert count("requests", "player") == before[0] + 2
    app, _ = make_app(Settings(exempt=(), streams_per_player=1), service="test")
    streams = [client(app, BOB).get("/v1/things/t/stream", headers={"Authorization": "Bearer s"}, buffered=False)
               for _ in range(2)]
    assert [s.status_code for s in streams] == [200, 429]
    assert count("streams", "player") == before[1] + 1
    streams[0].close()


# -- settings ----------------------------------------------------------------------------------------------------

def test_settings_from_the_environment() -> None:
    env = {SETTINGS["address"]: "20/second;600/minute", SETTINGS["tenant"]: "off", SETTINGS["exempt"]: "",
           SETTINGS["trusted_proxies"]: "1", SETTINGS["streams_per_player"]: "0"}
    settings = Settings.from_env(env, storage_uri="redis://r:6379/0")
    assert settings.limit("address") == "20/second;600/minute" and settings.limit("tenant") is None
    assert settings.networks == () and settings.trusted_proxies == 1 and settings.cap("player") == 0
    assert settings.storage_uri == "redis://r:6379/0"
    assert Settings.from_env({SETTINGS["storage_uri"]: "memory://"}, storage_uri="redis://r").storage_uri == "memory://"
    assert not Settings.from_env({SETTINGS["enabled"]: "off"}).enabled
    with pytest.raises(ValueError, match="TORRES_RATELIMIT_PLAYER"):
        Settings.from_env({SETTINGS["player"]: "lots"})
    with pytest.raises(ValueError, match="TORRES_RATELIMIT_EXEMPT"):
        Settings.from_env({SETTINGS["exempt"]: "10.0.0.0/33"})
    assert Settings.from_env({SETTINGS["shared"]: "tenant, player"}).shared == ("tenant", "player")
    with pytest.raises(ValueError, match="TORRES_RATELIMIT_SHARED"):
        Settings.from_env({SETTINGS["shared"]: "tenant,everyone"})
    with pytest.raises(ValueError, match="TORRES_MAX_STREAMS_PER_TENANT"):
        Settings.from_env({SETTINGS["streams_per_tenant"]: "-1"})
    assert redis_storage_uri("") == "memory://"
    assert redis_storage_uri("redis://h:7000/0", cluster=True) == "redis+cluster://h:7000/0"


def test_turned_off_nothing_is_installed() -> None:
    app = Flask("off")
    problem_api(app, title="t", description="t", limits=InputLimits())
    hooks = (len(app.before_request_funcs.get(None, [])), len(app.url_value_preprocessors.get(None, [])))
    assert install(app, "test", settings=Settings(enabled=False)) is None
    assert (len(app.before_request_funcs.get(None, [])), len(app.url_value_preprocessors.get(None, []))) == hooks


def test_forwarded_addresses_count_only_behind_trusted_proxies() -> None:
    untrusted, _ = make_app(Settings(exempt=(), address="2 per 10 seconds"))
    proxy = client(untrusted, ALICE)
    assert burst(proxy, 2, headers={"X-Forwarded-For": BOB}) == [200, 200]
    assert refused(proxy.get("/v1/things", headers={"X-Forwarded-For": CAROL}))  # the header is not believed
    trusted, _ = make_app(Settings(exempt=(), address="2 per 10 seconds", trusted_proxies=1))
    proxy = client(trusted, ALICE)
    assert burst(proxy, 2, headers={"X-Forwarded-For": BOB}) == [200, 200]
    assert refused(proxy.get("/v1/things", headers={"X-Forwarded-For": BOB}))
    # One trusted proxy: only the address it appended counts, not what the client wrote before it.
    assert proxy.get("/v1/things", headers={"X-Forwarded-For": f"{BOB}, {CAROL}"}).status_code == 200
    # ... and a client claiming loopback through the proxy is not exempt: the proxy appended its real address.
    assert refused(proxy.get("/v1/things", headers={"X-Forwarded-For": f"127.0.0.1, {BOB}"}))


# -- where the count is kept ---------------------------------------------------------------------------------------

@pytest.fixture
def redis_url() -> Iterator[str]:
    """The test Redis (TEST_REDIS_URL); the key prefix of each app keeps tests apart, so nothing is flushed."""
    client_ = redis.Redis.from_url(REDIS_URL, socket_timeout=3)
    try:
        client_.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    yield REDIS_URL
    client_.close()


@pytest.mark.redis
def test_two_app_instances_share_the_count_in_redis(redis_url: str) -> None:
    """As two gunicorn workers or two replicas do: a limit of 6 is 6 across both, not 6 each."""
    service = f"shared-{uuid.uuid4().hex[:8]}"
    settings = Settings(exempt=(), address="6 per 10 seconds", storage_uri=redis_url)
    one, two = (make_app(settings, service=service)[0] for _ in range(2))  # one deployment: one key prefix
    first, second = client(one), client(two)
    assert [c.get("/v1/things").status_code for c in (first, second) * 3] == [200] * 6
    assert refused(first.get("/v1/things")) and refused(second.get("/v1/things"))
    assert client(two, BOB).get("/v1/things").status_code == 200
    keys = redis.Redis.from_url(redis_url).keys(f"*{service}*")
    assert keys, "the counts are in Redis"


@pytest.mark.redis
def test_a_real_redis_behind_the_services_default_storage(redis_url: str) -> None:
    app, guard = make_app(Settings(exempt=(), address="2 per 10 seconds", storage_uri=redis_url))
    assert type(guard.counts.storage).__name__ == "RedisStorage"
    alice = client(app)
    assert burst(alice, 3) == [200, 200, 429]


def test_storage_down_requests_are_served_and_counted_in_memory() -> None:
    """A Redis that does not answer (a closed port) never makes a 5xx: the requests are counted in the process's
    memory instead (the limits still hold, per process) and the storage is tried again later."""
    app, guard = make_app(Settings(exempt=(), address="3 per 10 seconds", storage_uri="redis://127.0.0.1:1/0"))
    alice = client(app)
    started = time.monotonic()
    assert burst(alice, 3) == [200] * 3
    assert time.monotonic() - started < 3  # the connection timeout, once; not per request
    assert refused(alice.get("/v1/things"))
    assert client(app, BOB).get("/v1/things").status_code == 200
    assert guard.counts.failing


def test_storage_errors_beyond_the_fallback_fail_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever else breaks in the limiter, the request is served and the error logged."""
    app, guard = make_app(Settings(exempt=(), address="1 per 10 seconds"))

    def broken(*args: Any, **kwargs: Any) -> int:
        raise RuntimeError("the limiter itself is broken")

    monkeypatch.setattr(guard.counts.storage, "incr", broken)
    assert burst(client(app), 3) == [200] * 3


def test_counting_moves_back_to_redis_once_it_answers_again(private_redis: PrivateRedis) -> None:
    """A real redis-server stopped and started again under the app: served all along, counted in memory while it is
    gone, and in Redis again within the back-off (1 s, then 2 s) once it is back. (The lease taken before it went
    lasts a few requests: past it, the process needs Redis and finds it gone.)"""
    app, guard = make_app(Settings(exempt=(), address="1000 per 10 seconds", storage_uri=private_redis.url))
    alice = client(app)
    assert alice.get("/v1/things").status_code == 200 and private_redis.client().keys("LIMITS*")
    private_redis.stop()
    assert burst(alice, LEASE_MOST + 4) == [200] * (LEASE_MOST + 4)
    assert guard.counts.failing
    private_redis.start()
    deadline = time.monotonic() + 10
    while guard.counts.failing:
        assert alice.get("/v1/things").status_code == 200
        assert time.monotonic() < deadline, "still counting in memory 10 s after Redis came back"
        time.sleep(0.1)
    assert alice.get("/v1/things").status_code == 200 and private_redis.client().keys("LIMITS*")


def test_a_request_of_two_classes_is_counted_in_each(private_redis: PrivateRedis) -> None:
    """Address and player, each by limits' own increment script: the same counts and answers as one call per
    limit, and a server that lost the script (SCRIPT FLUSH) still counts every request."""
    app, _ = make_app(Settings(exempt=(), address="7 per 10 seconds", player="4 per 10 seconds",
                               storage_uri=private_redis.url))
    alice, seat = client(app), {"Authorization": "Bearer seat-a"}
    assert burst(alice, 2, headers=seat) == [200, 200]
    private_redis.client().script_flush()
    assert burst(alice, 2, headers=seat) == [200, 200]
    response = alice.get("/v1/things", headers=seat)
    assert refused(response) and response.get_json()["limit_class"] == "player"
    assert 1 <= int(response.headers["Retry-After"]) <= 10
    assert burst(alice, 2, headers={"Authorization": "Bearer seat-b"}) == [200, 200]  # the address: 7 of 7
    response = alice.get("/v1/things", headers={"Authorization": "Bearer seat-b"})
    assert refused(response) and response.get_json()["limit_class"] == "address"
    counts = sorted((key.decode().split("/")[-4], int(private_redis.client().get(key)))
                    for key in private_redis.client().keys("LIMITS*"))
    assert counts == [("address", 8), ("player", 3), ("player", 5)]  # both classes, the refused requests too


def _evalsha_calls(private_redis: PrivateRedis) -> int:
    stats = private_redis.client().info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0))


def test_requests_far_below_the_limit_are_admitted_from_a_lease_without_a_round_trip_each(
        private_redis: PrivateRedis) -> None:
    """A player far below the limit: Redis is asked once per lease (up to LEASE_MAX requests), not once per
    request, and what Redis holds is never less than what was admitted (counted ahead, never behind)."""
    app, _ = make_app(Settings(exempt=(), address="off", player="3000 per 10 seconds",
                               storage_uri=private_redis.url))
    alice, seat = client(app), {"Authorization": "Bearer seat-a"}
    assert alice.get("/v1/things", headers=seat).status_code == 200  # loads limits' script into this Redis
    before = _evalsha_calls(private_redis)
    assert burst(alice, 160, headers=seat) == [200] * 160
    calls = _evalsha_calls(private_redis) - before
    assert 1 <= calls <= 160 // LEASE_MOST + 1, f"{calls} increments for 160 requests"
    (key,) = private_redis.client().keys("LIMITS*")
    assert 161 <= int(private_redis.client().get(key)) < 161 + LEASE_MOST


def test_leases_never_admit_a_client_past_its_limit_across_processes(private_redis: PrivateRedis) -> None:
    """Two app instances (two workers or replicas) share a limit of 100: alternating between them, the client is
    admitted at most 100 times -- every admitted request was counted in Redis first -- and refused at most a lease
    per process early; once refused, each process refuses it without asking Redis until the window ends."""
    service = f"leases-{uuid.uuid4().hex[:8]}"
    settings = Settings(exempt=(), address="100 per 10 seconds", storage_uri=private_redis.url)
    one, two = (client(make_app(settings, service=service)[0]) for _ in range(2))
    answers = [c.get("/v1/things").status_code for _ in range(90) for c in (one, two)]
    admitted = answers.count(200)
    assert 100 - 2 * LEASE_MOST <= admitted <= 100, answers
    assert set(answers[answers.index(429):]) == {429}, "once refused, refused for the rest of the window"
    before = _evalsha_calls(private_redis)
    assert all(refused(c.get("/v1/things")) for c in (one, two) for _ in range(20))
    assert _evalsha_calls(private_redis) == before, "a refused key is refused in the process, no round trip"
    response = one.get("/v1/things")
    assert 1 <= int(response.headers["Retry-After"]) <= 10 and response.get_json()["limit_class"] == "address"


def test_classes_not_shared_are_counted_in_the_process(private_redis: PrivateRedis) -> None:
    """TORRES_RATELIMIT_SHARED=tenant: a portal's count in Redis (shared by every worker), a player's and an
    address's in this process's memory, with the same limits and answers."""
    app, _ = make_app(Settings(exempt=(), address="100 per 10 seconds", player="2 per 10 seconds",
                               tenant="2 per 10 seconds", storage_uri=private_redis.url, shared=("tenant",)))
    alice = client(app)
    assert burst(alice, 2, headers={"Authorization": "Bearer seat-a"}) == [200, 200]
    assert refused(alice.get("/v1/things", headers={"Authorization": "Bearer seat-a"}))
    assert burst(alice, 2, headers={"X-API-Key": "acme-key"}) == [200, 200]
    assert refused(alice.get("/v1/things", headers={"X-API-Key": "acme-key"}))
    keys = [key.decode() for key in private_redis.client().keys("LIMITS*")]
    assert len(keys) == 1 and "/acme/tenant/" in keys[0]


# -- stream caps -------------------------------------------------------------------------------------------------------

def test_stream_caps_count_per_identity_and_give_slots_back_once() -> None:
    caps = StreamCaps({"address": 3, "player": 2, "tenant": 0})
    a = caps.acquire({"address": ALICE, "player": "p1", "tenant": "acme"})
    b = caps.acquire({"address": ALICE, "player": "p1", "tenant": None})
    with pytest.raises(TooManyStreams) as raised:
        caps.acquire({"address": BOB, "player": "p1"})
    assert raised.value.extras["limit_class"] == "player" and raised.value.extras["limit"] == 2
    assert caps.open_count("address", BOB) == 0  # a refusal counts nothing
    caps.acquire({"address": ALICE, "player": "p2"})
    with pytest.raises(TooManyStreams):
        caps.acquire({"address": ALICE, "player": "p3"})
    a.release()
    a.release()  # idempotent: the close callback and the teardown may both call it
    assert caps.open_count("address", ALICE) == 2 and caps.open_count("player", "p1") == 1
    b.release()
    assert caps.open_count("player", "p1") == 0 and ("player", "p1") not in caps._open


def test_the_slot_hooks_run_for_every_push_route_and_for_nothing_else() -> None:
    """A slot is taken on a push route only: the request that takes one hands it over to its response itself, and
    the backstop that returns it without a response is a teardown hook of those routes' blueprints (Flask runs a
    blueprint's hooks for its own requests): every route that can take a slot is covered, and no request of any
    other blueprint runs a hook of the stream caps."""
    app, guard = make_app(Settings(exempt=()))
    hooked = {name for name, funcs in app.teardown_request_funcs.items() if guard._close_stream in funcs}
    takers = {rule.endpoint.rpartition(".")[0] or None for rule in app.url_map.iter_rules()
              if rule.rule.endswith(PUSH_SUFFIXES) and "GET" in (rule.methods or ())}
    assert takers == hooked == {"things"}
    assert not any(guard._hand_over_stream in funcs for funcs in app.after_request_funcs.values())
    assert app.extensions[FIRST_CHECKS][0] == guard._check_rates  # the guard's hook runs the rates first
    alice = client(app)
    assert alice.get("/v1/things/a/wait").status_code == 200
    assert guard.caps.open_count("address", ALICE) == 0  # taken, handed over to the response and given back
    stream = alice.get("/v1/things/a/stream", buffered=False)
    assert guard.caps.open_count("address", ALICE) == 1  # held while the body is open
    stream.close()
    assert guard.caps.open_count("address", ALICE) == 0


def test_one_stream_too_many_for_a_player_gets_429_and_closing_one_frees_a_slot() -> None:
    app, guard = make_app(Settings(exempt=(), streams_per_player=2, streams_per_address=100))
    alice = client(app)
    seat = {"Authorization": "Bearer seat-0"}
    streams = [alice.get("/v1/things/a/stream", headers=seat, buffered=False) for _ in range(2)]
    assert [s.status_code for s in streams] == [200, 200]
    third = alice.get("/v1/things/a/stream", headers=seat, buffered=False)
    assert third.status_code == 429 and third.mimetype == "application/problem+json"
    body = third.get_json()
    assert body["code"] == "too_many_streams_for_client" and body["limit_class"] == "player" and body["limit"] == 2
    assert third.headers["Retry-After"] == "5"
    other = alice.get("/v1/things/a/stream", headers={"Authorization": "Bearer seat-1"}, buffered=False)
    assert other.status_code == 200  # another seat on the same address
    streams[0].close()  # the client leaves: the server closes the response, the slot comes back
    again = alice.get("/v1/things/a/stream", headers=seat, buffered=False)
    assert again.status_code == 200
    for response in (streams[1], other, again):
        response.close()
    assert guard.caps._open == {}


def test_waits_give_their_slot_back_when_answered_or_failed() -> None:
    app, guard = make_app(Settings(exempt=(), streams_per_address=1))
    alice = client(app)
    assert [alice.get("/v1/things/x/wait").status_code for _ in range(3)] == [200] * 3
    assert alice.get("/v1/things/broken/wait").status_code == 500
    assert guard.caps._open == {}
    assert alice.options("/v1/things/x/wait").status_code == 200  # a CORS preflight is no stream


def test_a_cap_is_per_address_without_credentials() -> None:
    app, guard = make_app(Settings(exempt=(), streams_per_address=2))
    alice = client(app)
    streams = [alice.get(f"/v1/things/{n}/stream", buffered=False) for n in range(2)]
    response = alice.get("/v1/things/9/stream", buffered=False)
    assert refused(response) and response.get_json()["limit_class"] == "address"
    bob = client(app, BOB).get("/v1/things/9/stream", buffered=False)
    assert bob.status_code == 200
    for s in (*streams, bob):
        s.close()
    assert guard.caps._open == {}


@pytest.mark.parametrize("limit", ["300 per 10 seconds", "20/second", "5 per 2 minutes", "1 per day"])
@pytest.mark.parametrize("ident", ["203.0.113.9", "2001:db8::1", "acme", "0f" * 16])
def test_a_limit_is_counted_under_the_key_limits_itself_would_use(limit: str, ident: str) -> None:
    """The counts are kept under ``limits``' own keys (``key_for``), put together from parts on the hot path: the
    window's statistics for a 429's Retry-After, and any other process reading the storage, find the same key."""
    counts = RequestCounts(Settings(player=limit), "torres-game")
    (counted,) = counts.limits["player"]
    assert counted.key(ident) == counted.item.key_for("torres-game", ident, "player")
    assert counted.expiry == counted.item.get_expiry()

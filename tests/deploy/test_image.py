"""The image, built and run: `make image` on this machine, then the stack that compose describes, started from it.

Every process kind of infra/compose.yaml (with the tenants overlay, the documented production setup of several
portals) runs from the image's read-only root file system, as the image's user, with the command, environment,
env files, tmpfs and volumes its compose service gives, read from the compose files so that the two cannot
drift. Only what a container network would differ in is changed: the services' host names (postgres, redis,
game) become loopback addresses and each process gets free ports of its own, because here they share one
network; and loopback is allowed as a webhook address, because the portal's endpoint is this test's. PostgreSQL is
a throwaway database on the machine's server; Redis a server of this test's own.

Then a portal plays: a game with an AI seat that the Celery worker plays, a match made by the matcher and rated
by the ratings consumer, webhooks posted by the delivery worker and verified by their signature, `/verify` and
the offline verifier (run from the image) accepting the records, every healthcheck passing, and every process
stopping cleanly on SIGTERM within the grace period the Kubernetes manifests give it.

Skipped without root, buildah or debootstrap ("buildah not reachable"); .ci/run installs them and requires it.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import random
import re
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
import yaml
from serving import free_port

from torres_service.principals import PlayerTokens, issue_player_token
from torres_service.webhooks import verify

from .conftest import ROOT
from .image_root import ImageRoot, runnable

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(2400)]

IMAGE = "torres:local"
#: Started in this order (compose's depends_on); `migrate` runs to completion first.
PROCESSES = ("game", "sequencer", "webhooks", "ai-worker", "ai-sweeper", "matchmaking", "matcher", "ratings")
USER = (10001, 10001)
#: The portal's endpoint is this test's, on loopback, which webhooks refuse by default (outside addresses only).
LOOPBACK_HOOKS = {"TORRES_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8"}


@pytest.fixture(scope="module")
def image() -> str:
    """`make image`: the base from Debian's packages where missing, the Dockerfile built with buildah (cached
    layers are reused until the locks, sources or Dockerfile change)."""
    why = runnable()
    if why:
        pytest.skip(why)
    build = subprocess.run(["make", "--no-print-directory", "image"], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "IMAGE": IMAGE})
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    print(build.stdout.strip().splitlines()[-1])
    return IMAGE


@pytest.fixture(scope="module")
def root(image: str) -> Iterator[ImageRoot]:
    mounted = ImageRoot(image)
    try:
        yield mounted
    finally:
        mounted.close()



def compose_services() -> dict[str, dict[str, Any]]:
    """infra/compose.yaml with infra/compose.tenants.yaml merged over it, by the Compose Specification's rules
    for what these files use: mappings merged, `volumes` appended, `env_file` replaced."""
    base = yaml.safe_load((ROOT / "infra" / "compose.yaml").read_text())["services"]
    overlay = yaml.safe_load((ROOT / "infra" / "compose.tenants.yaml").read_text())["services"]
    for name, extra in overlay.items():
        service = base[name]
        service["environment"] = {**service.get("environment", {}), **extra.get("environment", {})}
        service["volumes"] = [*service.get("volumes", []), *extra.get("volumes", [])]
        if "env_file" in extra:
            service["env_file"] = extra["env_file"]
    return base


def env_file(path: Path) -> dict[str, str]:
    lines = [line.strip() for line in path.read_text().splitlines()]
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def grace_seconds(name: str) -> float:
    """terminationGracePeriodSeconds of the component's Kubernetes Deployment."""
    manifest = next(d for d in yaml.safe_load_all((ROOT / "k8s" / "base" / f"{name}.yaml").read_text())
                    if d and d.get("kind") == "Deployment")
    return float(manifest["spec"]["template"]["spec"]["terminationGracePeriodSeconds"])


def compose_seconds(text: str) -> float:
    return float(text.removesuffix("s"))


class Hooks(http.server.BaseHTTPRequestHandler):
    """The portal's webhook endpoint: keeps what it receives and answers 204."""

    received: ClassVar[list[tuple[dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((dict(self.headers.items()), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


class Stack:
    """The compose stack's processes, started from the image (see the module's docstring)."""

    def __init__(self, root: ImageRoot, project: Path, database_url: str, redis_port: int) -> None:
        self.root, self.project = root, project
        self.database_url, self.redis_port = database_url, redis_port
        self.services = compose_services()
        self.game_port = free_port()
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.envs: dict[str, dict[str, str]] = {}
        self.logs: dict[str, Path] = {}

    def source(self, path: str) -> Path:
        """A path of the compose files (relative to infra/) in this test's project folder."""
        return self.project / Path(path).relative_to("..")

    def env(self, name: str) -> dict[str, str]:
        service = self.services[name]
        env: dict[str, str] = {}
        for item in service.get("env_file", []):
            env.update(env_file(self.source(item["path"])))
        env.update({k: str(v) for k, v in service.get("environment", {}).items()})
        ports: dict[str, str] = {}
        for key in [k for k in env if k == "PORT" or k.endswith("_METRICS_PORT")]:
            ports[env[key]] = env[key] = str(self.game_port if name == "game" else free_port())
        for key, value in env.items():
            value = value.replace("redis://redis:6379", f"redis://127.0.0.1:{self.redis_port}")
            value = value.replace("http://game:8000", f"http://127.0.0.1:{self.game_port}")
            if key == "HEALTHCHECK_URL":
                value = re.sub(r":(\d+)/", lambda m: f":{ports.get(m[1], m[1])}/", value)
            env[key] = value
        env["DATABASE_URL"] = self.database_url
        env.update(LOOPBACK_HOOKS)
        return env

    def mounts(self, name: str) -> dict[str, Any]:
        service = self.services[name]
        assert service.get("read_only") is True, f"{name}: compose must run it on a read-only root"
        binds = [(str(self.source(v["source"])), v["target"], bool(v.get("read_only"))) for v in
                 service.get("volumes", []) if v["type"] == "bind"]
        return {"tmpfs": service.get("tmpfs", []), "binds": binds}

    def start(self, name: str) -> None:
        self.envs[name] = self.env(name)
        self.logs[name] = self.project / f"{name}.log"
        with open(self.logs[name], "ab") as log:
            self.procs[name] = self.root.popen(self.services[name]["command"], self.envs[name], log=log,
                                               **self.mounts(name))

    def run_once(self, name: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
        return self.root.run(self.services[name]["command"], self.env(name), timeout=timeout, **self.mounts(name))

    def healthcheck(self, name: str) -> subprocess.CompletedProcess[bytes] | None:
        """The service's compose healthcheck command, in the image with the process's environment."""
        check = self.services[name].get("healthcheck", {})
        if check.get("disable"):
            return None
        test = check["test"]
        assert test[0] == "CMD", test
        return self.root.run(test[1:], self.envs[name], timeout=compose_seconds(check["timeout"]) + 5,
                             **self.mounts(name))

    def wait_healthy(self, name: str, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while True:
            proc = self.procs[name]
            assert proc.poll() is None, f"{name} exited with {proc.returncode}:\n{self.tail(name)}"
            result = self.healthcheck(name)
            if result is None or result.returncode == 0:
                return
            assert time.monotonic() < deadline, f"{name} never healthy: {result.stderr!r}\n{self.tail(name)}"
            time.sleep(0.5)

    def tail(self, name: str, lines: int = 40) -> str:
        return "\n".join(self.logs[name].read_text(errors="replace").splitlines()[-lines:])

    def stop(self, name: str) -> tuple[int | None, float]:
        """SIGTERM, as a runtime sends it; returns the exit status and how long the process took."""
        proc = self.procs[name]
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace_seconds(name) + 5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return None, time.monotonic() - started
        return proc.returncode, time.monotonic() - started

    def kill_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def keys_cli(root: ImageRoot, tenants: Path, *args: str) -> dict[str, Any]:
    """`python -m torres_service.keys` run from the image, as the image's user, on the project's tenants folder."""
    result = root.run(["python", "-m", "torres_service.keys", "--file", "/tenants/tenants.json", *args],
                      LOOPBACK_HOOKS, binds=[(str(tenants), "/tenants", False)])
    assert result.returncode == 0, result.stderr.decode()
    return dict(json.loads(result.stdout))


def keygen(root: ImageRoot, name: str) -> tuple[str, str]:
    result = root.run(["python", "-m", "torres_audit", "keygen", name])
    assert result.returncode == 0, result.stderr.decode()
    found = dict(line.split(" ", 1) for line in result.stdout.decode().splitlines())
    return found["skey"], found["vkey"]


def play_out(client: httpx.Client, game_id: str, tokens: dict[int, str], deadline: float) -> int:
    """Every human seat plays random legal actions until the game is over; returns how many it played."""
    rng, played = random.Random(7), 0
    while time.monotonic() < deadline:
        summary = client.get(f"/v1/games/{game_id}").json()
        if summary["status"] == "over":
            return played
        moved = False
        for seat, token in tokens.items():
            auth = {"Authorization": f"Bearer {token}"}
            legal = client.get(f"/v1/games/{game_id}/legal-actions", headers=auth).json()
            if legal["actions"]:
                answer = client.post(f"/v1/games/{game_id}/actions", headers=auth, json={
                    "seat": seat, "action": rng.choice(legal["actions"]), "expected_version": legal["version"],
                    "command_id": f"s{seat}-{played}"})
                assert answer.status_code in (201, 409), answer.text
                played += answer.status_code == 201
                moved = True
        if not moved:  # another seat's (the AI's) turn: wait for the next version
            client.get(f"/v1/games/{game_id}/wait", params={"version": summary["version"], "timeout": 5})
    raise AssertionError(f"game {game_id} not over in time")


def test_the_image_holds_the_runtime_lock_only(root: ImageRoot) -> None:
    """No distribution of the development lock alone (test runners, linters, Playwright, OpenSpiel...), no
    compiler, no installer; the compiled rules engine; a non-root user; the healthcheck kept in the image."""
    listing = root.run(["python", "-c", "import importlib.metadata as m, json;"
                        "print(json.dumps(sorted(d.metadata['Name'] for d in m.distributions())))"])
    assert listing.returncode == 0, listing.stderr.decode()
    installed = {re.sub(r"[-_.]+", "-", n).lower() for n in json.loads(listing.stdout)}

    def names(lock: str) -> set[str]:
        found = re.findall(r"(?m)^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==", (ROOT / lock).read_text())
        return {re.sub(r"[-_.]+", "-", n).lower() for n in found}

    runtime, dev = names("requirements-runtime.lock"), names("requirements.lock")
    components = {"torres-rules", "torres-online", "torres-audit", "torres-service", "torres-game",
                  "torres-ai-worker", "torres-matchmaking"}
    assert components <= installed
    assert not installed & (dev - runtime), installed & (dev - runtime)
    assert installed - components <= runtime, installed - components - runtime
    for tool in ("gcc", "cc", "make", "pip", "pip3"):
        assert root.run(["sh", "-c", f"command -v {tool}"]).returncode != 0, f"{tool} is in the runtime image"
    engine = root.run(["python", "-c", "import torres_rules; print(torres_rules.ENGINE_BUILD)"])
    assert engine.stdout.decode().strip() == "compiled", engine
    assert root.user.split(":")[0] not in ("0", "root")
    assert root.docker_config.get("Healthcheck", {}).get("Test", [])[-3:] == [
        "python", "-m", "torres_service.healthcheck"]


def test_the_compose_stack_started_from_the_image_plays_games_end_to_end(
        root: ImageRoot, throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]],
        private_redis: Any, tmp_path: Path) -> None:
    project = tmp_path / "project"
    tenants = project / "tenants"
    tenants.mkdir(parents=True)
    os.chown(tenants, *USER)

    # The operator's set-up, with the image's own tools: the signing keys, then the tenants file.
    record_skey, record_vkey = keygen(root, "torres.test/games")
    log_skey, log_vkey = keygen(root, "torres.test/log")
    hook_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hooks)
    threading.Thread(target=hook_server.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{hook_server.server_address[1]}/torres/hooks"
    portal = keys_cli(root, tenants, "add-tenant", "portal-a")
    portal_key = keys_cli(root, tenants, "add-key", "portal-a", "--scopes", "games,matchmaking")["key"]
    matcher_key = keys_cli(root, tenants, "add-key", "matcher", "--internal", "--scopes", "games")["key"]
    ratings_key = keys_cli(root, tenants, "add-key", "ratings", "--internal", "--scopes", "notifications")["key"]
    hook_secret = keys_cli(root, tenants, "set-webhook", "portal-a", "--url", hook_url)["secret"]
    (tenants / "matcher.env").write_text(f"GAME_SERVICE_API_KEY={matcher_key}\n")
    (tenants / "ratings.env").write_text(f"GAME_SERVICE_API_KEY={ratings_key}\n")
    admin_key = secrets.token_urlsafe(32)
    (project / ".env").write_text(
        f"DATABASE_URL=postgresql://unused\nTORRES_ADMIN_KEY={admin_key}\n"
        f"TORRES_SIGNING_KEY={record_skey}\nTORRES_LOG_KEY={log_vkey}\n")
    # Key custody: the log's signing key is the sequencer's alone (infra/compose.yaml reads it for no one else).
    (project / "log-key.env").write_text(f"TORRES_LOG_SIGNING_KEY={log_skey}\n")

    private_redis.start()
    with throwaway_database("torres_image_test") as database_url:
        stack = Stack(root, project, database_url, private_redis.port)
        try:
            migrate = stack.run_once("migrate")
            assert migrate.returncode == 0, migrate.stdout.decode()[-3000:] + migrate.stderr.decode()[-3000:]
            for name in PROCESSES:
                stack.start(name)
            for name in PROCESSES:
                stack.wait_healthy(name)
            play_through_the_stack(stack, portal, portal_key, admin_key, hook_secret, (record_vkey, log_vkey))

            for name in PROCESSES:  # every healthcheck still passes after the games
                result = stack.healthcheck(name)
                assert result is None or result.returncode == 0, (name, result)
            assert "compiled" in next(line for line in stack.logs["game"].read_text().splitlines()
                                      if "rules engine loaded" in line)
            stopped = {name: stack.stop(name) for name in reversed(PROCESSES)}
            for name, (status, seconds) in stopped.items():
                assert status == 0, f"{name}: exit {status} after {seconds:.1f} s\n{stack.tail(name)}"
                assert seconds <= grace_seconds(name), (name, seconds)
            print({name: round(seconds, 1) for name, (_, seconds) in stopped.items()})
        finally:
            stack.kill_all()
            hook_server.shutdown()
            private_redis.stop()


def play_through_the_stack(stack: Stack, portal: dict[str, Any], portal_key: str, admin_key: str,
                           hook_secret: str, vkeys: tuple[str, str]) -> None:
    deadline = time.monotonic() + 600
    game_url = f"http://127.0.0.1:{stack.game_port}"
    mm_url = f"http://127.0.0.1:{stack.envs['matchmaking']['PORT']}"
    with httpx.Client(base_url=game_url, timeout=40) as client, httpx.Client(base_url=mm_url, timeout=40) as mm:
        # A portal's game against the AI: the Celery worker plays seat 1.
        created = client.post("/v1/games", headers={"X-API-Key": portal_key}, json={
            "seats": [{"kind": "human", "player_id": "alice"}, {"kind": "ai", "level": "easy"}]})
        assert created.status_code == 201, created.text
        ai_game = created.json()["game_id"]
        play_out(client, ai_game, {0: created.json()["seats"][0]["token"]}, deadline)
        events = client.get(f"/v1/games/{ai_game}/events", params={"limit": 1000},
                            headers={"X-Admin-Key": admin_key}).json()["events"]
        ai_moves = [e for e in events if e["type"] == "action_applied" and e["payload"]["seat"] == 1]
        assert ai_moves and all(e["command_id"].startswith("ai:") for e in ai_moves), "the AI seat never moved"

        # Two players matched by the matcher, their game played out and rated by the ratings consumer.
        tokens = PlayerTokens(portal["issuer"], portal["audience"], hs256_secret=portal["hs256_secret"])
        players = [f"player-{secrets.token_hex(3)}" for _ in range(2)]
        auth = {p: {"Authorization": f"Bearer {issue_player_token(tokens, p)}"} for p in players}
        tickets = {}
        for player in players:
            answer = mm.post("/v1/tickets", headers=auth[player], json={"player_counts": [2]})
            assert answer.status_code == 201, answer.text
            tickets[player] = answer.json()["ticket_id"]
        matched: dict[str, dict[str, Any]] = {}
        while len(matched) < 2:
            assert time.monotonic() < deadline, "the matcher never matched the two tickets"
            for player, ticket in tickets.items():
                body = mm.get(f"/v1/tickets/{ticket}", headers=auth[player]).json()
                if body["status"] == "matched":
                    matched[player] = body
            time.sleep(0.3)
        (match_game,) = {body["game_id"] for body in matched.values()}
        play_out(client, match_game, {b["seat"]: b["seat_token"] for b in matched.values()}, deadline)
        for player in players:
            while mm.get(f"/v1/players/{player}/rating", headers=auth[player]).json().get("games", 0) < 1:
                assert time.monotonic() < deadline, f"{player} was never rated:\n{stack.tail('ratings')}"
                time.sleep(0.5)

        # Both records verify, on the service and offline with the verifier from the image, on the keys the
        # operator published (not the ones the record carries).
        for game_id in (ai_game, match_game):
            assert client.get(f"/v1/games/{game_id}/verify").json()["ok"] is True
            record = client.get(f"/v1/games/{game_id}/record", headers={"X-API-Key": portal_key})
            assert record.status_code == 200, record.text
            while record.json()["inclusion"] is None:  # the sequencer service (the log key's only holder) logs it
                assert time.monotonic() < deadline, f"game {game_id} never logged:\n{stack.tail('sequencer')}"
                time.sleep(0.3)
                record = client.get(f"/v1/games/{game_id}/record", headers={"X-API-Key": portal_key})
            offline = stack.root.run(["python", "-m", "torres_audit", "verify", "-", "--json", "--key", vkeys[0],
                                      "--key", vkeys[1]], input=record.content)
            assert offline.returncode == 0, offline.stdout.decode() + offline.stderr.decode()
            assert json.loads(offline.stdout)["ok"] is True
            assert {c["name"]: c["status"] for c in json.loads(offline.stdout)["checks"]}["inclusion"] == "ok"

        # The webhooks of both games reached the portal, signed with its secret, game.ended once each.
        ended: dict[str, int] = {}
        while set(ended) < {ai_game, match_game}:
            assert time.monotonic() < deadline, f"webhooks missing:\n{stack.tail('webhooks')}"
            ended = {}
            for headers, body in list(Hooks.received):
                assert verify(hook_secret, headers, body), headers
                hook = json.loads(body)
                if hook["type"] == "game.ended":
                    ended[hook["game_id"]] = ended.get(hook["game_id"], 0) + 1
            time.sleep(0.3)
        deliveries = [h["X-Torres-Delivery"] for h, _ in Hooks.received]
        assert len(deliveries) == len(set(deliveries)), "a webhook was posted twice"

"""`make run`: the whole system on embedded defaults, no servers needed, and a game to play in this terminal.

Starts the game service (SQLite under ./data, AI seats played in-process) and the matchmaker (in-process
Redis-compatible store) as child processes, prints their addresses, keys and curl examples, then -- when a
person is at the terminal -- starts a game against the service's AI seats. The services keep running after the
game until Ctrl-C. Setting DATABASE_URL / REDIS_URL / CELERY_BROKER_URL switches the children to the scale-out
configuration; nothing else changes.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{url} did not start (exit {process.returncode}); see {log}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not answer /healthz within {seconds:.0f} s; see {log}")


def start(name: str, args: list[str], env: dict[str, str], logs: Path) -> tuple[subprocess.Popen[bytes], Path]:
    log = logs / f"{name}.log"
    with log.open("ab") as out:
        process = subprocess.Popen([sys.executable, *args], env=env, stdout=out, stderr=subprocess.STDOUT,
                                   cwd=ROOT)
    return process, log


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game-port", type=int, default=int(os.environ.get("GAME_PORT", "8000")))
    parser.add_argument("--matchmaking-port", type=int, default=int(os.environ.get("MATCHMAKING_PORT", "8100")))
    parser.add_argument("--data-dir", default=os.environ.get("TORRES_DATA_DIR", str(ROOT / "data")))
    parser.add_argument("--no-play", action="store_true", help="only serve; do not start a terminal game")
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--edition", default="rio_grande")
    parser.add_argument("--master", action="store_true")
    parser.add_argument("--level", default="easy", choices=["easy", "medium", "hard"])
    parser.add_argument("--seat", type=int, default=0)
    args = parser.parse_args(argv)

    data = Path(args.data_dir)
    logs = data / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("TORRES_API_KEY", secrets.token_urlsafe(18))
    env.setdefault("TORRES_ADMIN_KEY", secrets.token_urlsafe(18))
    env["TORRES_DATA_DIR"] = str(data)
    game_url = f"http://127.0.0.1:{args.game_port}"
    mm_url = f"http://127.0.0.1:{args.matchmaking_port}"
    env["GAME_SERVICE_URL"] = game_url
    env["GAME_SERVICE_API_KEY"] = env["TORRES_API_KEY"]
    # The web client at {game_url}/play/ calls the matchmaker, another origin: tell the page where it is and let
    # the matchmaker answer that origin's CORS preflights.
    env.setdefault("TORRES_MATCHMAKING_URL", mm_url)
    env.setdefault("TORRES_CORS_ORIGINS", game_url)

    children: list[subprocess.Popen[bytes]] = []

    def stop(*_: object) -> None:
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()

    signal.signal(signal.SIGTERM, lambda *_: (stop(), sys.exit(0)))
    try:
        game, game_log = start("game", ["-m", "torres_game", "serve", "--port", str(args.game_port)], env, logs)
        children.append(game)
        wait_healthy(game_url, game, game_log)
        mm, mm_log = start("matchmaking", ["-m", "torres_matchmaking", "serve", "--port", str(args.matchmaking_port)],
                           env, logs)
        children.append(mm)
        wait_healthy(mm_url, mm, mm_log)
        if env.get("CELERY_BROKER_URL") or env.get("REDIS_URL"):  # the game service hands AI turns to Celery
            worker, _ = start("ai-worker", ["-m", "celery", "-A", "torres_ai.celery_app", "worker", "-B",
                                            "--schedule", str(data / "celerybeat-schedule"),
                                            "--concurrency", "1", "--loglevel", "INFO"], env, logs)
            children.append(worker)
        key = env["TORRES_API_KEY"]
        print(f"""Torres is running (logs in {logs}):
  game service  {game_url}   OpenAPI {game_url}/openapi.json   ({'PostgreSQL' if env.get('DATABASE_URL') else 'SQLite'})
  matchmaking   {mm_url}   OpenAPI {mm_url}/openapi.json   ({'Redis' if env.get('REDIS_URL') else 'embedded store'})
  AI seats      {'Celery worker (logs/ai-worker.log)' if len(children) > 2 else 'played in-process'}
  web client    {game_url}/play/#key={key}   (the link hands the key to that browser tab)
  service key   {key}
  admin key     {env['TORRES_ADMIN_KEY']}

  create a game:  curl -s -X POST {game_url}/v1/games -H 'X-API-Key: {key}' -H 'Content-Type: application/json' \\
                    -d '{{"seats": [{{"kind": "human", "player_id": "me"}}, {{"kind": "ai", "level": "easy"}}]}}'
  queue a player: curl -s -X POST {mm_url}/v1/tickets -H 'Content-Type: application/json' \\
                    -d '{{"player_id": "alice", "player_counts": [2], "max_wait_seconds": 5}}'
  play in another terminal:  make play-remote SERVER={game_url} TORRES_API_KEY={key}
""", flush=True)
        if not args.no_play and sys.stdin.isatty():
            from torres_terminal.__main__ import play
            from torres_terminal.games import RemoteGame

            try:
                play(RemoteGame(game_url, key, args.players, args.edition, args.master, args.seat, args.level))
            except (EOFError, KeyboardInterrupt):
                print()
        print("services still running; Ctrl-C stops them", flush=True)
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        print("a service stopped; see the logs", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nstopping")
        return 0
    finally:
        stop()


if __name__ == "__main__":
    sys.exit(main())

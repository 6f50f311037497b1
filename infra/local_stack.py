"""`make run`: the whole system on embedded defaults, no servers needed, and a game to play in this terminal.

Starts the game service (SQLite under ./data, AI seats played in-process) and the matchmaker (in-process
Redis-compatible store) as child processes, prints their addresses, keys and curl examples, then -- when a
person is at the terminal -- starts a game against the service's AI seats. The services keep running after the
game until Ctrl-C. Setting DATABASE_URL / REDIS_URL / CELERY_BROKER_URL switches the children to the scale-out
configuration; nothing else changes.

Both ports are checked before anything starts: a port another server holds (another `make run`, say) ends the
launcher with one line naming the option that moves it. A service counts as up only when the process this
launcher started answers -- its listening socket is the child's (where /proc tells) and the game service accepts
the key generated for it -- so another server on the same port can never pass for it.
"""

from __future__ import annotations

import argparse
import errno
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from torres_online.lifecycle import AI_LEVELS

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # where the children listen (their serve commands' default)


def port_problem(port: int) -> str | None:
    """Why a server could not listen on HOST:port now (None: it could). Binds as the services' server does
    (SO_REUSEADDR, so connections closing in TIME_WAIT do not count; a listening socket, even one shared with
    SO_REUSEPORT, does)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            return "already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
    return None


def free_ports_after(ports: list[int]) -> list[int]:
    """For each of ``ports``, the first port above it that a server could listen on now and that none of ``ports``
    nor an earlier suggestion is: ports that are free when the message is printed, not a fixed pair."""
    chosen: list[int] = []
    for port in ports:
        candidate = port + 1
        while candidate in ports or candidate in chosen or port_problem(candidate):
            candidate += 1
            if candidate > 65535:
                candidate = 1024
        chosen.append(candidate)
    return chosen


def check_ports(ports: dict[str, tuple[int, str]]) -> str | None:
    """One line naming each port that cannot be used and the option and variable that move it, and suggesting
    free ones; None if all can. ``ports`` maps a service's name to (port, "--option / VARIABLE")."""
    numbers = [port for port, _ in ports.values()]
    if len(set(numbers)) < len(numbers):
        problems = [f"the {' and the '.join(ports)} cannot share port {numbers[0]}"]
    else:
        problems = [f"port {port} ({name}; {option}) is {reason} on {HOST}"
                    for name, (port, option) in ports.items() if (reason := port_problem(port))]
    if not problems:
        return None
    game, matchmaking = free_ports_after(numbers)
    return ("make run: " + "; ".join(problems) + " -- is another `make run` running? Stop it, or choose other "
            f"ports, e.g. make run ARGS=\"--game-port {game} --matchmaking-port {matchmaking}\" "
            f"(or GAME_PORT={game} MATCHMAKING_PORT={matchmaking} make run), free now")


def listening_inodes(port: int) -> set[str] | None:
    """The inodes of the TCP sockets listening on ``port`` (any address), from /proc; None where there is no
    /proc (not Linux)."""
    inodes: set[str] = set()
    found = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        found = True
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rpartition(":")[2], 16) == port:
                inodes.add(fields[9])
    return inodes if found else None


def holds_port(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds a socket listening on ``port``; None where /proc cannot tell."""
    inodes = listening_inodes(port)
    fd_dir = Path(f"/proc/{pid}/fd")
    if inodes is None or not fd_dir.is_dir():
        return None
    try:
        for fd in fd_dir.iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                return True
    except OSError:
        return None
    return False


def last_line(log: Path) -> str:
    try:
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1].strip() if lines else ""


def wait_ready(name: str, url: str, port: int, process: subprocess.Popen[bytes], log: Path, key: str | None = None,
               seconds: float = 30.0) -> None:
    """Until the child answers /healthz on ``url``: the answer counts only while the child is alive and holds the
    listening socket (where /proc tells), and -- given ``key`` -- the game service accepts that key (only the
    instance started with it does). Another server on the port therefore never passes for the child."""
    deadline = time.monotonic() + seconds
    stranger = False
    while time.monotonic() < deadline:
        if process.poll() is not None:
            line = last_line(log)
            raise SystemExit(f"make run: the {name} did not start (exit {process.returncode})"
                             f"{': ' + line if line else ''}; see {log}")
        try:
            healthy = httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200
            if healthy and key is not None:  # a service-key endpoint: another instance refuses this key
                status = httpx.get(f"{url}/v1/notifications", params={"limit": 1}, headers={"X-API-Key": key},
                                   timeout=5.0).status_code
                healthy, stranger = status == 200, stranger or status in (401, 403)
        except httpx.HTTPError:
            healthy = False
        if healthy and process.poll() is None:
            held = holds_port(process.pid, port)
            if held is not False:
                return
            stranger = True
        time.sleep(0.2)
    other = f"; another server answers at {url}" if stranger else ""
    raise SystemExit(f"make run: the {name} did not come up at {url} within {seconds:.0f} s{other}; see {log}")


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
    parser.add_argument("--level", default="easy", choices=list(AI_LEVELS),
                        help="the terminal game's AI seats (the banner says what each level does)")
    parser.add_argument("--seat", type=int, default=0)
    args = parser.parse_args(argv)

    taken = check_ports({"game service": (args.game_port, "--game-port / GAME_PORT"),
                         "matchmaker": (args.matchmaking_port, "--matchmaking-port / MATCHMAKING_PORT")})
    if taken:  # before anything starts: a server already there would answer in the children's place
        print(taken, file=sys.stderr)
        return 2

    data = Path(args.data_dir)
    logs = data / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("TORRES_API_KEY", secrets.token_urlsafe(18))
    env.setdefault("TORRES_ADMIN_KEY", secrets.token_urlsafe(18))
    env["TORRES_DATA_DIR"] = str(data)
    game_url = f"http://{HOST}:{args.game_port}"
    mm_url = f"http://{HOST}:{args.matchmaking_port}"
    env["GAME_SERVICE_URL"] = game_url
    env["GAME_SERVICE_API_KEY"] = env["TORRES_API_KEY"]
    # The web client at {game_url}/play/ calls the matchmaker, another origin: tell the page where it is and let
    # the matchmaker answer that origin's CORS preflights.
    env.setdefault("TORRES_MATCHMAKING_URL", mm_url)
    env.setdefault("TORRES_CORS_ORIGINS", game_url)
    # A player is who their portal's signed token says: the one tenant signs with this secret, and the
    # matchmaker's development issuer gives the web lobby (or curl) a token for a name, with the service key.
    env.setdefault("TORRES_PLAYER_TOKEN_SECRET", secrets.token_urlsafe(48))
    env.setdefault("TORRES_DEV_ISSUER", "1")
    env.setdefault("TORRES_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8,::1/128")  # webhooks to a portal on this machine

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
        wait_ready("game service", game_url, args.game_port, game, game_log, key=env["TORRES_API_KEY"])
        mm, mm_log = start("matchmaking", ["-m", "torres_matchmaking", "serve", "--port", str(args.matchmaking_port)],
                           env, logs)
        children.append(mm)
        wait_ready("matchmaker", mm_url, args.matchmaking_port, mm, mm_log)
        if env.get("CELERY_BROKER_URL") or env.get("REDIS_URL"):  # the game service hands AI turns to Celery
            worker, _ = start("ai-worker", ["-m", "celery", "-A", "torres_ai.celery_app", "worker", "-B",
                                            "--schedule", str(data / "celerybeat-schedule"),
                                            "--concurrency", "1", "--loglevel", "INFO"], env, logs)
            children.append(worker)
        key = env["TORRES_API_KEY"]
        mode = f"{args.players} players, {args.edition}{', master version' if args.master else ''}"
        levels = "; ".join(f"{name} = {does}" for name, does in AI_LEVELS.items())
        print(f"""Torres is running (logs in {logs}):
  game service  {game_url}   OpenAPI {game_url}/openapi.json   ({'PostgreSQL' if env.get('DATABASE_URL') else 'SQLite'})
  matchmaking   {mm_url}   OpenAPI {mm_url}/openapi.json   ({'Redis' if env.get('REDIS_URL') else 'embedded store'})
  AI seats      {'Celery worker (logs/ai-worker.log)' if len(children) > 2 else 'played in-process'}
  terminal game {mode}: the AI seats play at level {args.level}, {AI_LEVELS[args.level]}
                (levels: {levels}; e.g. make run ARGS="--level hard")
  web client    {game_url}/play/#key={key}   (the link hands the key to that browser tab)
  service key   {key}
  admin key     {env['TORRES_ADMIN_KEY']}

  create a game:  curl -s -X POST {game_url}/v1/games -H 'X-API-Key: {key}' -H 'Content-Type: application/json' \\
                    -d '{{"seats": [{{"kind": "human", "player_id": "me"}}, {{"kind": "ai", "level": "easy"}}]}}'
  player token:   curl -s -X POST {mm_url}/v1/dev/player-tokens -H 'X-API-Key: {key}' \\
                    -H 'Content-Type: application/json' -d '{{"player_id": "alice"}}'
  queue a player: curl -s -X POST {mm_url}/v1/tickets -H 'Authorization: Bearer <its token>' \\
                    -H 'Content-Type: application/json' -d '{{"player_counts": [2], "max_wait_seconds": 5}}'
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

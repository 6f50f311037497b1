"""Command line: ``python -m torres_matchmaking serve`` (API), ``... matcher`` (the pairing loop), ``... ratings``
(the ratings consumer alone, for deployments that run it as its own process) and ``... migrate-keys`` (move
ratings written before the ``{ratings}`` hash tag or before ratings were per tenant; :mod:`torres_matchmaking.migrate`).

With no ``REDIS_URL`` the store lives inside the process, so ``serve`` also runs the matcher and
the ratings consumer in threads (one command, embedded defaults). With ``REDIS_URL`` set, run
``serve`` and any number of ``matcher`` processes side by side.
"""

from __future__ import annotations

import argparse
import sys

from torres_service.logs import QuietRequestHandler, configure_logging
from torres_service.signals import run_until_signalled

from .config import METRICS_HOST, METRICS_PORT, Config


def serve(config: Config, host: str, port: int, workers: bool) -> int:
    from .app import Services, create_app

    services = Services.build(config)
    app = create_app(config, services=services)
    if workers:
        services.start_workers()
    base = f"http://{host}:{port}"
    mode = "embedded fakeredis" if config.embedded else config.redis_url
    print(f"Torres matchmaking on {base} ({mode}; game service {config.game_service_url}; "
          f"matcher {'in-process' if workers else 'separate'})")
    print(f"  OpenAPI: {base}/openapi.json")
    print(f"  queue:   curl -s -X POST {base}/v1/tickets -H 'Authorization: Bearer <player token>' \\")
    print("             -H 'Content-Type: application/json' -d '{\"player_counts\": [2], \"max_wait_seconds\": 5}'")
    print("           (a player token is a JWT from the player's portal; docs/security.md"
          f"{'; here: POST /v1/dev/player-tokens with X-API-Key' if config.dev_issuer else ''})", flush=True)
    try:
        app.run(host=host, port=port, threaded=True, use_reloader=False, request_handler=QuietRequestHandler)
    finally:
        services.stop()
    return 0


def matcher(config: Config, ratings: bool, matching: bool = True) -> int:
    from .app import Services

    if config.embedded:
        print("matcher: REDIS_URL is unset; an embedded store is private to one process, "
              "so use `serve` (which runs the matcher in-process) or set REDIS_URL", file=sys.stderr)
        return 2
    services = Services.build(config)
    port = METRICS_PORT.read()
    if port:  # Prometheus scrapes (and probes) this process here; 0 = off
        from prometheus_client import start_http_server

        start_http_server(port, addr=METRICS_HOST.read())
    services.start_workers(matcher=matching, ratings=ratings)
    try:
        run_until_signalled(lambda stop: stop.wait())  # until SIGTERM or SIGINT
    finally:
        services.stop()
    return 0


def migrate_keys(config: Config, tenant: str) -> int:
    import json

    from .migrate import migrate_keys as run
    from .store import Redis

    if config.embedded:
        print("migrate-keys: REDIS_URL is unset; an embedded store starts empty, nothing to move", file=sys.stderr)
        return 0
    report = run(Redis.open(config), tenant)
    print(json.dumps(report.to_json()))
    return 1 if report.conflicts else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torres_matchmaking", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="the HTTP API (plus matcher and ratings threads when embedded)")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8100)
    run.add_argument("--workers", action=argparse.BooleanOptionalAction, default=None,
                     help="run the matcher and ratings consumer in-process (default: only when embedded)")
    m = sub.add_parser("matcher", help="the matchmaking loop (needs REDIS_URL); run as many as you like")
    m.add_argument("--ratings", action=argparse.BooleanOptionalAction, default=True,
                   help="also run the ratings consumer (safe to run in several processes)")
    sub.add_parser("ratings", help="only the ratings consumer (needs REDIS_URL); several are safe")
    mk = sub.add_parser("migrate-keys", help="move ratings stored before the {ratings} hash tag, or before ratings "
                        "were per tenant, to their new keys (idempotent; run before starting the ratings consumers)")
    mk.add_argument("--tenant", default="default", help="the tenant whose ratings the old ones are (default: "
                    "default, the single-key setup's)")
    args = parser.parse_args(argv)
    config = Config.from_env()
    configure_logging("torres_matchmaking", config.log_level, config.json_logs)
    if args.command == "serve":
        return serve(config, args.host, args.port, config.embedded if args.workers is None else args.workers)
    if args.command == "migrate-keys":
        return migrate_keys(config, args.tenant)
    if args.command == "ratings":
        return matcher(config, ratings=True, matching=False)
    return matcher(config, args.ratings)


if __name__ == "__main__":
    sys.exit(main())

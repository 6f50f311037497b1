"""Command line: ``python -m torres_game migrate`` and ``python -m torres_game serve``."""

from __future__ import annotations

import argparse
import sys

from torres_service.logs import configure_logging

from .config import Config
from .store import open_store


def migrate(config: Config) -> int:
    store = open_store(config.database_url, migrations_dir=config.migrations_dir)
    try:
        applied = store.migrate()
        done, pending = store.migration_status()
    finally:
        store.close()
    print(f"{store.backend}: applied now {applied or 'nothing'}; current {done}; pending {pending or 'none'}")
    return 0 if not pending else 1


def serve(config: Config, host: str, port: int) -> int:
    from .app import create_app

    app = create_app(config)
    base = f"http://{host}:{port}"
    print(f"Torres game service on {base} ({config.backend}: {config.database_url})")
    print(f"  OpenAPI: {base}/openapi.json")
    print("  create a game:")
    print(f"    curl -s -X POST {base}/v1/games -H 'X-API-Key: {config.api_key}' \\")
    print("      -H 'Content-Type: application/json' \\")
    seats = '{"seats": [{"kind": "human", "player_id": "me"}, {"kind": "ai", "level": "easy"}]}'
    print(f"      -d '{seats}'")
    print(f"  admin key: {config.admin_key}", flush=True)
    app.run(host=host, port=port, threaded=True, use_reloader=False)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torres_game", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply pending SQL migrations to DATABASE_URL (or the embedded SQLite)")
    run = sub.add_parser("serve", help="development server (embedded SQLite unless DATABASE_URL is set)")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    configure_logging("torres_game")
    config = Config.from_env()
    if args.command == "migrate":
        return migrate(config)
    return serve(config, args.host, args.port)


if __name__ == "__main__":
    sys.exit(main())

"""Command line: ``python -m torres_game migrate``, ``serve``, ``enforce``, ``sequence`` and ``webhooks``."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable

from torres_service.logs import QuietRequestHandler, configure_logging
from torres_service.signals import run_until_signalled

from .config import Config
from .migrations import MigrationEdited
from .store import open_store


def migrate(config: Config) -> int:
    store = open_store(config.database_url, migrations_dir=config.migrations_dir)
    try:
        applied = store.migrate()
        done, pending = store.migration_status()
    except MigrationEdited as exc:
        print(f"{store.backend}: {exc}", file=sys.stderr)
        return 2
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
    app.run(host=host, port=port, threaded=True, use_reloader=False, request_handler=QuietRequestHandler)
    return 0


def enforce(config: Config) -> int:
    """A dedicated deadline enforcer (the service processes run one each as well, unless
    ``TORRES_ENFORCER_INTERVAL=0``): sweeps due deadlines until SIGTERM/SIGINT. Any number may run at once.

    It hands the AI turns its timeouts make due (the ``ai`` policy) to the driver the service would use
    (``TORRES_AI_DRIVER``): published to Celery at once, or played by its own in-process bots; were it to
    only record them, the game would wait for the sweeper or for another process to adopt the outbox row.
    Killed after a timeout's commit, it loses nothing: the row stays due and is taken up elsewhere."""
    from .ai_turns import make_driver
    from .service import GameService

    store = open_store(config.database_url, migrations_dir=config.migrations_dir,
                       pool_min=config.pool_min, pool_max=config.pool_max)
    # The sweep runs in this thread (below), not in the service's own enforcer thread; webhooks are posted by the
    # service processes or `python -m torres_game webhooks`, not here.
    service = GameService(store, config.with_(enforcer_interval=0, webhook_interval=0),
                          make_driver(config.ai_driver, config.ai_delay))
    service.start()
    # service.close(): the driver first (a turn it did not finish stays due in the outbox), then the store.
    return _until_stopped("deadline enforcer", store.backend, service.deadlines.run, config.enforcer_interval or 1.0,
                          service.close)


def sequence(config: Config) -> int:
    """A dedicated transparency-log sequencer (the service processes run one each as well, unless
    ``TORRES_LOG_INTERVAL=0``): integrates finished games' heads and signs checkpoints until SIGTERM/SIGINT.
    Any number may run at once (one works at a time); killed mid-batch, it loses nothing: the batch's
    transaction rolls back and the leaves stay queued for the next one."""
    from torres_audit.note import Signer, Verifier

    from .translog import TransparencyLog

    skey = config.log_signing_key
    if not skey:
        print("sequence: set TORRES_LOG_SIGNING_KEY (the log's own key, not TORRES_SIGNING_KEY): a generated key "
              "would sign checkpoints nobody can check", file=sys.stderr)
        return 2
    if config.signing_key and Signer.from_skey(skey).verifier() == Signer.from_skey(config.signing_key).verifier():
        print("sequence: TORRES_LOG_SIGNING_KEY is TORRES_SIGNING_KEY: the log needs a key of its own",
              file=sys.stderr)
        return 2
    store = open_store(config.database_url, migrations_dir=config.migrations_dir, pool_min=1, pool_max=2)
    log = TransparencyLog(store, Signer.from_skey(skey), batch=config.log_batch,
                          published=tuple(Verifier.from_vkey(k) for k in config.log_published_keys),
                          witnesses=config.log_witnesses, witness_quorum=config.log_witness_quorum,
                          witness_timeout=config.log_witness_timeout)

    def close() -> None:
        if log.witnesses is not None:
            log.witnesses.close()
        store.close()

    return _until_stopped(f"log sequencer for {log.origin}", store.backend, log.run, config.log_interval or 0.25,
                          close)


def deliver_webhooks(config: Config) -> int:
    """A dedicated webhook delivery worker (the service processes run one each as well, unless
    ``TORRES_WEBHOOK_INTERVAL=0``): posts the outbox's due webhooks until SIGTERM/SIGINT. Any number may run at
    once (each claims its rows with a committed lease); killed mid-attempt, it loses nothing: its rows are claimed
    again once their ``TORRES_WEBHOOK_LEASE`` has passed and posted with the same delivery id. Metrics on
    ``TORRES_WEBHOOK_METRICS_PORT``."""
    from torres_service.principals import Registries

    from .config import METRICS_HOST, METRICS_PORT
    from .webhooks import WebhookWorker

    store = open_store(config.database_url, migrations_dir=config.migrations_dir, pool_min=1, pool_max=2)
    registries = Registries.from_env(
        {"TORRES_TENANTS_FILE": config.tenants_file, "TORRES_TENANTS_RELOAD": str(config.tenants_reload),
         "TORRES_WEBHOOK_URL": config.webhook_url, "TORRES_WEBHOOK_SECRET": config.webhook_secret},
        api_key=config.api_key)
    worker = WebhookWorker(store, registries, config)
    port = METRICS_PORT.read()
    if port:  # Prometheus scrapes this process here; 0 = off
        from prometheus_client import start_http_server

        start_http_server(port, addr=METRICS_HOST.read())
    # It looks at the outbox every interval (one indexed query when nothing is due), and again whenever an attempt
    # ends. No notice wakes it: one per append that wrote webhooks cost every listening process of
    # every replica more than the looks (docs/performance.md, "Webhooks").

    def close() -> None:
        worker.close()
        store.close()

    return _until_stopped("webhook worker", store.backend, worker.run, config.webhook_interval or 0.2, close,
                          on_stop=worker.wake)


def _until_stopped(label: str, backend: str, run: Callable[[threading.Event, float], None], interval: float,
                   close: Callable[[], None], *, on_stop: Callable[[], None] = lambda: None) -> int:
    """The loop of a dedicated worker process: ``run(stop, interval)`` until SIGTERM or SIGINT sets ``stop`` (and
    calls ``on_stop``, to cut a wait short), then ``close()``; exits 0."""
    print(f"{label} on {backend}, every {interval} s", flush=True)
    try:
        run_until_signalled(lambda stop: run(stop, interval), on_stop=on_stop)
    finally:
        close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torres_game", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply pending SQL migrations to DATABASE_URL (or the embedded SQLite)")
    run = sub.add_parser("serve", help="development server (embedded SQLite unless DATABASE_URL is set)")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    sub.add_parser("enforce", help="sweep clock deadlines (TORRES_ENFORCER_INTERVAL seconds apart) until stopped")
    sub.add_parser("sequence", help="integrate finished games into the transparency log and sign checkpoints")
    sub.add_parser("webhooks", help="deliver the webhook outbox (TORRES_WEBHOOK_INTERVAL seconds apart) until stopped")
    args = parser.parse_args(argv)
    configure_logging("torres_game")
    config = Config.from_env()
    if args.command == "migrate":
        return migrate(config)
    if args.command == "enforce":
        return enforce(config)
    if args.command == "sequence":
        return sequence(config)
    if args.command == "webhooks":
        return deliver_webhooks(config)
    return serve(config, args.host, args.port)


if __name__ == "__main__":
    sys.exit(main())

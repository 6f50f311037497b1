"""Configuration, structured logs, and the command line (migrate, serve)."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from torres_game.config import Config
from torres_service.logs import JsonFormatter

from .conftest import MIGRATIONS


def test_defaults_use_embedded_sqlite_and_generate_keys(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="torres_game.config"):
        config = Config.from_env({"TORRES_DATA_DIR": str(tmp_path)})
    assert config.backend == "sqlite" and config.database_url == f"sqlite:///{tmp_path / 'torres.sqlite3'}"
    assert len(config.api_key) >= 24 and config.api_key != config.admin_key
    assert sum("generated" in r.getMessage() for r in caplog.records) == 2
    assert Config.from_env({"TORRES_DATA_DIR": str(tmp_path)}).api_key != config.api_key  # random each start


def test_environment_overrides() -> None:
    config = Config.from_env({
        "DATABASE_URL": "postgresql://u@h/db", "TORRES_API_KEY": "k", "TORRES_ADMIN_KEY": "a",
        "SNAPSHOT_EVERY": "7", "TORRES_AI_DRIVER": "none", "DB_POOL_MAX": "9",
    })
    assert (config.backend, config.api_key, config.admin_key, config.snapshot_every, config.ai_driver,
            config.pool_max) == ("postgres", "k", "a", 7, "none", 9)


def test_json_log_lines_carry_extra_fields() -> None:
    record = logging.LogRecord("torres_game.x", logging.INFO, __file__, 1, "action applied", None, None)
    record.game_id = "g1"
    line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "action applied" and line["game_id"] == "g1" and line["level"] == "info"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(TORRES_DATA_DIR=str(tmp_path), TORRES_MIGRATIONS_DIR=str(MIGRATIONS), TORRES_API_KEY="cli-key")
    return env


def test_migrate_command(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "torres_game", "migrate"]
    first = subprocess.run(run, env=_env(tmp_path), capture_output=True, text=True, timeout=60, check=True)
    every = sorted(int(path.name[:4]) for path in (MIGRATIONS / "sqlite").glob("*.sql"))
    assert every[:6] == [1, 2, 3, 4, 5, 6]
    assert f"applied now {every}" in first.stdout and "pending none" in first.stdout
    again = subprocess.run(run, env=_env(tmp_path), capture_output=True, text=True, timeout=60, check=True)
    assert "applied now nothing" in again.stdout
    assert (tmp_path / "torres.sqlite3").exists()


def test_serve_prints_address_and_a_curl_example(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "torres_game", "serve", "--port", str(port)], env=_env(tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert server.stdout is not None
        text = ""
        for _ in range(12):  # the log lines of start-up, then the banner
            text += server.stdout.readline()
            if "X-API-Key" in text:
                break
        assert f"http://127.0.0.1:{port}" in text and "curl -s -X POST" in text and "X-API-Key: cli-key" in text
        for _ in range(50):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
                    assert json.loads(response.read())["status"] == "ready"
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the dev server never became ready")
    finally:
        server.terminate()
        server.wait(10)


def test_gunicorn_entry_point_builds_the_app(tmp_path: Path) -> None:
    env = {**_env(tmp_path), "TORRES_ADMIN_KEY": "a", "TORRES_AI_DRIVER": "none"}
    code = "from torres_game.wsgi import app; print(sorted(app.blueprints))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60,
                         check=True).stdout
    assert "games" in out and "ops" in out


@pytest.mark.parametrize(("variables", "unset"), [
    ({"TORRES_TENANTS_FILE": "tenants.json", "TORRES_ADMIN_KEY": "a"}, None),  # production: keys in the file
    ({"TORRES_API_KEY": "k", "TORRES_ADMIN_KEY": "a"}, None),  # one portal, no tenants file
    ({"TORRES_TENANTS_FILE": "tenants.json"}, "TORRES_ADMIN_KEY unset"),
    ({"TORRES_ADMIN_KEY": "a"}, "TORRES_API_KEY unset"),
])
def test_the_gunicorn_entry_point_logs_an_error_only_for_a_key_workers_would_each_generate(
        tmp_path: Path, variables: dict[str, str], unset: str | None) -> None:
    """Each worker generates its own value for a key left unset: an error names the one missing. With a tenants
    file the single API key is none of them (the file holds every key), so the documented production setup,
    a tenants file and the admin key, starts without one."""
    from torres_service import keys as keys_cli

    tenants = tmp_path / "tenants.json"
    keys_cli.run(keys_cli.parser().parse_args(["--file", str(tenants), "add-tenant", "portal"]))
    env = {k: v for k, v in _env(tmp_path).items() if k not in ("TORRES_API_KEY", "TORRES_ADMIN_KEY",
                                                                  "TORRES_TENANTS_FILE")}
    env |= {**{k: str(tmp_path / v) if k == "TORRES_TENANTS_FILE" else v for k, v in variables.items()},
            "TORRES_AI_DRIVER": "none", "TORRES_JSON_LOGS": "1"}
    done = subprocess.run([sys.executable, "-c", "import torres_game.wsgi"], env=env, capture_output=True,
                          text=True, timeout=60, check=True)
    assert not done.stderr.strip(), done.stderr
    errors = [doc["msg"] for doc in map(json.loads, done.stdout.splitlines()) if doc["level"] in ("error", "critical")]
    if unset is None:
        assert not errors, errors
    else:
        assert len(errors) == 1 and unset in errors[0], errors


def test_ai_driver_auto_uses_the_ai_workers_drivers_and_names_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    from torres_ai.driver import CeleryDriver
    from torres_game.ai_turns import BackgroundDriver, OutboxOnlyDriver, make_driver

    def bots_of(driver: object) -> str:  # whose ``decide`` an in-process driver plays with
        assert type(driver) is BackgroundDriver
        return driver.decide.__qualname__.split(".")[0]

    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert bots_of(make_driver("auto")) == "LevelBots"  # the AI worker's bots, in-process
    assert bots_of(make_driver("torres_ai.driver:from_env")) == "LevelBots"
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/13")
    assert isinstance(make_driver("auto"), CeleryDriver)
    assert bots_of(make_driver("thread")) == "random_decide"
    assert isinstance(make_driver("none"), OutboxOnlyDriver)
    with pytest.raises(ValueError, match="unknown AI driver"):
        make_driver("telepathy")


def test_the_service_logs_which_rules_engine_build_it_runs(tmp_path: Path) -> None:
    """torres_rules announces its build at first import, before any logging is set up; the app says it again."""
    import torres_rules as tr
    from torres_game.app import create_app

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("torres_game.http")
    logger.addHandler(handler)
    try:
        app = create_app(Config.from_env({"TORRES_DATA_DIR": str(tmp_path), "TORRES_MIGRATIONS_DIR": str(MIGRATIONS),
                                          "TORRES_AI_DRIVER": "none"}))
        app.extensions["torres_game"].close()  # its enforcer and sequencer threads stop with it
    finally:
        logger.removeHandler(handler)
    assert [r.engine_build for r in records if r.getMessage() == "rules engine loaded"] == [tr.ENGINE_BUILD]

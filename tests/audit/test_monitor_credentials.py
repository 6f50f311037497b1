"""``python -m torres_audit monitor --record`` on an honest private game (docs/audit.md section 13): the monitor
reads the record with the credentials it was given, and a 404 to a reader who may not read the game is "not
readable with these credentials", never "deleted". The game service is real (SQLite, served on loopback)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from game.conftest import API_KEY, SERVICE, make_config
from game.online_helpers import Clock
from serving import served
from werkzeug.serving import make_server

from torres_audit.note import Signer
from torres_game.app import create_app

from .conftest import service
from .games import Plan, play

SIGNER = Signer.generate("torres.test/games")
LOG = Signer.generate("torres.test/log")
PRIVATE = Plan(2, "rio_grande", abandon_after=6, visibility="private")


@dataclass(frozen=True)
class Served:
    url: str
    record: Path
    game_id: str


@pytest.fixture(scope="module")
def private_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A finished private game in a logged SQLite service served on loopback, its record kept by the portal."""
    tmp = tmp_path_factory.mktemp("monitor-credentials")
    app = create_app(make_config(f"sqlite:///{tmp / 'g.sqlite3'}", enforcer_interval=0, signing_key=SIGNER.skey(),
                                 log_signing_key=LOG.skey()))
    svc = service(app)
    clock = Clock()
    svc.clock.now = clock
    gid = play(svc, app.test_client(), clock, PRIVATE, seed=9)
    svc.translog.integrate_all()
    client = app.test_client()
    assert client.get(f"/v1/games/{gid}/record").status_code == 404  # private: hidden from anonymous readers
    kept = tmp / "kept.json"
    kept.write_bytes(client.get(f"/v1/games/{gid}/record", headers=SERVICE).data)
    try:
        with served(make_server("127.0.0.1", 0, app, threaded=True)) as url:
            yield Served(url, kept, gid)
    finally:
        svc.close()


def monitor(game: Served, tmp: Path, *args: str, env: dict[str, str] | None = None,
            ) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("TORRES_API_KEY", "TORRES_ADMIN_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "torres_audit", "monitor", "--state", str(tmp / "cp.txt"), "--url", game.url,
         "--key", LOG.verifier().vkey(), "--record", str(game.record), *args],
        capture_output=True, text=True, timeout=60, check=False, env={**clean, **(env or {})})


def test_without_credentials_a_private_game_is_not_readable_never_deleted(private_game: Served, tmp_path: Path) -> None:
    for args in ((), ("--api-key", "not-a-key-of-this-service")):
        done = monitor(private_game, tmp_path, *args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"game {private_game.game_id} is not readable with these credentials" in done.stderr, done.stderr
        assert "deleted" not in done.stderr and "INCONSISTENT" not in done.stderr, done.stderr
        assert not (tmp_path / "cp.txt").exists()  # nothing concluded, nothing kept


def test_with_the_portals_key_the_private_game_is_checked(private_game: Served, tmp_path: Path) -> None:
    done = monitor(private_game, tmp_path, "--api-key", API_KEY)
    assert done.returncode == 0 and done.stdout.endswith("OK\n"), done.stdout + done.stderr
    assert f"game {private_game.game_id}: head version" in done.stdout and "the service still serves it" in done.stdout
    again = monitor(private_game, tmp_path, env={"TORRES_API_KEY": API_KEY})  # the key from the environment
    assert again.returncode == 0 and "consistent with the checkpoint kept" in again.stdout, again.stderr

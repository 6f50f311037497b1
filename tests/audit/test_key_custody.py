"""Key custody (docs/audit.md, "Key custody"): the log's signing key lives in the sequencer process only. A web
process given the log's public key (TORRES_LOG_KEY) serves the log but cannot sign a checkpoint, and runs no
sequencer even when asked to; ``python -m torres_game sequence`` with the key signs, and the web process then
serves what it signed. Rotation with an overlap, and records signed by a retired key."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from game.conftest import MIGRATIONS, make_config
from game.online_helpers import Clock
from game.servers import ROOT
from polling import wait_until

from torres_audit.note import Signer, open_checkpoint
from torres_game.app import create_app
from torres_game.translog import LogKeyAbsent

from .conftest import service
from .games import Plan, play

RECORDS = Signer.generate("torres.test/games-custody")
LOG = Signer.generate("torres.test/log-custody")
SHORT = Plan(2, "rio_grande", abandon_after=12)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "torres_audit", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


@contextlib.contextmanager
def sequencer(url: str, skey: str, published: str = "") -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "DATABASE_URL": url, "TORRES_LOG_SIGNING_KEY": skey, "TORRES_LOG_PUBLISHED_KEYS": published,
           "TORRES_LOG_INTERVAL": "0.05", "TORRES_MIGRATIONS_DIR": str(MIGRATIONS), "LOG_LEVEL": "WARNING"}
    process = subprocess.Popen([sys.executable, "-m", "torres_game", "sequence"], env=env, cwd=ROOT,
                               stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        yield process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(20)


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_web_process_without_the_log_key_cannot_sign_and_the_sequencer_can(
        request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> None:
    url = (request.getfixturevalue("audit_pg_url") if backend == "postgres" else
           f"sqlite:///{tmp_path / 'custody.sqlite3'}")
    clock = Clock()
    # Asked for a sequencer thread (log_interval > 0), but given only the public key.
    web = create_app(make_config(url, enforcer_interval=0, signing_key=RECORDS.skey(),
                                 log_key=LOG.verifier().vkey(), log_interval=0.05))
    svc = service(web)
    svc.clock.now = clock
    try:
        assert svc.translog.signer is None and svc._sequencer is None
        gid = play(svc, web.test_client(), clock, SHORT, seed=700)
        with pytest.raises(LogKeyAbsent, match="only the sequencer signs checkpoints"):
            svc.translog.integrate()
        time.sleep(0.3)  # several of the intervals it was asked for: still nothing signed
        assert svc.store.log_pending() >= 1 and svc.store.log_checkpoint() is None
        assert web.test_client().get("/v1/audit/checkpoint").status_code == 404
        assert web.test_client().get("/.well-known/torres-audit-key").get_data(as_text=True).splitlines()[0] == \
            LOG.verifier().vkey()

        with sequencer(url, LOG.skey()):
            wait_until(lambda: svc.store.log_pending() == 0, 30, "the sequencer's integration", interval=0.05)
        note = web.test_client().get("/v1/audit/checkpoint").get_data(as_text=True)
        checkpoint, signed = open_checkpoint(note, [LOG.verifier()])
        assert checkpoint.size >= 1 and signed == [LOG.verifier()]
        record = tmp_path / "record.json"
        record.write_bytes(web.test_client().get(f"/v1/games/{gid}/record").data)
        out = cli("verify", str(record), "--key", RECORDS.verifier().vkey(), "--key", LOG.verifier().vkey())
        assert out.returncode == 0 and "ok    inclusion" in out.stdout, out.stdout
    finally:
        svc.close()


def test_rotation_with_an_overlap_and_a_record_signed_by_a_retired_key(tmp_path: Path) -> None:
    """The log's key: the new sequencer signs with the new key (same name, the origin) while the web processes
    publish both; checkpoints signed before stay verifiable by the old key. The record key: a record downloaded
    before the rotation carries the retired key's signature; a verifier that pinned the retired key still
    accepts it (a signature does not expire), one that dropped it refuses it and says which key signed."""
    url = f"sqlite:///{tmp_path / 'rotate.sqlite3'}"
    clock = Clock()
    new_log = Signer.generate(LOG.name)
    new_records = Signer.generate(RECORDS.name)
    old = create_app(make_config(url, enforcer_interval=0, signing_key=RECORDS.skey(), log_key=LOG.verifier().vkey()))
    service(old).clock.now = clock
    first = play(service(old), old.test_client(), clock, SHORT, seed=710)
    with sequencer(url, LOG.skey()):
        wait_until(lambda: service(old).store.log_pending() == 0, 30, "the old key's integration", interval=0.05)
    kept = tmp_path / "before.json"
    kept.write_bytes(old.test_client().get(f"/v1/games/{first}/record").data)
    size_before = service(old).store.log_checkpoint().tree_size  # type: ignore[union-attr]
    service(old).close()

    new = create_app(make_config(url, enforcer_interval=0, signing_key=new_records.skey(),
                                 log_key=new_log.verifier().vkey(), log_published_keys=(LOG.verifier().vkey(),)))
    service(new).clock.now = clock
    try:
        assert new.test_client().get("/.well-known/torres-audit-key").get_data(as_text=True).splitlines()[:2] == \
            [new_log.verifier().vkey(), LOG.verifier().vkey()]
        second = play(service(new), new.test_client(), clock, SHORT, seed=711)
        with sequencer(url, new_log.skey(), published=LOG.verifier().vkey()):
            wait_until(lambda: service(new).store.log_pending() == 0, 30, "the new key's integration", interval=0.05)
        latest = new.test_client().get("/v1/audit/checkpoint").get_data(as_text=True)
        assert open_checkpoint(latest, [new_log.verifier()])[0].size == size_before + 1
        older = new.test_client().get(f"/v1/audit/checkpoint?tree_size={size_before}").get_data(as_text=True)
        assert open_checkpoint(older, [LOG.verifier()])[0].size == size_before
        fresh = tmp_path / "after.json"
        fresh.write_bytes(new.test_client().get(f"/v1/games/{second}/record").data)
        both = ("--key", RECORDS.verifier().vkey(), "--key", new_records.verifier().vkey(),
                "--key", LOG.verifier().vkey(), "--key", new_log.verifier().vkey())
        for path in (kept, fresh):
            out = cli("verify", str(path), *both)
            assert out.returncode == 0, out.stdout
        dropped = cli("verify", str(kept), "--key", new_records.verifier().vkey(), "--key", LOG.verifier().vkey(),
                      "--key", new_log.verifier().vkey())
        assert dropped.returncode == 1 and "no signature by a trusted key" in dropped.stdout, dropped.stdout
        assert f"signed by: {RECORDS.name}+{RECORDS.verifier().key_id:08x}" in dropped.stdout
    finally:
        service(new).close()

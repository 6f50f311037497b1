"""The game service's log with witnesses: the sequencer gathers cosignatures and serves the checkpoint their
quorum cosigned; a witness that hangs does not stall it; and the split-view attack (a second service on a copy
of the database, one game rewritten, the log rebuilt and re-signed with the real key) cannot gather a quorum, so
the verifier and the monitor that require the witnesses refuse the forged branch, naming the missing ones."""

from __future__ import annotations

import contextlib
import json
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from game.conftest import make_config
from game.online_helpers import Clock
from game.servers import ROOT
from serving import served
from werkzeug.serving import make_server

from torres_audit.cosignature import Cosigner, WitnessPolicy
from torres_audit.note import Signer, parse_note
from torres_audit.witness import WitnessState
from torres_game.app import create_app

from .conftest import service
from .games import Plan, play
from .test_log_attacks import read_game, superuser, write_game
from .witnesses import witness_process

SIGNER = Signer.generate("torres.test/games-witnessed")
LOG = Signer.generate("torres.test/log-witnessed")
W1 = Cosigner.generate("witness.test/portal")
W2 = Cosigner.generate("witness.test/association")
SHORT = Plan(2, "rio_grande", abandon_after=12)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "torres_audit", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def witnessed_app(url: str, clock: Clock, *witnesses: str, **changes: object) -> Flask:
    app = create_app(make_config(url, enforcer_interval=0, signing_key=SIGNER.skey(), log_signing_key=LOG.skey(),
                                 log_witnesses=witnesses, **changes))
    service(app).clock.now = clock
    return app


def entry(cosigner: Cosigner, url: str) -> str:
    return f"{cosigner.key().vkey()}@{url}"


WITNESS_ARGS = ("--witness", W1.key().vkey(), "--witness", W2.key().vkey())


@contextlib.contextmanager
def http(app: Flask) -> Iterator[str]:
    with served(make_server("127.0.0.1", 0, app, threaded=True)) as base:
        yield base


@pytest.mark.postgres
def test_the_split_view_attack_cannot_gather_a_quorum(
        throwaway_database: Callable[..., contextlib.AbstractContextManager[str]], tmp_path: Path) -> None:
    clock = Clock()
    with (witness_process(tmp_path / "w1.sqlite3", W1, [LOG.verifier().vkey()]) as w1,
          witness_process(tmp_path / "w2.sqlite3", W2, [LOG.verifier().vkey()]) as w2,
          throwaway_database("torres_split_view") as url):
        witnesses = (entry(W1, w1.url), entry(W2, w2.url))
        app = witnessed_app(url, clock, *witnesses)
        svc = service(app)
        games = [play(svc, app.test_client(), clock, SHORT, seed=300 + i) for i in range(4)]
        svc.translog.integrate_all()
        assert svc.translog.witness() == 2
        honest_cp = app.test_client().get("/v1/audit/checkpoint").get_data(as_text=True)
        assert len(WitnessPolicy.of([W1.key().vkey(), W2.key().vkey()]).check(honest_cp)) == 2
        (tmp_path / "honest.cp").write_text(honest_cp)
        honest_record = tmp_path / "honest.json"
        honest_record.write_bytes(app.test_client().get(f"/v1/games/{games[1]}/record").data)
        ok = cli("verify", str(honest_record), "--key", SIGNER.verifier().vkey(), "--key", LOG.verifier().vkey(),
                 *WITNESS_ARGS)
        assert ok.returncode == 0 and "cosigned by 2 of 2 trusted witnesses (2 needed)" in ok.stdout, ok.stdout
        svc.close()

        with throwaway_database("torres_split_view_copy", template=url) as copy:
            # The operator's second service (a copy of the whole database): one game rewritten, the tree rebuilt
            # and re-signed with the real key.
            write_game(copy, games[1], read_game(copy, games[2]))
            superuser(copy, *[(f"DELETE FROM {table}", ()) for table in
                              ("log_cosignatures", "log_nodes", "log_checkpoints", "log_leaves")],
                      ("INSERT INTO log_leaves (game_id, version, head_hash, queued_at) SELECT game_id, version, "
                       "hash, created_at FROM events WHERE type = 'game_ended' ORDER BY game_id", ()))
            forged_app = witnessed_app(copy, clock, *witnesses)
            forged = service(forged_app)
            forged.translog.integrate_all()
            forged_note = forged.store.log_checkpoint()
            assert forged_note is not None and forged_note.note not in honest_cp
            assert forged.translog.witness() == 0  # both witnesses refuse
            answer = forged_app.test_client().get("/v1/audit/checkpoint")
            assert answer.status_code == 404 and answer.get_json()["code"] == "proof_unavailable"
            assert "cosigned by 2 of the log's 2 witnesses" in answer.get_json()["detail"]
            forged.close()
            for state in ("w1.sqlite3", "w2.sqlite3"):
                refusals = WitnessState(tmp_path / state).refusals(LOG.name)
                assert refusals and refusals[0][1] in ("fork", "inconsistent"), refusals
                assert "this witness cosigned size 4" in refusals[0][2] or "does not extend" in refusals[0][2]
            # A witness sent the forged checkpoint after the honest one says why it refuses.
            from torres_audit.witness import add_checkpoint_body
            status, _, body = w1.post(add_checkpoint_body(4, [], forged_note.note))
            assert status == 409 and json.loads(body)["code"] == "fork"
            assert "the log forked: this witness cosigned size 4" in json.loads(body)["detail"]

            # The operator serves the forged branch anyway, without witnesses: its log signature verifies...
            bare = create_app(make_config(copy, enforcer_interval=0, signing_key=SIGNER.skey(),
                                          log_signing_key=LOG.skey()))
            service(bare).clock.now = clock
            forged_record = tmp_path / "forged.json"
            forged_record.write_bytes(bare.test_client().get(f"/v1/games/{games[1]}/record").data)
            plain = cli("verify", str(forged_record), "--key", SIGNER.verifier().vkey(), "--key",
                        LOG.verifier().vkey())
            assert plain.returncode == 0, plain.stdout  # the log's key alone cannot tell the branches apart
            # ...but a verifier that requires the witnesses refuses it and names the missing ones,
            out = cli("verify", str(forged_record), "--key", SIGNER.verifier().vkey(), "--key",
                      LOG.verifier().vkey(), *WITNESS_ARGS)
            assert out.returncode == 1, out.stdout
            assert ("the record's checkpoint is not witnessed: cosigned by 0 of the 2 trusted witnesses, 2 needed; "
                    "missing: witness.test/portal, witness.test/association") in out.stdout
            # so does one that saw the honest branch (the checkpoint it kept),
            out = cli("verify", str(forged_record), "--key", SIGNER.verifier().vkey(), "--key",
                      LOG.verifier().vkey(), "--checkpoint", str(tmp_path / "honest.cp"))
            assert out.returncode == 1 and "two different histories" in out.stdout, out.stdout
            # and the monitor that kept the honest checkpoint, with or without the witnesses.
            with http(bare) as base:
                for extra in (WITNESS_ARGS, ()):
                    (tmp_path / "kept.cp").write_text(honest_cp)
                    mon = cli("monitor", "--state", str(tmp_path / "kept.cp"), "--url", base, "--key",
                              LOG.verifier().vkey(), *extra)
                    assert mon.returncode == 1, mon.stderr
                    assert ("is not witnessed: cosigned by 0 of the 2 trusted witnesses" in mon.stderr if extra
                            else "the log forked" in mon.stderr), mon.stderr
            service(bare).close()

        # The honest log goes on, cosigned by both.
        app = witnessed_app(url, clock, *witnesses)
        svc = service(app)
        play(svc, app.test_client(), clock, SHORT, seed=310)
        svc.translog.integrate_all()
        assert svc.translog.witness() == 2
        with http(app) as base:
            mon = cli("monitor", "--state", str(tmp_path / "honest.cp"), "--url", base, "--key",
                      LOG.verifier().vkey(), *WITNESS_ARGS, "--quorum", "1")
            assert mon.returncode == 0, mon.stderr
            assert "cosigned by 2 of 2 trusted witnesses (1 needed)" in mon.stdout
        svc.close()


class Hanging(socketserver.BaseRequestHandler):
    """A witness that accepts the connection and never answers (until the test ends)."""

    release = threading.Event()

    def handle(self) -> None:
        self.release.wait(60)


def test_a_hanging_or_dead_witness_does_not_stall_the_log(tmp_path: Path) -> None:
    clock = Clock()
    hang = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Hanging)
    hang.daemon_threads = True
    dead = Cosigner.generate("witness.test/dead")
    with (witness_process(tmp_path / "w1.sqlite3", W1, [LOG.verifier().vkey()]) as w1, served(hang) as hanging):
        try:
            app = witnessed_app(f"sqlite:///{tmp_path / 'log.sqlite3'}", clock, entry(W1, w1.url),
                                entry(W2, hanging), entry(dead, "http://127.0.0.1:9"), log_witness_quorum=1,
                                log_witness_timeout=0.5)
            svc = service(app)
            sizes = []
            for i in range(3):
                play(svc, app.test_client(), clock, SHORT, seed=400 + i)
                svc.translog.integrate_all()
                began = time.monotonic()
                assert svc.translog.witness() == 1  # the live one; the hanging and the dead one are skipped
                assert time.monotonic() - began < 0.5 + 1.5, "a witness round waited past its deadline"
                note = app.test_client().get("/v1/audit/checkpoint").get_data(as_text=True)
                sizes.append(int(parse_note(note).text.split("\n")[1]))
                assert [s.name for s in parse_note(note).signatures] == [LOG.name, W1.name]
            assert sizes == [1, 2, 3]
            svc.close()
        finally:
            Hanging.release.set()

"""Every complete game yields a record the standalone verifier accepts, on both backends, and a
running game's record verifies for each reader; a few through the real command line."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from game.conftest import ADMIN, SERVICE
from game.online_helpers import Clock

import torres_rules as tr
from torres_audit import merkle
from torres_audit.note import Checkpoint, Signer
from torres_audit.record import head_text, inclusion_json
from torres_audit.verify import FAIL, OK, SKIP, WARN, verify_record
from torres_game.access import Credentials
from torres_game.translog import wait_for_sequencer

from .conftest import service
from .games import PLANS, play

#: Which lifecycle events each plan must have produced, so no test passes by never exercising its feature.
EXPECTED = {
    "clock-forfeit-4": "timed_out", "clock-ai-turn-3": "timed_out", "clock-ai-game-2": "timed_out",
    "resign-4": "resigned", "resign-2": "resigned", "abandoned-3": "abandoned",
}


def fetch(app: Flask, gid: str, headers: dict[str, str] | None = None, query: str = "") -> dict[str, Any]:
    response = app.test_client().get(f"/v1/games/{gid}/record{query}", headers=headers or {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def statuses(report: Any) -> dict[str, str]:
    return {check.name: check.status for check in report.checks}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_every_complete_game_yields_a_record_the_verifier_accepts(audit_app: Flask, clock: Clock, name: str) -> None:
    svc = service(audit_app)
    gid = play(svc, audit_app.test_client(), clock, PLANS[name], seed=sum(map(ord, name)))
    svc.translog.integrate_all()  # or the sequencer thread does: wait until nothing is pending
    wait_for_sequencer(svc.store)
    record = fetch(audit_app, gid)
    checkpoint = audit_app.test_client().get("/v1/audit/checkpoint").get_data(as_text=True)
    report = verify_record(record, keys=[svc.signer.verifier(), *svc.translog.keys], checkpoint=checkpoint)
    assert report.ok, report.text()
    assert statuses(report) == {"format": OK, "chain": OK, "head": OK, "signature": OK, "seed": OK, "replay": OK,
                                "result": OK, "inclusion": OK}
    types = Counter(event["type"] for event in record["events"])
    assert types["game_ended"] == 1 and record["status"] == "over" and record["seed"] is not None
    if name in EXPECTED:
        assert types[EXPECTED[name]] >= 1, types
    if PLANS[name].p_undo:
        assert types["action_undone"] >= 1, types
    assert audit_app.test_client().get(f"/v1/games/{gid}/verify").get_json()["ok"] is True  # the service agrees
    # Without a pinned key the record's own key is used, and the report says so.
    unpinned = verify_record(record)
    assert unpinned.ok and statuses(unpinned)["signature"] == WARN


def test_a_running_games_record_verifies_for_every_reader(sqlite_app: Flask, clock: Clock) -> None:
    """Admin (every payload, no seed), each seat (its own secrets), a spectator (public facts): the withheld
    payloads are replaced by their content hashes, so the chain and the signature still verify."""
    svc = service(sqlite_app)
    plan = PLANS["rio_grande-2"]  # personal decks: keep_card, the hidden action
    client = sqlite_app.test_client()
    game = client.post("/v1/games", json={**plan.body(), "seats": [{"kind": "human", "player_id": f"p{i}"}
                                                                    for i in range(3)]},
                       headers=SERVICE).get_json()
    gid = game["game_id"]
    rng = random.Random(3)
    withheld = 0
    while withheld < 2 or svc.games.current(gid).version < 60:
        folded = svc.games.current(gid)
        assert not folded.over
        seat = folded.to_move
        action = rng.choice(tr.legal_actions(folded.state))
        svc.commands.submit_action(gid, Credentials(token=game["seats"][seat]["token"]), seat=seat, action=action,
                          expected_version=folded.version, command_id=f"c{folded.version}")
        withheld = sum(e.type == "action_applied" and e.payload["action"]["type"] == "keep_card"
                       for e in svc.store.read(gid))
    readers = {"admin": (ADMIN, ""), "spectator": ({}, "")}
    readers |= {f"seat {s}": ({"Authorization": f"Bearer {game['seats'][s]['token']}"}, "") for s in range(3)}
    for who, (headers, query) in readers.items():
        record = fetch(sqlite_app, gid, headers, query)
        assert record["status"] == "active" and record["seed"] is None and record["result"] is None
        hidden = [e for e in record["events"] if e.get("redacted")]
        if who == "admin":
            assert record["reader"] == {"kind": "full"} and not hidden
        else:
            assert hidden, who
            assert all("salt" not in e["payload"] and "order" not in e["payload"]["action"] for e in hidden)
        report = verify_record(record, keys=[svc.signer.verifier()])
        assert report.ok, (who, report.text())
        assert statuses(report) == {"format": OK, "chain": OK, "head": OK, "signature": OK, "seed": SKIP,
                                    "replay": SKIP, "result": SKIP, "inclusion": SKIP}


def transparency_log(record: dict[str, Any], others: int, log: Signer) -> tuple[dict[str, Any], str]:
    """A stand-in for the transparency log (not built yet): ``others`` heads of other games, then this game's;
    returns the record with its inclusion member, and a checkpoint of the same tree."""
    head = head_text(record["game_id"], record["head"]["version"], record["head"]["hash"], record["status"])
    leaves = [head_text(f"other-{i}", 100 + i, f"{i:064x}", "over").encode() for i in range(others)]
    leaves.append(head.encode())
    checkpoint = Checkpoint(log.name, len(leaves), merkle.root(leaves)).sign(log)
    inclusion = inclusion_json(log_key=log.verifier().vkey(), leaf_index=others, tree_size=len(leaves),
                               proof=merkle.inclusion_proof(others, leaves), checkpoint=checkpoint)
    return {**record, "inclusion": inclusion}, checkpoint


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "torres_audit", "verify", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_command_line_verifies_records_and_refuses_a_forged_one(sqlite_app: Flask, clock: Clock,
                                                                      tmp_path: Path) -> None:
    svc = service(sqlite_app)
    log = Signer.generate("torres.test/log")
    vkey = svc.signer.verifier().vkey()
    for name in ("ravensburger-3-master", "clock-forfeit-4"):
        gid = play(svc, sqlite_app.test_client(), clock, PLANS[name], seed=11)
        record, checkpoint = transparency_log(fetch(sqlite_app, gid), 12, log)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(record))
        (tmp_path / "cp.txt").write_text(checkpoint)
        done = run_cli(str(path), "--key", vkey, "--key", log.verifier().vkey(), "--checkpoint",
                       str(tmp_path / "cp.txt"))
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.rstrip().endswith("VERIFIED"), done.stdout
        for check in ("chain", "signature", "seed", "replay", "result", "inclusion"):
            assert f"  ok    {check}" in done.stdout, done.stdout
        as_json = json.loads(run_cli(str(path), "--json").stdout)
        assert as_json["ok"] is True and as_json["first_problem"] is None
    # One flipped payload value: refused, exit 1, the problem and its version named.
    record["events"][5]["payload"]["seat"] = 1 - record["events"][5]["payload"].get("seat", 0)
    path.write_text(json.dumps(record))
    done = run_cli(str(path), "--key", vkey, "--key", log.verifier().vkey())
    assert done.returncode == 1
    assert "REFUSED at version 6: hash mismatch" in done.stdout and "FAIL  chain" in done.stdout
    # A key that is not a vkey, a missing file: the command cannot run (exit 2).
    assert run_cli(str(path), "--key", "not-a-key").returncode == 2
    assert run_cli(str(tmp_path / "missing.json")).returncode == 2


def test_a_checkpoint_of_another_size_or_root_is_refused(sqlite_app: Flask, clock: Clock) -> None:
    svc = service(sqlite_app)
    log = Signer.generate("torres.test/log")
    keys = [svc.signer.verifier(), log.verifier()]
    gid = play(svc, sqlite_app.test_client(), clock, PLANS["rio_grande-2"], seed=5)
    record, checkpoint = transparency_log(fetch(sqlite_app, gid), 5, log)
    assert verify_record(record, keys=keys, checkpoint=checkpoint).ok
    bigger = Checkpoint(log.name, 7, merkle.root([b"x"] * 7)).sign(log)
    report = verify_record(record, keys=keys, checkpoint=bigger)
    assert statuses(report)["inclusion"] == FAIL and "fetch a proof for size 7" in report.text()
    forked = Checkpoint(log.name, 6, merkle.root([b"y"] * 6)).sign(log)
    report = verify_record(record, keys=keys, checkpoint=forked)
    assert "two different histories" in report.text()
    assert statuses(verify_record({**record, "inclusion": None}, keys=keys, checkpoint=checkpoint))["inclusion"] \
        == FAIL


def test_the_signing_key_comes_from_torres_signing_key(tmp_path: Path) -> None:
    """TORRES_SIGNING_KEY (an skey, as python -m torres_audit keygen prints it) signs every record; an
    unreadable one stops the service at start, never signing with a key nobody published."""
    from game.conftest import make_config

    from torres_game.app import create_app
    from torres_game.config import Config

    signer = Signer.generate("games.example.org/2026")
    config = Config.from_env({"TORRES_SIGNING_KEY": signer.skey(), "TORRES_DATA_DIR": str(tmp_path)})
    assert config.signing_key == signer.skey()
    app = create_app(make_config(f"sqlite:///{tmp_path / 'k.sqlite3'}", signing_key=signer.skey()))
    try:
        client = app.test_client()
        gid = client.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]},
                          headers=SERVICE).get_json()["game_id"]
        record = fetch(app, gid)
        assert record["signature"]["key"] == signer.verifier().vkey()
        assert verify_record(record, keys=[signer.verifier()]).ok
    finally:
        service(app).close()
    with pytest.raises(ValueError, match="signing key"):
        create_app(make_config(f"sqlite:///{tmp_path / 'bad.sqlite3'}", signing_key="PRIVATE+KEY+x+00+AAAA"))


def test_the_log_has_a_key_of_its_own(tmp_path: Path) -> None:
    """The record key never signs the log (docs/audit.md section 9): given as both keys, the service refuses to
    start; without TORRES_LOG_SIGNING_KEY the log signs with a key of its process, not the record key, and the
    well-known URL lists the log's key first, the record key after it."""
    from game.conftest import make_config

    from torres_game.app import create_app

    signer = Signer.generate("games.example.org/2026")
    with pytest.raises(ValueError, match="TORRES_LOG_SIGNING_KEY is TORRES_SIGNING_KEY"):
        create_app(make_config(f"sqlite:///{tmp_path / 'same.sqlite3'}", signing_key=signer.skey(),
                               log_signing_key=signer.skey()))
    app = create_app(make_config(f"sqlite:///{tmp_path / 'own.sqlite3'}", signing_key=signer.skey()))
    try:
        svc = service(app)
        assert svc.translog.keys[0] != signer.verifier() and svc.translog.origin == "torres.invalid/dev-log"
        published = app.test_client().get("/.well-known/torres-audit-key").get_data(as_text=True).split("\n")
        assert published == [svc.translog.keys[0].vkey(), signer.verifier().vkey(), ""]
    finally:
        service(app).close()

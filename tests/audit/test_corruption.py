"""Kinds of corruption of a record file, each refused with a message naming the problem and its version.

The forgeries go from careless (a flipped byte) to an insider's: the chain recomputed and the head re-signed
with the service's own key. The chain and the signature stop the first kind; only the replay stops the second,
which is the point of the audit: an operator who controls the database and the key still cannot make an
illegal game, a wrong score or a re-dealt deck verify.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from game.conftest import make_config
from game.online_helpers import Clock

from torres_audit.chain import GENESIS_HASH, chain_hash, content_hash
from torres_audit.note import Signer
from torres_audit.record import parse, sign_head
from torres_audit.verify import verify_record, verify_text
from torres_game.app import create_app
from torres_online.events import seed_commitment
from torres_online.lifecycle import format_time, parse_time

from .conftest import service
from .games import CLOCK, Plan, play
from .test_records import fetch, transparency_log

#: A game with everything a forger could touch: clocks, a timeout, a resignation, undos, hidden cards (personal
#: decks: not the master version, which plays with open hands).
EVERYTHING = Plan(4, "rio_grande", clock=CLOCK, timeout={"policy": "forfeit"}, timeout_at=30,
                  resign_at=60, p_undo=0.05, prefer="buy_card")


FEATURES = {"timed_out", "resigned", "action_undone", "keep_card", "automatic pass"}


def features(events: Any) -> set[str]:
    out = {e.type for e in events}
    out |= {e.payload["action"]["type"] for e in events if e.type == "action_applied"}
    return out | ({"automatic pass"} if any(e.payload.get("auto") for e in events) else set())


@dataclass
class Game:
    record: dict[str, Any]
    other: dict[str, Any]  # a second game's record, for swaps
    signer: Signer  # the service's key: an insider forger has it
    log: Signer

    def version_of(self, predicate: Callable[[dict[str, Any]], bool], after: int = 0) -> int:
        return next(e["version"] for e in self.record["events"] if e["version"] > after and predicate(e))


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Game]:
    clock = Clock()
    app: Flask = create_app(make_config(f"sqlite:///{tmp_path_factory.mktemp('corrupt') / 'g.sqlite3'}",
                                        enforcer_interval=0, log_interval=0))  # no sequencer: its own log
    svc = service(app)
    svc.clock.now = clock
    for attempt in range(20):  # the service deals at random: play until one game has every forgery's target
        gid = play(svc, app.test_client(), clock, EVERYTHING, seed=28 + attempt)
        if features(svc.store.read(gid)) >= FEATURES:
            break
    else:
        raise AssertionError(f"no game had all of {FEATURES}: {features(svc.store.read(gid))}")
    other = play(svc, app.test_client(), clock, Plan(2, "yucata"), seed=29)
    yield Game(fetch(app, gid), fetch(app, other), svc.signer, Signer.generate("torres.test/log"))
    svc.close()


def rechain(record: dict[str, Any], signer: Signer | None = None) -> dict[str, Any]:
    """Recompute every event's hash and the head, as a forger who rewrites the database would; with ``signer``
    (the insider's case) the head is signed again too."""
    prev = GENESIS_HASH
    for number, event in enumerate(record["events"], start=1):
        event["version"] = number
        content = content_hash(game_id=record["game_id"], version=number, type=event["type"],
                               payload=event["payload"], schema_version=event["schema_version"],
                               created_at=event["created_at"], command_id=event["command_id"])
        event["prev_hash"], event["hash"] = prev, chain_hash(prev, content)
        prev = event["hash"]
    last = record["events"][-1]
    record["head"] = {"version": last["version"], "hash": last["hash"]}
    if signer is not None:
        record["signature"] = sign_head(signer, record["game_id"], last["version"], last["hash"], record["status"])
    return record


def event(record: dict[str, Any], version: int) -> dict[str, Any]:
    return record["events"][version - 1]


def is_turn_action(e: dict[str, Any]) -> bool:
    return e["type"] == "action_applied" and not e["payload"].get("auto") and e["payload"]["action"]["type"] in (
        "place_knight", "move_knight", "build", "advance_track", "end_turn")


# -- the corruptions: each takes the game and returns (the record file's text, version, words of the reason) --

def flipped_byte(g: Game) -> tuple[str, int, str]:
    text = json.dumps(g.record)
    target = event(g.record, 20)["hash"]
    at = text.index(f'"hash": "{target}"') + len('"hash": "') + 7
    flipped = text[:at] + ("0" if text[at] != "0" else "1") + text[at + 1:]
    return flipped, 20, "hash mismatch"


def reordered_events(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    r["events"][9], r["events"][10] = r["events"][10], r["events"][9]
    return r, 10, "version gap: found 11 where 10 was expected"


def missing_event(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    del r["events"][14]
    return r, 15, "version gap: found 16 where 15 was expected"


def wrong_seed(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    r["seed"] = str(int(r["seed"]) + 1)
    return r, 1, "does not match the commitment"


def illegal_action_rechained(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    v = g.version_of(is_turn_action, after=20)
    event(r, v)["payload"]["action"] = {"type": "place_king", "at": "D4"}  # a setup action in the middle of a turn
    return rechain(r), v, "illegal action"


def wrong_final_score_insider(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    last = r["events"][-1]
    last["payload"]["scores"][0] += 1
    r["result"] = copy.deepcopy(last["payload"])
    return rechain(r, g.signer), last["version"], "game_ended says"


def bad_signature(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    note = r["signature"]["note"]
    at = note.rindex(" ") + 20
    r["signature"]["note"] = note[:at] + ("A" if note[at] != "A" else "B") + note[at + 1:]
    return r, r["head"]["version"], "the signature over the head does not verify"


def wrong_proof(g: Game) -> tuple[dict[str, Any], int, str]:
    r, _ = transparency_log(copy.deepcopy(g.record), 9, g.log)
    r["inclusion"]["proof"][1] = r["inclusion"]["proof"][0]
    return r, r["head"]["version"], "the inclusion proof does not verify"


def edited_timestamp(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    e = event(r, 33)
    e["created_at"] = format_time(parse_time(e["created_at"]) + timedelta(microseconds=1))
    return r, 33, "hash mismatch"


def move_after_its_deadline_insider(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    v = g.version_of(is_turn_action, after=10)
    e = event(r, v)
    e["created_at"] = format_time(parse_time(e["created_at"]) + timedelta(hours=2))
    return rechain(r, g.signer), v, "after its deadline"


def timeout_before_the_deadline_insider(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    v = g.version_of(lambda e: e["type"] == "timed_out")
    e = event(r, v)
    e["created_at"] = format_time(parse_time(e["payload"]["deadline"]) - timedelta(seconds=10))
    return rechain(r, g.signer), v, "before the deadline"


def truncated_game(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    del r["events"][-20:]
    # Either the head (it names version 190) or the replay (a pass owed after the cut) speaks first.
    return r, r["events"][-1]["version"], "the head says version|had to follow it"


def truncated_still_claiming_the_end_insider(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    del r["events"][-20:]
    words = "the record says the game is over, but its last event|had to follow it"
    return rechain(r, g.signer), r["events"][-1]["version"], words


def swapped_games(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.other)
    r["game_id"] = g.record["game_id"]
    return r, 1, "hash mismatch"


def redealt_with_another_seed_insider(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    seed = str(int(r["seed"]) ^ 0x5EED)
    r["seed"] = seed
    event(r, 1)["payload"]["seed_commitment"] = seed_commitment(int(seed))
    r["creation"] = copy.deepcopy(event(r, 1)["payload"])
    r["events"][-1]["payload"]["seed"] = seed
    r["result"] = copy.deepcopy(r["events"][-1]["payload"])
    return rechain(r, g.signer), -1, ""  # some move of the old deal is illegal in the new one: checked below


def event_after_the_end(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    extra = copy.deepcopy(event(r, 20))
    r["events"].append(extra)
    return rechain(r, g.signer), len(r["events"]), "event after game_ended"


def unknown_payload_member(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    event(r, 12)["payload"]["comment"] = "gg"
    return rechain(r, g.signer), 12, "unknown members comment"


def wrong_seat(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    v = g.version_of(is_turn_action, after=8)
    payload = event(r, v)["payload"]
    payload["seat"] = (payload["seat"] + 1) % 4
    return rechain(r, g.signer), v, "was to move"


def forged_undo(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    v = g.version_of(is_turn_action, after=40)
    e = event(r, v)
    e["type"], e["payload"] = "action_undone", {"seat": e["payload"]["seat"], "undone_version": 2}
    return rechain(r, g.signer), v, "undo of version 2"


def withheld_payload_in_a_full_record(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    v = g.version_of(lambda e: e["type"] == "action_applied" and e["payload"]["action"]["type"] == "keep_card")
    e = event(r, v)
    e["content_hash"] = content_hash(game_id=r["game_id"], version=v, type=e["type"], payload=e["payload"],
                                     schema_version=1, created_at=e["created_at"], command_id=e["command_id"])
    e["redacted"], e["payload"] = True, {"seat": e["payload"]["seat"], "action": {"type": "keep_card"},
                                         "redacted": True}
    return r, v, "a full record withholds"


def repeated_member(g: Game) -> tuple[str, int, str]:
    text = json.dumps(g.record)
    return '{"seed": "1", ' + text[1:], 0, "appears twice"


def signed_by_another_key(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    forger = Signer.generate(g.signer.name)  # even the same key name
    r["signature"] = sign_head(forger, r["game_id"], r["head"]["version"], r["head"]["hash"], r["status"])
    return r, r["head"]["version"], "no signature by a trusted key"


def edited_result(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    r["result"]["rated"] = not r["result"]["rated"]
    return r, r["head"]["version"], "is not the one game_ended records"


def pass_that_was_not_owed(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    v = g.version_of(is_turn_action, after=5)
    event(r, v)["payload"]["auto"] = "forfeit"
    return rechain(r, g.signer), v, "which has not left the game"


def resigned_seat_keeps_playing(g: Game) -> tuple[dict[str, Any], int, str]:
    r = copy.deepcopy(g.record)
    v = g.version_of(lambda e: e["type"] == "action_applied" and e["payload"].get("auto") == "forfeit")
    del event(r, v)["payload"]["auto"]
    return rechain(r, g.signer), v, "automatic pass had to follow"


CORRUPTIONS: dict[str, Callable[[Game], tuple[Any, int, str]]] = {
    f.__name__.replace("_", " "): f for f in (
        flipped_byte, reordered_events, missing_event, wrong_seed, illegal_action_rechained,
        wrong_final_score_insider, bad_signature, wrong_proof, edited_timestamp, move_after_its_deadline_insider,
        timeout_before_the_deadline_insider, truncated_game, truncated_still_claiming_the_end_insider, swapped_games,
        redealt_with_another_seed_insider, event_after_the_end, unknown_payload_member, wrong_seat, forged_undo,
        withheld_payload_in_a_full_record, repeated_member, signed_by_another_key, edited_result,
        pass_that_was_not_owed, resigned_seat_keeps_playing,
    )
}


def test_the_uncorrupted_record_verifies(game: Game) -> None:
    record, _ = transparency_log(copy.deepcopy(game.record), 9, game.log)
    report = verify_record(record, keys=[game.signer.verifier(), game.log.verifier()])
    assert report.ok, report.text()
    assert features(parse(game.record).events) >= FEATURES  # every forgery below has its target


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_each_corruption_is_refused_naming_the_problem_and_its_version(game: Game, kind: str, tmp_path: Path) -> None:
    corrupted, version, words = CORRUPTIONS[kind](game)
    text = corrupted if isinstance(corrupted, str) else json.dumps(corrupted)
    report = verify_text(text, keys=[game.signer.verifier(), game.log.verifier()])
    assert not report.ok, f"{kind}: accepted\n{report.text()}"
    first = report.first_problem
    assert first is not None
    out = report.text()
    assert f"REFUSED at version {first.version}: {first.reason}" in out
    if kind == "redealt with another seed insider":
        failed = {c.name for c in report.checks if c.status == "FAIL"}
        assert failed == {"replay"}, out  # the chain and the insider's signature hold; the rules do not
        assert first.version > 1, out
        return
    assert first.version == version, f"{kind}: expected version {version}\n{out}"
    assert any(choice in first.reason for choice in words.split("|")), f"{kind}: expected {words!r}\n{out}"

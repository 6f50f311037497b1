"""The verifier holds a record to the specification's exact equality (docs/audit.md, sections 2, 4 and 6.3) and
answers every input with a report.

The records here are forgeries by someone who holds the service's signing key (the test vectors' published test
key): each changes a value into an equal-looking one of another type (``1`` for ``true``, ``60`` for ``60.0``,
``false`` for ``0``), re-hashes the chain and re-signs the head, so only the equality itself stands between the
forgery and "VERIFIED". Then hypothesis throws arbitrary values and bytes at the command line.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torres_audit.__main__ import main
from torres_audit.chain import GENESIS_HASH, chain_hash, content_hash
from torres_audit.note import Verifier
from torres_audit.record import sign_head
from torres_audit.verify import verify_record, verify_text

from .spec_vectors import GAME_KEY, LOG_KEY, OUT

KEYS = [GAME_KEY.verifier(), LOG_KEY.verifier()]


def vector() -> dict[str, Any]:
    return dict(json.loads((OUT / "record.json").read_text(encoding="utf-8")))


def resigned(record: dict[str, Any]) -> dict[str, Any]:
    """The record as a forger holding the service's key makes it: every chain hash recomputed from the (altered)
    events, the head re-signed, the log's proof dropped (a record without one is allowed)."""
    prev = GENESIS_HASH
    for event in record["events"]:
        event["prev_hash"] = prev
        event["hash"] = prev = chain_hash(prev, content_hash(
            game_id=record["game_id"], version=event["version"], type=event["type"], payload=event["payload"],
            schema_version=event["schema_version"], created_at=event["created_at"], command_id=event["command_id"]))
    last = record["events"][-1]
    record["head"] = {"version": last["version"], "hash": last["hash"]}
    record["signature"] = sign_head(GAME_KEY, record["game_id"], last["version"], last["hash"], record["status"])
    record["inclusion"] = None
    return record


def refused_at(record: dict[str, Any], version: int, words: str) -> None:
    report = verify_record(record, keys=KEYS)
    first = report.first_problem
    assert not report.ok and first is not None, report.text()
    assert first.version == version and words in first.reason, report.text()


def test_the_untouched_forgery_verifies() -> None:
    """The re-signing itself changes nothing: what the tests below refuse, they refuse for the value changed."""
    report = verify_record(resigned(vector()), keys=KEYS)
    assert report.ok, report.text()


def test_a_result_that_says_rated_1_is_not_the_game_ended_payload_that_says_true() -> None:
    record = resigned(vector())
    record["result"]["rated"] = 1
    refused_at(record, 12, "the record's result")


def test_a_game_ended_with_rated_1_or_float_scores_is_not_the_result_the_fold_gives() -> None:
    for name, value in (("rated", 1), ("scores", [0.0, 0.0]), ("winner", False)):
        record = vector()
        record["events"][-1]["payload"][name] = value
        record["result"] = record["events"][-1]["payload"]
        refused_at(resigned(record), 12, "the fold gives")


def test_a_creation_member_with_60_is_not_event_1_with_60_0() -> None:
    record = vector()
    assert record["creation"]["online"]["clock"]["turn_seconds"] == 60.0
    record["creation"]["online"]["clock"]["turn_seconds"] = 60
    refused_at(resigned(record), 1, "creation parameters are not its game_created payload")


def test_a_seat_written_false_is_not_seat_0() -> None:
    record = vector()
    for doc in (record["creation"], record["events"][0]["payload"]):
        doc["seats"][0]["seat"] = False
    refused_at(resigned(record), 1, "game_created seat 0 is not")


def test_undone_version_5_0_is_not_version_5() -> None:
    record = vector()
    undo = record["events"][5]
    assert undo["type"] == "action_undone" and undo["payload"]["undone_version"] == 5
    undo["payload"]["undone_version"] = 5.0
    refused_at(resigned(record), 6, "undo of version 5.0")


def test_settings_of_another_type_are_refused_not_folded() -> None:
    """``undo: 1`` would switch undo on like ``true``; seconds as text would crash a deadline's arithmetic."""
    for path, value in ((("undo",), 1), (("clock", "turn_seconds"), "60"), (("clock", "turn_seconds"), True),
                        (("clock", "bank_seconds"), 1e300), (("timeout", "policy"), "FORFEIT")):
        record = vector()
        for doc in (record["creation"], record["events"][0]["payload"]):
            target = doc["online"]
            for name in path[:-1]:
                target = target[name]
            target[path[-1]] = value
        refused_at(resigned(record), 1, "game_created's")


@pytest.mark.parametrize("spelling", ["6e1", "60.00", "6.0e1", "60.0e0"])
def test_a_number_not_in_its_canonical_text_is_refused(spelling: str) -> None:
    """``6e1`` reads back as the 60.0 the chain hashed, but a verifier keeping each number's text (the web client)
    hashes ``6e1``: both must refuse the record, or a record verifies for one verifier and not the other."""
    text = (OUT / "record.json").read_text(encoding="utf-8")
    assert text.count('"turn_seconds": 60.0') == 2  # the creation member and event 1
    report = verify_text(text.replace('"turn_seconds": 60.0', f'"turn_seconds": {spelling}'), keys=KEYS)
    assert not report.ok and report.first_problem is not None, report.text()
    assert f"the number {spelling} is not written in its canonical form (60.0)" in report.first_problem.reason


def test_minus_zero_and_an_overlong_integer_are_refused() -> None:
    for number in ("-0", "1" * 5000, "1e400"):
        report = verify_text(f'{{"format": {number}}}')
        assert not report.ok and "canonical form" in report.text(), report.text()


def run_cli(data: bytes, tmp: Path) -> tuple[int, str]:
    """``python -m torres_audit verify`` in this process (hypothesis runs it hundreds of times)."""
    path = tmp / "record.json"
    path.write_bytes(data)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["verify", str(path), "--key", GAME_KEY.verifier().vkey(), "--key", LOG_KEY.verifier().vkey()])
    return code, out.getvalue()


def assert_reported(code: int, text: str) -> None:
    """A verdict, and one the verifier reached by its checks: its last-resort guard (a report naming an internal
    failure, for an input nobody foresaw) must never be what answered."""
    assert code in (0, 1), text
    assert text.endswith("VERIFIED\n") or "\nREFUSED at version " in text, text
    assert "FAIL  internal" not in text, text


def test_a_lone_surrogate_is_a_report_not_a_traceback(tmp_path: Path) -> None:
    text = (OUT / "record.json").read_text(encoding="utf-8").replace('"player_id": "alice"',
                                                                     '"player_id": "\\ud800"')
    code, out = run_cli(text.encode(), tmp_path)
    assert_reported(code, out)
    assert code == 1 and "REFUSED at version 0: the record holds a lone surrogate" in out, out
    path = tmp_path / "surrogate.json"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "torres_audit", "verify", str(path)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 1 and "Traceback" not in done.stderr and "lone surrogate" in done.stdout, done.stderr


def test_deep_nesting_is_a_report_not_a_traceback(tmp_path: Path) -> None:
    code, out = run_cli(b"[" * 100_000 + b"]" * 100_000, tmp_path)
    assert_reported(code, out)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10)


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place a value sits in a document, the root included."""
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            out += paths(value, (*prefix, index))
    return out


VECTOR_PATHS = paths(vector())
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(where=st.sampled_from(VECTOR_PATHS), value=JSON, delete=st.booleans(), resign=st.booleans())
def test_hypothesis_records_always_get_a_report(tmp_path_factory: pytest.TempPathFactory, where: tuple[Any, ...],
                                                value: Any, delete: bool, resign: bool) -> None:
    """One value of the vector record replaced by an arbitrary JSON value (or its member deleted), and often
    re-chained and re-signed, so the value reaches the replay instead of stopping at the chain."""
    record: Any = copy.deepcopy(vector())
    if not where:
        record = value
    else:
        target = record
        for step in where[:-1]:
            target = target[step]
        if delete and isinstance(target, dict):
            del target[where[-1]]
        else:
            target[where[-1]] = value
    if resign:
        with contextlib.suppress(Exception):  # a forger can re-sign only what still has events to chain
            record = resigned(copy.deepcopy(record))
    data = json.dumps(record, ensure_ascii=True).encode()  # NaN, Infinity and lone surrogates as JSON writes them
    assert_reported(*run_cli(data, tmp_path_factory.mktemp("fuzz")))


@FUZZ
@given(data=st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_hypothesis_bytes_always_get_a_report(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    assert_reported(*run_cli(data, tmp_path_factory.mktemp("fuzz")))


def test_the_vector_keys_are_the_published_ones() -> None:
    assert [Verifier.from_vkey((OUT / name).read_text(encoding="utf-8")) for name in ("game.vkey", "log.vkey")] == KEYS

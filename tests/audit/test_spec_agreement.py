"""docs/audit.md and torres_audit say the same thing wherever one could say more than the other: the control
characters of a signed note (section 8), the seat a seat reader may name and the seed's length (section 2), and
who may sign a log's checkpoint (section 9)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from torres_audit import merkle
from torres_audit.note import Checkpoint, NoteError, open_checkpoint, open_note, parse_note, sign_note
from torres_audit.record import MAX_SEED_DIGITS, RecordError, inclusion_json, parse
from torres_audit.verify import verify_record

from .spec_vectors import GAME_KEY, LOG_KEY, OUT
from .test_strict_records import KEYS, resigned, vector

SPEC = (OUT.parent / "audit.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("control", ["\x00", "\t", "\x1f", "\x7f", "\x80", "\x85", "\x9f"])
def test_a_note_with_a_control_character_is_refused_c1_and_del_included(control: str) -> None:
    """Section 8: no control characters but the newline. U+0085 (NEL) is a line break to some readers, so a note
    holding one reads as other lines than the ones it signs."""
    text = f"torres-game-head/v1\ngame a{control}b\n"
    note = text + "\n" + GAME_KEY.signature_line(text)  # signed as a forger would, past sign_note's own check
    with pytest.raises(NoteError, match="control characters"):
        open_note(note, [GAME_KEY.verifier()])
    with pytest.raises(NoteError, match="control characters"):
        sign_note(text, GAME_KEY)


def test_the_spec_names_the_control_characters_the_code_refuses() -> None:
    assert "(Unicode's category Cc: U+0000 to U+001F and U+007F to U+009F)" in SPEC
    parse_note("a\u00a0b \u2028 c\n\n" + GAME_KEY.signature_line("a\u00a0b \u2028 c\n"))  # not Cc: allowed


def running(seat: int) -> dict[str, Any]:
    """The vector game's first four events as seat ``seat`` reads them (nothing hidden happened yet)."""
    record = vector()
    record["events"] = record["events"][:4]
    record.update(status="active", seed=None, result=None, reader={"kind": "seat", "seat": seat})
    return resigned(record)


def test_a_seat_reader_names_a_seat_of_the_game() -> None:
    assert "n is an integer, a seat of the game: 0 ≤ n < `creation.players`" in SPEC
    for seat in (0, 1):
        report = verify_record(running(seat), keys=KEYS)
        assert report.ok, report.text()
    for seat in (2, 3):  # a two-player game has no seat 2 or 3
        report = verify_record(running(seat), keys=KEYS)
        assert not report.ok and report.first_problem is not None, report.text()
        assert f"the reader is seat {seat}, which a game of 2 players does not have" in report.first_problem.reason


def test_the_seed_length_cap_is_the_one_the_spec_states() -> None:
    stated = re.search(r"without leading zeros, at most (\d+) digits", SPEC)
    assert stated is not None and int(stated.group(1)) == MAX_SEED_DIGITS
    record = vector()
    parse({**record, "seed": "9" * MAX_SEED_DIGITS})
    with pytest.raises(RecordError, match="decimal text"):
        parse({**record, "seed": "9" * (MAX_SEED_DIGITS + 1)})


def test_a_checkpoint_is_signed_by_a_trusted_key_named_as_its_origin() -> None:
    """Both keys pinned: the service's key may not vouch for the log's tree, a key of the log's name may."""
    root = merkle.root([b"leaf"])
    borrowed = Checkpoint(LOG_KEY.name, 1, root).sign(GAME_KEY)
    with pytest.raises(NoteError, match="no trusted key named as the log"):
        open_checkpoint(borrowed, KEYS)
    checkpoint, signed = open_checkpoint(Checkpoint(LOG_KEY.name, 1, root).sign(GAME_KEY, LOG_KEY), KEYS)
    assert checkpoint.origin == LOG_KEY.name and signed == [LOG_KEY.verifier(), GAME_KEY.verifier()]


def test_a_one_leaf_log_signed_with_the_record_key_is_refused_with_both_keys_pinned() -> None:
    """Section 9: the log key is not the record key. Whoever holds the service's key can make a "log" holding
    nothing but the head it signed; pinning the log's key too must not let that key's checkpoint through."""
    record = resigned(vector())
    head = f"torres-game-head/v1\ngame {record['game_id']}\nversion 12\nhash {record['head']['hash']}\nstatus over\n"
    for origin in (GAME_KEY.name, LOG_KEY.name):
        fake = Checkpoint(origin, 1, merkle.root([head.encode()])).sign(GAME_KEY)
        record["inclusion"] = inclusion_json(log_key=GAME_KEY.verifier().vkey(), leaf_index=0, tree_size=1,
                                             proof=[], checkpoint=fake)
        report = verify_record(json.loads(json.dumps(record)), keys=KEYS)
        assert not report.ok, report.text()
        assert {check.name: check.status for check in report.checks}["inclusion"] == "FAIL", report.text()
    assert verify_record(vector(), keys=KEYS).ok  # the honest record: the log's own key signs its checkpoint

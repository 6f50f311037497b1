"""Signed notes and checkpoints (c2sp.org/signed-note, c2sp.org/tlog-checkpoint): the published example
verifies, ours round-trip, and forgeries (another key, an altered size or root, a bent format) are refused."""

from __future__ import annotations

import base64
import hashlib

import pytest

from torres_audit import merkle
from torres_audit.note import (
    Checkpoint,
    NoteError,
    Signer,
    Verifier,
    key_id,
    open_checkpoint,
    open_note,
    parse_note,
    sign_note,
)

#: The example of c2sp.org/signed-note ("Verifier keys", Example): this vkey verifies this note.
SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_NOTE = ("This is an example message.\n\n— example.com/foo "
             "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n")


def test_the_specifications_example_verifies() -> None:
    verifier = Verifier.from_vkey(SPEC_VKEY)
    assert verifier.vkey() == SPEC_VKEY
    assert verifier.key_id == 0x530D903A == int.from_bytes(
        hashlib.sha256(b"example.com/foo\n\x01" + verifier.public_key).digest()[:4], "big")
    note, signed = open_note(SPEC_NOTE, [verifier])
    assert note.text == "This is an example message.\n" and signed == [verifier]
    with pytest.raises(NoteError, match="does not verify"):
        open_note(SPEC_NOTE.replace("example message", "example massage"), [verifier])


def test_keys_round_trip_through_their_text_forms() -> None:
    signer = Signer.generate("torres.test/game")
    again = Signer.from_skey(signer.skey())
    assert again.verifier() == signer.verifier()
    assert Verifier.from_vkey(signer.verifier().vkey()) == signer.verifier()
    assert signer.verifier().key_id == key_id("torres.test/game", signer.verifier().public_key)
    for bad in ("torres.test/game+00000000+" + signer.verifier().vkey().rsplit("+", 1)[1],
                "no-plus-signs", "two+parts", "name with space+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"):
        with pytest.raises(NoteError):
            Verifier.from_vkey(bad)
    with pytest.raises(NoteError):
        Signer.from_skey(signer.skey().replace("PRIVATE+KEY", "PUBLIC+KEY"))


def test_checkpoints_round_trip_and_verify() -> None:
    log = Signer.generate("torres.test/log")
    leaves = [f"leaf {i}".encode() for i in range(13)]
    checkpoint = Checkpoint("torres.test/log", 13, merkle.root(leaves), ("an extension line",))
    text = checkpoint.sign(log)
    assert text.startswith("torres.test/log\n13\n" + base64.b64encode(checkpoint.root).decode() + "\n")
    assert Checkpoint.parse(parse_note(text).text) == checkpoint
    opened, signed = open_checkpoint(text, [log.verifier()], origin="torres.test/log")
    assert opened == checkpoint and signed == [log.verifier()]
    witness = Signer.generate("torres.test/witness")  # a cosigned checkpoint: unknown signatures are ignored
    cosigned = text + witness.signature_line(checkpoint.text())
    assert open_checkpoint(cosigned, [log.verifier()])[0] == checkpoint
    assert open_checkpoint(cosigned, [witness.verifier(), log.verifier()])[1] == [log.verifier(), witness.verifier()]
    with pytest.raises(NoteError, match="no trusted key named as the log"):  # a witness vouches for no log alone
        open_checkpoint(cosigned, [witness.verifier()])
    empty = Checkpoint("torres.test/log", 0, merkle.EMPTY_ROOT)
    assert open_checkpoint(empty.sign(log), [log.verifier()])[0] == empty


def forge(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def test_forged_checkpoints_are_refused() -> None:
    log = Signer.generate("torres.test/log")
    checkpoint = Checkpoint("torres.test/log", 8, merkle.root([b"a"] * 8))
    text = checkpoint.sign(log)
    root = base64.b64encode(checkpoint.root).decode()
    other_root = base64.b64encode(merkle.root([b"b"] * 8)).decode()
    forgeries = {
        "signed by another key": checkpoint.sign(Signer.generate("torres.test/log")),
        "another log's name": checkpoint.sign(Signer.generate("evil.example/log")),
        "altered size": forge(text, "\n8\n", "\n9\n"),
        "altered root": forge(text, root, other_root),
        "a size with a leading zero": Checkpoint.parse(checkpoint.text()).sign(log).replace("\n8\n", "\n08\n"),
        "a signature line with a hyphen": forge(text, "— ", "- "),
        "no blank line": forge(text, "\n\n", "\n"),
        "a control character": forge(text, "torres.test/log\n", "torres.test/log\t\n"),
    }
    for what, forged in forgeries.items():
        with pytest.raises(NoteError):
            open_checkpoint(forged, [log.verifier()])
            pytest.fail(what)
    # Signed correctly, but not a checkpoint (two lines), or of another origin than expected.
    with pytest.raises(NoteError, match="at least three lines"):
        open_checkpoint(sign_note("torres.test/log\n8\n", log), [log.verifier()])
    with pytest.raises(NoteError, match=r"not 'torres\.test/other'"):
        open_checkpoint(text, [log.verifier()], origin="torres.test/other")
    with pytest.raises(NoteError, match="not 32"):
        Checkpoint.parse("torres.test/log\n8\n" + base64.b64encode(b"short").decode() + "\n")

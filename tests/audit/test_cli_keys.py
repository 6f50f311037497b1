"""``--key`` of ``python -m torres_audit``: a vkey, or a file of vkeys one a line (the text of
``/.well-known/torres-audit-key`` as pinned, both keys during a rotation: the audit-monitor CronJob mounts one)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from torres_audit.__main__ import _key, _keys
from torres_audit.note import Signer


def test_a_key_file_may_hold_several_vkeys(tmp_path: Path) -> None:
    new, old = Signer.generate("keys.test/log"), Signer.generate("keys.test/log")
    file = tmp_path / "log.vkeys"
    file.write_text(f"{new.verifier().vkey()}\n\n{old.verifier().vkey()}\n")
    assert _keys([_key(str(file)), _key(new.verifier().vkey())]) == [new.verifier(), old.verifier(), new.verifier()]


@pytest.mark.parametrize("text", ["", "not a key\n"])
def test_a_key_file_without_a_vkey_is_refused(tmp_path: Path, text: str) -> None:
    file = tmp_path / "log.vkeys"
    file.write_text(text)
    with pytest.raises(argparse.ArgumentTypeError):
        _key(str(file))

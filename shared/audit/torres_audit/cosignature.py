"""Witness cosignatures on log checkpoints (c2sp.org/tlog-cosignature, the Ed25519 ``cosignature/v1`` type), and
the k-of-n policy a verifier applies to them.

A checkpoint signed by the log alone proves only that the log's key signed it: an operator holding that key can
sign two trees of one log and show each to another audience (a split view). A witness is a party of its own that
keeps the last checkpoint it cosigned for each log and cosigns a new one only with a consistency proof from it
(``torres_audit.witness``); a checkpoint cosigned by k independent witnesses is then one history at least those k
saw, so a forked branch cannot gather a quorum unless k witnesses collude.

A cosignature is a note signature line whose key ID is ``SHA-256(name || 0x0A || 0x04 || public key)[:4]`` and
whose signature is ``u64 timestamp (big-endian) || Ed25519 signature`` over::

    cosignature/v1
    time <timestamp>
    <the checkpoint's text, extension lines included>

A witness's public key is written as a vkey of type 0x04 (``<name>+<key ID>+base64(0x04 || key)``); its private
key as ``PRIVATE+KEY+<name>+<key ID>+base64(0x04 || 32-byte seed)``, the skey form of ``torres_audit.note`` with
the cosignature type byte, so a log key can never be mistaken for a witness key or the reverse.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from .note import EM_DASH, NoteError, _b64, _check_name, parse_note

__all__ = [
    "COSIGNATURE_V1",
    "NO_WITNESSES",
    "Cosignature",
    "Cosigner",
    "QuorumError",
    "WitnessKey",
    "WitnessPolicy",
    "cosignatures",
    "cosigned_message",
]

COSIGNATURE_V1 = 0x04  # the signature type byte of Ed25519 cosignature/v1 (c2sp.org/tlog-cosignature)
#: A timestamp must not exceed 2^63 - 1 (c2sp.org/tlog-cosignature).
MAX_TIMESTAMP = 2**63 - 1


def _key_id(name: str, public_key: bytes) -> int:
    digest = hashlib.sha256(name.encode() + b"\n" + bytes([COSIGNATURE_V1]) + public_key).digest()
    return int.from_bytes(digest[:4], "big")


def cosigned_message(checkpoint_text: str, timestamp: int) -> bytes:
    """What a cosignature signs: the header line, the timestamp line, then the checkpoint's whole text."""
    if not 0 <= timestamp <= MAX_TIMESTAMP:
        raise NoteError(f"a cosignature timestamp is between 0 and 2^63-1, not {timestamp}")
    return f"cosignature/v1\ntime {timestamp}\n{checkpoint_text}".encode()


@dataclass(frozen=True)
class WitnessKey:
    """A witness's public key with its name: what a verifier, a monitor or the sequencer trusts."""

    name: str
    public_key: bytes

    @property
    def key_id(self) -> int:
        return _key_id(self.name, self.public_key)

    @classmethod
    def from_vkey(cls, text: str) -> WitnessKey:
        parts = text.strip().split("+", 2)
        if len(parts) != 3:
            raise NoteError(f"a witness vkey is <name>+<key ID>+<base64 key>, not {text!r}")
        name, hex_id, key = parts
        _check_name(name)
        raw = _b64(key, "the witness vkey's key")
        if len(raw) != 33 or raw[0] != COSIGNATURE_V1:
            raise NoteError("the vkey is not a cosignature/v1 key (0x04 followed by a 32-byte Ed25519 key)")
        witness = cls(name, raw[1:])
        if not re.fullmatch(r"[0-9a-f]{8}", hex_id) or int(hex_id, 16) != witness.key_id:
            raise NoteError(f"the witness vkey's key ID {hex_id} is not the one its name and key give "
                            f"({witness.key_id:08x})")
        return witness

    def vkey(self) -> str:
        return f"{self.name}+{self.key_id:08x}+{base64.b64encode(bytes([COSIGNATURE_V1]) + self.public_key).decode()}"

    def verify(self, checkpoint_text: str, blob: bytes) -> int | None:
        """The timestamp of ``blob`` (timestamp || signature) when it is this witness's cosignature of
        ``checkpoint_text``; None otherwise."""
        if len(blob) != 8 + 64:
            return None
        timestamp = int.from_bytes(blob[:8], "big")
        if timestamp > MAX_TIMESTAMP:
            return None
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(
                blob[8:], cosigned_message(checkpoint_text, timestamp))
        except (InvalidSignature, ValueError):
            return None
        return timestamp

    def __str__(self) -> str:
        return self.vkey()


@dataclass(frozen=True)
class Cosigner:
    """A witness's private key (``TORRES_WITNESS_KEY``)."""

    name: str
    private_key: Ed25519PrivateKey

    @classmethod
    def generate(cls, name: str) -> Cosigner:
        return cls(_check_name(name), Ed25519PrivateKey.generate())

    @classmethod
    def from_skey(cls, text: str) -> Cosigner:
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a witness key is PRIVATE+KEY+<name>+<key ID>+<base64 key>")
        name, hex_id, key = parts[2:]
        raw = _b64(key, "the witness key")
        if len(raw) != 33 or raw[0] != COSIGNATURE_V1:
            raise NoteError("the witness key is not a cosignature/v1 key (0x04 followed by a 32-byte seed)")
        cosigner = cls(_check_name(name), Ed25519PrivateKey.from_private_bytes(raw[1:]))
        if hex_id != f"{cosigner.key().key_id:08x}":
            raise NoteError("the witness key's key ID does not match its name and key")
        return cosigner

    def skey(self) -> str:
        seed = self.private_key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return (f"PRIVATE+KEY+{self.name}+{self.key().key_id:08x}+"
                f"{base64.b64encode(bytes([COSIGNATURE_V1]) + seed).decode()}")

    def key(self) -> WitnessKey:
        return WitnessKey(self.name, self.private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    def cosign(self, checkpoint_text: str, timestamp: int) -> str:
        """The signature line of this witness's cosignature of ``checkpoint_text`` at ``timestamp``."""
        signature = self.private_key.sign(cosigned_message(checkpoint_text, timestamp))
        blob = self.key().key_id.to_bytes(4, "big") + timestamp.to_bytes(8, "big") + signature
        return f"{EM_DASH} {self.name} {base64.b64encode(blob).decode()}\n"


@dataclass(frozen=True)
class Cosignature:
    witness: WitnessKey
    timestamp: int


def cosignatures(note: str, witnesses: Sequence[WitnessKey]) -> list[Cosignature]:
    """The cosignatures on the signed note ``note`` by the trusted ``witnesses`` (each counted once). Lines of
    unknown keys are ignored; a line with a trusted witness's name and key ID that does not verify rejects the
    note (c2sp.org/signed-note: a known key's bad signature is never skipped)."""
    parsed = parse_note(note)
    found: dict[WitnessKey, int] = {}
    for signature in parsed.signatures:
        for witness in witnesses:
            if (witness.name, witness.key_id) != (signature.name, signature.key_id):
                continue
            timestamp = witness.verify(parsed.text, signature.signature)
            if timestamp is None:
                raise NoteError(f"the cosignature by witness {witness.name} ({witness.key_id:08x}) does not verify")
            found.setdefault(witness, timestamp)
    return [Cosignature(witness, timestamp) for witness, timestamp in found.items()]


class QuorumError(NoteError):
    """Fewer trusted witnesses cosigned a checkpoint than the policy asks; the message names the missing ones."""


@dataclass(frozen=True)
class WitnessPolicy:
    """k of n: a checkpoint is accepted only with cosignatures from at least ``quorum`` of ``witnesses``.
    No witnesses and a quorum of 0 accept every checkpoint the log signed (the log alone is trusted)."""

    witnesses: tuple[WitnessKey, ...] = ()
    quorum: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.quorum <= len(self.witnesses):
            raise ValueError(f"a quorum of {self.quorum} out of {len(self.witnesses)} trusted witnesses")

    @classmethod
    def of(cls, vkeys: Sequence[str], quorum: int | None = None) -> WitnessPolicy:
        """From vkeys; the quorum defaults to a majority of them (every one of one or two)."""
        witnesses = tuple(WitnessKey.from_vkey(v) for v in vkeys)
        return cls(witnesses, len(witnesses) // 2 + 1 if quorum is None and witnesses else quorum or 0)

    def check(self, note: str) -> list[Cosignature]:
        """The trusted cosignatures on ``note``; raises :class:`QuorumError` naming the missing witnesses when
        fewer than the quorum cosigned it."""
        found = cosignatures(note, self.witnesses) if self.witnesses else []
        if len(found) < self.quorum:
            have = {c.witness for c in found}
            missing = [w for w in self.witnesses if w not in have]
            raise QuorumError(f"cosigned by {len(found)} of the {len(self.witnesses)} trusted witnesses, "
                              f"{self.quorum} needed; missing: {', '.join(w.name for w in missing)}")
        return found

    def describe(self, found: Sequence[Cosignature]) -> str:
        if not self.witnesses:
            return "no witnesses required"
        have = {c.witness for c in found}
        missing = [w.name for w in self.witnesses if w not in have]
        return (f"cosigned by {len(found)} of {len(self.witnesses)} trusted witnesses ({self.quorum} needed): "
                f"{', '.join(c.witness.name for c in found) or 'none'}"
                + (f"; missing: {', '.join(missing)}" if missing else ""))


#: The policy of a verifier given no witnesses: the log's signature alone.
NO_WITNESSES = WitnessPolicy()

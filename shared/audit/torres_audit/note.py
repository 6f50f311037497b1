"""Signed notes (c2sp.org/signed-note), Ed25519 keys in their vkey/skey text forms, and log checkpoints
(c2sp.org/tlog-checkpoint).

Both things the service signs use this one envelope: the head of a game (docs/audit.md, "The signed head")
and, once the transparency log runs, its checkpoints. A signed note is plain text a person can read and any
transparency-log tooling can check (Go's golang.org/x/mod/sumdb/note, the transparency-dev witnesses), so
an auditor needs nothing of ours to verify a signature: the text, the vkey, Ed25519.

    <note text, each line ending in a newline>
    <blank line>
    — <key name> base64(key ID (4 bytes, big-endian) || Ed25519 signature (64 bytes))

key ID = SHA-256(key name || 0x0A || 0x01 || 32-byte public key)[:4]; the signature covers the note text
including its final newline, not the blank line.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

__all__ = [
    "Checkpoint",
    "NoteError",
    "Signature",
    "SignedNote",
    "Signer",
    "Verifier",
    "key_id",
    "open_checkpoint",
    "open_note",
    "parse_note",
    "sign_note",
]

ED25519 = 0x01  # the signature type byte of Ed25519 in c2sp.org/signed-note
EM_DASH = "\u2014"
#: Verifiers must accept at least 16 signatures (c2sp.org/signed-note); more than this is refused as abuse.
MAX_SIGNATURES = 100
#: Unicode's control characters (general category Cc) but the newline: C0, DEL and C1. C1 holds U+0085 (NEL), a line
#: break to some readers (Python's ``str.splitlines``), so a note with one would show other lines than it signs;
#: RFC 5198 bars C1 from network text. (Go's note package refuses only those below U+0020: docs/audit.md section 8.)
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_NAME = re.compile(r"[^\s+]+")


class NoteError(ValueError):
    """A note, key or checkpoint that is malformed or does not verify; the message says what is wrong."""


def _b64(text: str, what: str) -> bytes:
    """Standard base64 with padding, in its one canonical spelling (so a value has exactly one text)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise NoteError(f"{what} is not base64: {text!r}") from exc
    if base64.b64encode(raw).decode() != text:
        raise NoteError(f"{what} is not in canonical base64: {text!r}")
    return raw


def _check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise NoteError(f"a key name must be non-empty, without spaces or '+': {name!r}")
    return name


def key_id(name: str, public_key: bytes) -> int:
    """SHA-256(key name || 0x0A || 0x01 || public key)[:4] as a big-endian uint32."""
    digest = hashlib.sha256(name.encode() + b"\n" + bytes([ED25519]) + public_key).digest()
    return int.from_bytes(digest[:4], "big")


@dataclass(frozen=True)
class Verifier:
    """A public key with its name: what an auditor pins (``--key``), in the vkey text form
    ``<name>+<key ID, 8 hex digits>+base64(0x01 || public key)``."""

    name: str
    public_key: bytes

    @property
    def key_id(self) -> int:
        return key_id(self.name, self.public_key)

    @classmethod
    def from_vkey(cls, text: str) -> Verifier:
        parts = text.strip().split("+", 2)  # the base64 key may itself hold '+'
        if len(parts) != 3:
            raise NoteError(f"a vkey is <name>+<key ID>+<base64 key>, not {text!r}")
        name, hex_id, key = parts
        _check_name(name)
        raw = _b64(key, "the vkey's key")
        if len(raw) != 33 or raw[0] != ED25519:
            raise NoteError("the vkey is not an Ed25519 key (0x01 followed by 32 bytes)")
        verifier = cls(name, raw[1:])
        if not re.fullmatch(r"[0-9a-f]{8}", hex_id) or int(hex_id, 16) != verifier.key_id:
            raise NoteError(f"the vkey's key ID {hex_id} is not the one its name and key give "
                            f"({verifier.key_id:08x})")
        return verifier

    def vkey(self) -> str:
        return f"{self.name}+{self.key_id:08x}+{base64.b64encode(bytes([ED25519]) + self.public_key).decode()}"

    def verify(self, text: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, text)
        except (InvalidSignature, ValueError):
            return False
        return True

    def __str__(self) -> str:
        return self.vkey()


@dataclass(frozen=True)
class Signer:
    """A named Ed25519 private key; its text form (``TORRES_SIGNING_KEY``) is the skey of Go's note package:
    ``PRIVATE+KEY+<name>+<key ID>+base64(0x01 || 32-byte private seed)``."""

    name: str
    private_key: Ed25519PrivateKey

    @classmethod
    def generate(cls, name: str) -> Signer:
        return cls(_check_name(name), Ed25519PrivateKey.generate())

    @classmethod
    def from_skey(cls, text: str) -> Signer:
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a signing key is PRIVATE+KEY+<name>+<key ID>+<base64 key>")
        name, hex_id, key = parts[2:]
        raw = _b64(key, "the signing key")
        if len(raw) != 33 or raw[0] != ED25519:
            raise NoteError("the signing key is not an Ed25519 key (0x01 followed by a 32-byte seed)")
        signer = cls(_check_name(name), Ed25519PrivateKey.from_private_bytes(raw[1:]))
        if hex_id != f"{signer.verifier().key_id:08x}":
            raise NoteError("the signing key's key ID does not match its name and key")
        return signer

    def skey(self) -> str:
        seed = self.private_key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return (f"PRIVATE+KEY+{self.name}+{self.verifier().key_id:08x}+"
                f"{base64.b64encode(bytes([ED25519]) + seed).decode()}")

    def verifier(self) -> Verifier:
        return Verifier(self.name, self.private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    def signature_line(self, text: str) -> str:
        signature = self.private_key.sign(text.encode())
        blob = self.verifier().key_id.to_bytes(4, "big") + signature
        return f"{EM_DASH} {self.name} {base64.b64encode(blob).decode()}\n"


@dataclass(frozen=True)
class Signature:
    name: str
    key_id: int
    signature: bytes


@dataclass(frozen=True)
class SignedNote:
    text: str
    signatures: tuple[Signature, ...]


def _check_text(text: str) -> None:
    if not text or not text.endswith("\n"):
        raise NoteError("a note's text must be non-empty and end with a newline")
    if _CONTROL.search(text):
        raise NoteError("a note must not contain control characters other than newline")


def sign_note(text: str, *signers: Signer) -> str:
    """The signed note of ``text`` (which ends with a newline) by each of ``signers``."""
    _check_text(text)
    if "\n\n" in text:
        raise NoteError("this note's text must not contain a blank line")
    return text + "\n" + "".join(signer.signature_line(text) for signer in signers)


def parse_note(data: str) -> SignedNote:
    """Split a signed note into its text and signatures, refusing any deviation from the format (nothing is
    verified yet: see :func:`open_note`)."""
    if _CONTROL.search(data):
        raise NoteError("a note must not contain control characters other than newline")
    if not data.endswith("\n"):
        raise NoteError("a signed note must end with a newline")
    cut = data.rfind("\n\n")
    if cut < 0:
        raise NoteError("a signed note needs a blank line between its text and its signatures")
    text, block = data[:cut + 1], data[cut + 2:]
    _check_text(text)
    lines = block.split("\n")[:-1]
    if not lines:
        raise NoteError("a signed note needs at least one signature line")
    if len(lines) > MAX_SIGNATURES:
        raise NoteError(f"more than {MAX_SIGNATURES} signatures")
    signatures = []
    for line in lines:
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != EM_DASH:
            raise NoteError(f"a signature line is '— <name> <base64>', not {line!r}")
        name = _check_name(parts[1])
        blob = _b64(parts[2], f"the signature of {name}")
        if len(blob) < 5:
            raise NoteError(f"the signature of {name} is too short")
        signatures.append(Signature(name, int.from_bytes(blob[:4], "big"), blob[4:]))
    return SignedNote(text, tuple(signatures))


def open_note(data: str, verifiers: Sequence[Verifier]) -> tuple[SignedNote, list[Verifier]]:
    """The note and the trusted keys that signed it. Signatures of unknown keys are ignored; one by a trusted
    key that does not verify rejects the note; so does a note no trusted key signed (c2sp.org/signed-note)."""
    note = parse_note(data)
    signed: list[Verifier] = []
    for signature in note.signatures:
        for verifier in verifiers:
            if (verifier.name, verifier.key_id) != (signature.name, signature.key_id):
                continue
            if len(signature.signature) != 64 or not verifier.verify(note.text.encode(), signature.signature):
                raise NoteError(f"the signature by {verifier.name} ({verifier.key_id:08x}) does not verify")
            if verifier not in signed:
                signed.append(verifier)
    if not signed:
        known = ", ".join(f"{v.name}+{v.key_id:08x}" for v in verifiers) or "none"
        found = ", ".join(f"{s.name}+{s.key_id:08x}" for s in note.signatures)
        raise NoteError(f"no signature by a trusted key (trusted: {known}; signed by: {found})")
    return note, signed


@dataclass(frozen=True)
class Checkpoint:
    """A log's tree head (c2sp.org/tlog-checkpoint): origin, tree size, root hash, optional extension lines."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode(), *self.extensions]
        return "".join(f"{line}\n" for line in lines)

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        lines = text.split("\n")
        if lines[-1] != "" or len(lines) < 4:
            raise NoteError("a checkpoint is at least three lines: origin, tree size, root hash")
        lines = lines[:-1]
        if any(line == "" for line in lines):
            raise NoteError("a checkpoint's lines must be non-empty")
        origin, size, root, *extensions = lines
        if not re.fullmatch(r"0|[1-9][0-9]*", size):
            raise NoteError(f"the tree size {size!r} is not a decimal number without leading zeros")
        raw = _b64(root, "the root hash")
        if len(raw) != 32:
            raise NoteError(f"the root hash is {len(raw)} bytes, not 32")
        return cls(origin, int(size), raw, tuple(extensions))

    def sign(self, *signers: Signer) -> str:
        return sign_note(self.text(), *signers)


def open_checkpoint(data: str, verifiers: Sequence[Verifier], *, origin: str | None = None,
                    ) -> tuple[Checkpoint, list[Verifier]]:
    """A checkpoint signed by a trusted key named as its origin, the log's own (and of ``origin``, when given),
    with the trusted keys that signed it (the log's first; others, e.g. witnesses' cosignatures, after it). A
    trusted key of another name vouches for no log: were any pinned key enough, the service's head key could sign
    a "log" of its own (docs/audit.md section 9)."""
    note, signed = open_note(data, verifiers)
    checkpoint = Checkpoint.parse(note.text)
    if origin is not None and checkpoint.origin != origin:
        raise NoteError(f"the checkpoint is of log {checkpoint.origin!r}, not {origin!r}")
    own = [verifier for verifier in signed if verifier.name == checkpoint.origin]
    if not own:
        raise NoteError(f"the checkpoint of log {checkpoint.origin!r} is signed by "
                        f"{', '.join(v.name for v in signed)}, no trusted key named as the log")
    return checkpoint, [*own, *(verifier for verifier in signed if verifier not in own)]

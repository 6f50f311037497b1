"""A transparency-log witness (c2sp.org/tlog-witness): ``python -m torres_audit witness``.

A witness holds a key of its own, keeps per log the last checkpoint it cosigned, and cosigns a new checkpoint
only when the log proves it extends that one (an RFC 9162 consistency proof). It never cosigns two inconsistent
checkpoints of one log, whatever it is sent and in whatever order, so a log that shows two audiences two
histories can get at most one of them cosigned by this witness. A portal, a players' association or a rival
portal each runs one; the game service's sequencer asks the witnesses it is configured with, and verifiers and
monitors require cosignatures from k of the n witnesses they trust (docs/audit.md, "Witnesses").

The state is one SQLite file. Checking the submitted old size against the stored checkpoint, signing, and storing
the new checkpoint happen in one ``BEGIN IMMEDIATE`` transaction, committed (and synced) before the cosignature is
answered: two concurrent requests cannot both pass the check against the same stored size (the rollback race of
c2sp.org/tlog-witness), and a witness killed at any point either stored the checkpoint it cosigned or answered
nothing. Refused checkpoints with a valid log signature are kept in the same file: they may be evidence of a
log's misbehaviour.

HTTP (the submission and monitoring prefix are the server's root):

- ``POST /add-checkpoint`` as c2sp.org/tlog-witness says: 200 with the cosignature line; 409 with the stored size
  (``text/x.tlog.size``) when the old size is not the stored one; otherwise an
  ``application/problem+json`` body with a ``code`` and a ``detail`` saying why (400 malformed or an old size
  above the checkpoint's, 403 no valid signature of the log, 404 unknown log, 409 another root for the stored
  size, 422 a consistency proof that does not verify).
- ``GET /checkpoint?origin=<origin>``: the last checkpoint this witness cosigned for that log, with its
  cosignature (what a monitor or a browser compares with its own view).
- ``GET /witness-key``: the witness's vkey.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import merkle
from .cosignature import Cosigner
from .note import Checkpoint, NoteError, Verifier, open_note, parse_note

__all__ = ["Answer", "Refused", "Witness", "WitnessState", "create_app"]

log = logging.getLogger("torres_audit.witness")

#: c2sp.org/tlog-witness: a client sends at most 63 consistency proof lines.
MAX_PROOF_LINES = 63
#: A request body larger than this is refused before it is parsed (a checkpoint with 100 signatures and a full
#: proof is far below it).
MAX_BODY = 64 * 1024
TLOG_SIZE = "text/x.tlog.size"
PROBLEM = "application/problem+json"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    origin TEXT PRIMARY KEY,
    tree_size INTEGER NOT NULL CHECK (tree_size >= 0),
    root BLOB NOT NULL,
    note TEXT NOT NULL,
    cosigned_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS refusals (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL,
    tree_size INTEGER NOT NULL,
    code TEXT NOT NULL,
    detail TEXT NOT NULL,
    request TEXT NOT NULL,
    refused_at INTEGER NOT NULL
);
"""


class Refused(Exception):
    """The witness does not cosign: the HTTP status, a machine-readable code, and why."""

    def __init__(self, status: int, code: str, detail: str, *, stored_size: int | None = None) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.stored_size = status, code, detail, stored_size


@dataclass(frozen=True)
class Stored:
    tree_size: int
    root: bytes
    note: str


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: str


class WitnessState:
    """The SQLite file that holds the last cosigned checkpoint per log, and the refusals."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        with self._connect() as conn:
            conn.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")  # committed means on disk before the cosignature leaves
            yield conn
        finally:
            conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One writer at a time (``BEGIN IMMEDIATE`` takes SQLite's write lock before the first read)."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @staticmethod
    def read(conn: sqlite3.Connection, origin: str) -> Stored | None:
        row = conn.execute("SELECT tree_size, root, note FROM checkpoints WHERE origin = ?", (origin,)).fetchone()
        return None if row is None else Stored(int(row[0]), bytes(row[1]), str(row[2]))

    def latest(self, origin: str) -> Stored | None:
        with self._connect() as conn:
            return self.read(conn, origin)

    def refusals(self, origin: str) -> list[tuple[int, str, str]]:
        with self._connect() as conn:
            rows = conn.execute("SELECT tree_size, code, detail FROM refusals WHERE origin = ? ORDER BY id",
                                (origin,)).fetchall()
        return [(int(size), str(code), str(detail)) for size, code, detail in rows]

    def refuse(self, origin: str, size: int, refused: Refused, request: str) -> None:
        with self.transaction() as conn:
            conn.execute("INSERT INTO refusals (origin, tree_size, code, detail, request, refused_at)"
                         " VALUES (?, ?, ?, ?, ?, ?)", (origin, size, refused.code, refused.detail, request,
                                                         int(time.time())))


@dataclass(frozen=True)
class Request:
    old_size: int
    proof: tuple[bytes, ...]
    note: str


def parse_request(body: bytes) -> Request:
    """The add-checkpoint body: ``old <size>``, up to 63 base64 proof lines, a blank line, the checkpoint."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(400, "malformed", "the request body is not UTF-8") from exc
    head, sep, note = text.partition("\n\n")
    if not sep:
        raise Refused(400, "malformed", "the body is an old size line, proof lines, a blank line, a checkpoint")
    lines = head.split("\n")
    match = re.fullmatch(r"old (0|[1-9][0-9]{0,18})", lines[0])
    if match is None:
        raise Refused(400, "malformed", f"the first line is 'old <size>' in decimal without leading zeros, not "
                                        f"{lines[0][:80]!r}")
    if len(lines) - 1 > MAX_PROOF_LINES:
        raise Refused(400, "malformed", f"more than {MAX_PROOF_LINES} consistency proof lines")
    proof = []
    for line in lines[1:]:
        try:
            node = base64.b64decode(line, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise Refused(400, "malformed", f"a proof line is not base64: {line[:80]!r}") from exc
        if len(node) != merkle.HASH_SIZE or base64.b64encode(node).decode() != line:
            raise Refused(400, "malformed", f"a proof line is not one 32-byte hash in canonical base64: "
                                            f"{line[:80]!r}")
        proof.append(node)
    return Request(int(match.group(1)), tuple(proof), note)


class Witness:
    """The witness's rules over its state. ``logs``: the origin of each log it witnesses and that log's keys
    (several during a rotation)."""

    def __init__(self, cosigner: Cosigner, logs: Mapping[str, Sequence[Verifier]], state: WitnessState) -> None:
        self.cosigner = cosigner
        self.logs = {origin: tuple(keys) for origin, keys in logs.items()}
        self.state = state

    def add_checkpoint(self, body: bytes) -> str:
        """The cosignature line for the checkpoint in ``body``; raises :class:`Refused` saying why not."""
        request = parse_request(body)
        try:
            note = parse_note(request.note)
            checkpoint = Checkpoint.parse(note.text)
        except NoteError as exc:
            raise Refused(400, "malformed", f"the checkpoint is not a signed checkpoint: {exc}") from exc
        keys = self.logs.get(checkpoint.origin)
        if keys is None:
            raise Refused(404, "unknown_log", f"this witness does not witness the log {checkpoint.origin!r}")
        try:
            open_note(request.note, [key for key in keys if key.name == checkpoint.origin])
        except NoteError as exc:
            raise Refused(403, "bad_signature", f"the checkpoint is not signed by the log's key: {exc}") from exc
        try:
            return self._cosign(request, checkpoint)
        except Refused as refused:
            if refused.status != 409 or refused.stored_size is None:  # a stale old size is routine, not evidence
                self.state.refuse(checkpoint.origin, checkpoint.size, refused, body.decode())
            raise

    def _cosign(self, request: Request, checkpoint: Checkpoint) -> str:
        if request.old_size > checkpoint.size:
            raise Refused(400, "old_size_too_large", f"the old size {request.old_size} is above the checkpoint's "
                                                     f"size {checkpoint.size}")
        with self.state.transaction() as conn:
            stored = WitnessState.read(conn, checkpoint.origin)
            stored_size = 0 if stored is None else stored.tree_size
            if request.old_size != stored_size:
                raise Refused(409, "old_size_mismatch",
                              f"the last checkpoint this witness cosigned for {checkpoint.origin} is of size "
                              f"{stored_size}, not {request.old_size}", stored_size=stored_size)
            if stored is None or stored_size == 0:
                if request.proof:
                    raise Refused(400, "malformed", "a consistency proof from size 0 must be empty")
            elif checkpoint.size == stored.tree_size:
                if request.proof:
                    raise Refused(400, "malformed", "equal sizes need an empty consistency proof")
                if checkpoint.root != stored.root:
                    raise Refused(409, "fork", _fork(checkpoint, stored))
            else:
                try:
                    merkle.verify_consistency(stored.tree_size, checkpoint.size, list(request.proof), stored.root,
                                              checkpoint.root)
                except merkle.ProofError as exc:
                    raise Refused(422, "inconsistent",
                                  f"the checkpoint of {_describe(checkpoint.size, checkpoint.root)} does not extend "
                                  f"the one this witness cosigned ({_describe(stored.tree_size, stored.root)}): "
                                  f"{exc}") from exc
            timestamp = int(time.time())
            line = self.cosigner.cosign(checkpoint.text(), timestamp)
            conn.execute("INSERT INTO checkpoints (origin, tree_size, root, note, cosigned_at) VALUES (?, ?, ?, ?, ?)"
                         " ON CONFLICT (origin) DO UPDATE SET tree_size = excluded.tree_size, root = excluded.root,"
                         " note = excluded.note, cosigned_at = excluded.cosigned_at",
                         (checkpoint.origin, checkpoint.size, checkpoint.root, request.note + line, timestamp))
        return line

    def answer(self, body: bytes) -> Answer:
        """The HTTP answer to an add-checkpoint body."""
        if len(body) > MAX_BODY:
            return _problem(Refused(413, "too_large", f"the request body is over {MAX_BODY} bytes"))
        try:
            return Answer(200, "text/plain; charset=utf-8", self.add_checkpoint(body))
        except Refused as refused:
            log.info("checkpoint refused", extra={"code": refused.code, "detail": refused.detail})
            if refused.stored_size is not None:
                return Answer(409, TLOG_SIZE, f"{refused.stored_size}\n")
            return _problem(refused)


def _describe(size: int, root: bytes) -> str:
    return f"size {size} root {base64.b64encode(root).decode()}"


def _fork(checkpoint: Checkpoint, stored: Stored) -> str:
    return (f"the log forked: this witness cosigned {_describe(stored.tree_size, stored.root)}, this checkpoint has "
            f"another root for the same size ({base64.b64encode(checkpoint.root).decode()})")


def _problem(refused: Refused) -> Answer:
    return Answer(refused.status, PROBLEM, json.dumps({
        "type": f"https://torres.invalid/problems/witness/{refused.code}", "title": "not cosigned",
        "status": refused.status, "code": refused.code, "detail": refused.detail}))


def create_app(witness: Witness) -> Any:
    """The witness's WSGI app (Flask, the project's web framework)."""
    from flask import Flask, Response, request

    app = Flask("torres_audit.witness")

    def reply(answer: Answer) -> Response:
        return Response(answer.body, status=answer.status, content_type=answer.content_type,
                        headers={"Cache-Control": "no-store"})

    @app.post("/add-checkpoint")
    def add_checkpoint() -> Response:
        if (request.content_length or 0) > MAX_BODY:
            return reply(_problem(Refused(413, "too_large", f"the request body is over {MAX_BODY} bytes")))
        return reply(witness.answer(request.get_data(cache=False)))

    @app.get("/checkpoint")
    def checkpoint() -> Response:
        origin = request.args.get("origin", "")
        stored = witness.state.latest(origin) if origin in witness.logs else None
        if stored is None:
            return reply(_problem(Refused(404, "unknown_log", f"no checkpoint of log {origin!r} cosigned here")))
        return reply(Answer(200, "text/plain; charset=utf-8", stored.note))

    @app.get("/witness-key")
    def witness_key() -> Response:
        return reply(Answer(200, "text/plain; charset=utf-8", f"{witness.cosigner.key().vkey()}\n"))

    return app


def serve(witness: Witness, host: str, port: int, threads: int = 4) -> None:
    """Serve the witness with gunicorn (one worker process, a few threads: SQLite serialises the writes)."""
    from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

    app = create_app(witness)

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in {"bind": f"{host}:{port}", "workers": 1, "threads": threads, "timeout": 30,
                               "graceful_timeout": 5, "accesslog": None}.items():
                self.cfg.set(key, value)

        def load(self) -> Any:
            return app

    Server().run()


def add_checkpoint_body(old_size: int, proof: Sequence[bytes], note: str) -> bytes:
    """The body of an add-checkpoint request (the client's side: the log's sequencer, the tests)."""
    lines = [f"old {old_size}", *(base64.b64encode(node).decode() for node in proof)]
    return ("".join(f"{line}\n" for line in lines) + "\n" + note).encode()

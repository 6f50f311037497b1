"""The transparency log's public face (issue 28, docs/audit.md section 9): its signed checkpoint, inclusion and
consistency proofs, and its public keys at a well-known URL.

All of it is public, as a Certificate Transparency log is: a checkpoint and a proof reveal hashes only. The one
thing that names a game is an inclusion proof asked for *by game id*, and that goes through the same read gate
as the game itself (a private game the caller may not read is 404, as everywhere). Asked for by leaf hash, the
answer never names the game: whoever can compute a private game's leaf hash already knows its head.
"""

from __future__ import annotations

from typing import Any

from flask import Response

from torres_game.errors import ValidationFailed
from torres_game.translog import ProofUnavailable
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses

from . import schemas as s
from .auth import credentials
from .games import as_documented, service

audit = Blueprint("audit", __name__, url_prefix="/v1/audit", description="The transparency log of finished games")
well_known = Blueprint("well_known", __name__, description="The transparency log's public keys")
_errors = problem_responses(audit, s.ProblemSchema)

PUBLIC: list[dict[str, list[str]]] = [{}]
_TEXT = {"content": {"text/plain": {"schema": {"type": "string"}}}}


def _text(body: str) -> Response:
    return Response(body, mimetype="text/plain", headers={"Cache-Control": "no-store"})


@audit.route("/checkpoint", methods=["GET"])
@audit.arguments(s.CheckpointArgs(), location="query")
@_errors(404)
@audit.doc(security=PUBLIC, responses={"200": {"description": "the signed checkpoint (c2sp.org/tlog-checkpoint "
                                                              "in a c2sp.org/signed-note)", **_TEXT}})
def checkpoint(args: dict[str, Any]) -> Response:
    """The log's latest signed checkpoint (origin, tree size, base64 root), or the one of ``tree_size``: what a
    monitor keeps and what ``python -m torres_audit verify --checkpoint`` checks a record's proof against."""
    return _text(service().translog.checkpoint(args.get("tree_size")).note)


@audit.route("/proof/inclusion", methods=["GET"])
@audit.arguments(s.InclusionArgs(), location="query")
@audit.response(200, s.InclusionProofSchema)
@_errors(400, 401, 403, 404)
@audit.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def inclusion(args: dict[str, Any]) -> Response:
    """The RFC 9162 audit path of a finished game's head in the tree of ``tree_size`` leaves (default: the latest
    checkpoint's), by ``game_id`` (read like the game itself: a private game needs a caller who may read it) or
    by ``leaf_hash`` (hex SHA-256 of 0x00 || head statement; the answer then names no game)."""
    svc = service()
    game_id, leaf_hash = args.get("game_id"), args.get("leaf_hash")
    if game_id is None and leaf_hash is None:
        raise ValidationFailed("give game_id or leaf_hash (or both)")
    if game_id is not None:
        svc.access.check_read(svc._info(game_id), svc.access.caller(credentials()))  # 404 for a hidden game
        leaf = svc.store.log_leaf(game_id=game_id)
    else:
        leaf = svc.store.log_leaf(leaf_hash=bytes.fromhex(leaf_hash))
    if leaf is None or (game_id is not None and leaf_hash is not None and leaf.leaf_hash.hex() != leaf_hash):
        raise ProofUnavailable("the log holds no such leaf (yet: a finished game is integrated within a second)")
    body = svc.translog.inclusion(leaf, args.get("tree_size"))
    return as_documented({**({"game_id": leaf.game_id, "version": leaf.version} if game_id else {}), **body})


@audit.route("/proof/consistency", methods=["GET"])
@audit.arguments(s.ConsistencyArgs(), location="query")
@audit.response(200, s.ConsistencyProofSchema)
@_errors(400, 404)
@audit.doc(security=PUBLIC)
def consistency(args: dict[str, Any]) -> Response:
    """The RFC 9162 consistency proof that the tree of ``first`` leaves is a prefix of the tree of ``second``
    (default: the latest checkpoint's): what a monitor checks each new checkpoint with."""
    return as_documented(service().translog.consistency(args["first"], args.get("second")))


@well_known.route("/.well-known/torres-audit-key", methods=["GET"])
@well_known.doc(security=PUBLIC, responses={"200": {"description": "one vkey per line", **_TEXT}})
def audit_keys() -> Response:
    """The log's public keys (vkeys, c2sp.org/signed-note), one per line, the current one first; during a key
    rotation the previous one too. Auditors should pin a key obtained out of band as well: this URL is served
    by the operator it is meant to check."""
    return _text(service().translog.well_known())

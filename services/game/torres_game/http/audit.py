"""The transparency log's public face (docs/audit.md section 9): its signed checkpoint, inclusion and
consistency proofs, and its public keys at a well-known URL.

All of it is public, as a Certificate Transparency log is: a checkpoint and a proof reveal hashes only, and no
answer here names a game. An inclusion proof is asked for by leaf hash (whoever can compute a private game's leaf
hash already knows its id and head); a game's proof by id is its record's ``inclusion`` member, behind the
game's own read gate (``GET /v1/games/<id>/record``), so a private game cannot leak through this blueprint.
"""

from __future__ import annotations

from typing import Any

from flask import Response

from torres_game.translog import ProofUnavailable
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses

from . import schemas as s
from .games import as_documented, service

audit = Blueprint("audit", __name__, url_prefix="/v1/audit", description="The transparency log of finished games")
well_known = Blueprint("well_known", __name__, description="The transparency log's public keys")
_errors = problem_responses(audit, s.ProblemSchema)

#: No credential of any kind, as the probes (OpenAPI `security: []`): nothing here reads one, nothing names a game.
PUBLIC: list[dict[str, list[str]]] = []
_TEXT = {"content": {"text/plain": {"schema": {"type": "string"}}}}


def _text(body: str) -> Response:
    return Response(body, mimetype="text/plain", headers={"Cache-Control": "no-store"})


@audit.route("/checkpoint", methods=["GET"])
@audit.arguments(s.CheckpointArgs(), location="query")
@_errors(404)
@audit.doc(security=PUBLIC, responses={"200": {"description": "the signed checkpoint (c2sp.org/tlog-checkpoint "
                                                              "in a c2sp.org/signed-note)", **_TEXT}})
def get_checkpoint(args: dict[str, Any]) -> Response:
    """The log's latest signed checkpoint (origin, tree size, base64 root), or the one of ``tree_size``: what a
    monitor keeps and what ``python -m torres_audit verify --checkpoint`` checks a record's proof against."""
    return _text(service().translog.checkpoint(args.get("tree_size")).note)


@audit.route("/proof/inclusion", methods=["GET"])
@audit.arguments(s.InclusionArgs(), location="query")
@audit.response(200, s.InclusionProofSchema)
@_errors(400, 404)
@audit.doc(security=PUBLIC)
def get_inclusion_proof(args: dict[str, Any]) -> Response:
    """The RFC 9162 audit path of the leaf ``leaf_hash`` (hex SHA-256 of 0x00 || a finished game's head
    statement) in the tree of ``tree_size`` leaves (default: the latest checkpoint's). The answer names no game;
    a game's proof by id is the ``inclusion`` member of its record."""
    svc = service()
    leaf = svc.store.log_leaf(leaf_hash=bytes.fromhex(args["leaf_hash"]))
    if leaf is None:
        raise ProofUnavailable("the log holds no such leaf (yet: a finished game is integrated within a second)")
    return as_documented(svc.translog.inclusion(leaf, args.get("tree_size")))


@audit.route("/proof/consistency", methods=["GET"])
@audit.arguments(s.ConsistencyArgs(), location="query")
@audit.response(200, s.ConsistencyProofSchema)
@_errors(400, 404)
@audit.doc(security=PUBLIC)
def get_consistency_proof(args: dict[str, Any]) -> Response:
    """The RFC 9162 consistency proof that the tree of ``first`` leaves is a prefix of the tree of ``second``
    (default: the latest checkpoint's): what a monitor checks each new checkpoint with."""
    return as_documented(service().translog.consistency(args["first"], args.get("second")))


@well_known.route("/.well-known/torres-audit-key", methods=["GET"])
@well_known.doc(security=PUBLIC, responses={"200": {"description": "one vkey per line", **_TEXT}})
def get_audit_keys() -> Response:
    """The log's public keys (vkeys, c2sp.org/signed-note), one per line, the current one first; during a key
    rotation the previous one too; then the service's record key, which signs the game heads (a key of another
    name, which no verifier takes for the log's). Auditors should pin a key obtained out of band as well: this
    URL is served by the operator it is meant to check."""
    svc = service()
    return _text(svc.translog.well_known() + f"{svc.signer.verifier().vkey()}\n")

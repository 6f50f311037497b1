"""The development issuer of player tokens (``TORRES_DEV_ISSUER=1``; `make run` sets it): what a portal's
server does for its logged-in players, here so that the web lobby and curl work with no portal at all.

Registered only when enabled — otherwise the route does not exist (404) and is not in the OpenAPI document. It
is authenticated by the tenant's own API key (scope ``matchmaking``) and signs with that tenant's HS256 secret
through the one token code path (:func:`torres_service.principals.issue_player_token`), so a token it issues is
exactly what a portal would issue: verified the same way, by the same code.
"""

from __future__ import annotations

import time
from typing import Any

from flask import current_app

from torres_service.principals import Principal, issue_player_token
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses

from ..errors import DevIssuerUnavailable
from . import schemas as s
from .auth import PORTAL, portal_required, tenant_of

blp = Blueprint("dev", __name__, url_prefix="/v1/dev", description="Development only: a player-token issuer")
_errors = problem_responses(blp, s.ProblemSchema)


@blp.route("/player-tokens", methods=["POST"])
@portal_required
@blp.arguments(s.DevPlayerTokenSchema)
@blp.response(201, s.PlayerTokenSchema)
@_errors(400, 401, 403, 409)
@blp.doc(security=PORTAL)
def issue_dev_player_token(body: dict[str, Any], portal: Principal) -> dict[str, Any]:
    """A player token for ``player_id`` of the key's tenant, signed with the tenant's HS256 secret (409 when the
    tenant signs its own, with a JWKS). For development: a portal issues its players' tokens itself."""
    assert portal.tenant is not None
    tokens = tenant_of(portal.tenant).player_tokens
    if tokens is None or tokens.hs256_secret is None:
        raise DevIssuerUnavailable(f"tenant {portal.tenant!r} has no HS256 player-token secret here "
                                   "(TORRES_PLAYER_TOKEN_SECRET, or its entry in the tenants file)")
    lifetime = min(current_app.extensions["torres_matchmaking"].config.dev_token_lifetime, tokens.max_lifetime)
    now = int(time.time())
    named = {"name": body["name"]} if "name" in body else {}
    token = issue_player_token(tokens, body["player_id"], lifetime=lifetime, now=now, **named)
    return {"token": token, "token_type": "Bearer", "tenant": portal.tenant, "player_id": body["player_id"],
            "expires_at": now + lifetime}

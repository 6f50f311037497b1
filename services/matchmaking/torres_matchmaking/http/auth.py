"""Who is calling the matchmaker: a player, named by their portal's signed token, or a portal by its
API key. Reading and checking credentials only; which ticket or rating they reach is the views' and the
ticket service's business.

* **Player**: ``Authorization: Bearer <player token>``, a JWT the player's portal (tenant) signed
  (:meth:`torres_service.principals.Registries.verify_player`: signature, issuer, audience, expiry, lifetime). A
  request body never says who the player is. No header: 401 ``unauthenticated``; a token that does not verify:
  401 ``invalid_player_token``; a header that is not ``Bearer <token>``: 401 ``unsupported_authorization`` (the
  kit's input guard, before routing).
* **Portal**: ``X-API-Key`` of a tenant with the ``matchmaking`` scope (the dev issuer, the leaderboard, any
  player's rating). Internal keys belong to no tenant and are refused here (403).

Authentication runs before the body or the query is parsed (:func:`player_required` sits between the route and
``arguments``), so a caller without credentials learns nothing about what a valid request looks like.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import current_app, request

from torres_service.limits import bearer_token
from torres_service.principals import Principal, Registries, Tenant

from ..errors import Forbidden, MissingApiKey, MissingPlayerToken
from ..tickets import Owner

SCOPE = "matchmaking"

#: The OpenAPI security schemes (``components.securitySchemes``); operations name theirs with ``@blp.doc``.
SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "playerToken": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                    "description": "a player token: a JWT signed by the player's portal (iss, aud, sub = the "
                                   "player id, iat, exp; docs/security.md)"},
    "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key",
               "description": "a portal's (tenant's) API key with the matchmaking scope"},
    "streamTicket": {"type": "apiKey", "in": "query", "name": "stream_ticket",
                     "description": "a single-use stream ticket from POST /v1/tickets/{ticket_id}/stream-tickets "
                                    "(for EventSource, which cannot send headers)"},
}
Security = list[dict[str, list[str]]]
PLAYER: Security = [{"playerToken": []}]
PORTAL: Security = [{"apiKey": []}]
PLAYER_OR_PORTAL: Security = [{"playerToken": []}, {"apiKey": []}]


def registries() -> Registries:
    return current_app.extensions["torres_matchmaking"].registries


def tenant_of(name: str) -> Tenant:
    """The tenant as the registry has it now (an unknown one, removed since its token was signed, has no
    shared pool)."""
    return registries().current.tenant(name) or Tenant(name)


def player() -> Owner | None:
    """The player the request's bearer token names, or None without an ``Authorization`` header."""
    token = bearer_token(request.headers.get("Authorization"))
    if token is None:
        return None
    verified = registries().verify_player(token)
    return Owner(verified.tenant, verified.player_id, verified.name)


def portal() -> Principal | None:
    """The tenant whose ``X-API-Key`` the request carries (scope ``matchmaking``), or None without the header."""
    key = request.headers.get("X-API-Key")
    if key is None:
        return None
    principal = registries().principal(key)
    if principal.tenant is None:
        raise Forbidden("an internal service's key is no portal's: use the portal's own key")
    principal.require(SCOPE)
    return principal


def require_player() -> Owner:
    found = player()
    if found is None:
        raise MissingPlayerToken("send Authorization: Bearer <player token> (a JWT signed by your portal)")
    return found


def require_portal() -> Principal:
    found = portal()
    if found is None:
        raise MissingApiKey("send the portal's key in X-API-Key")
    return found


def caller_tenant() -> tuple[str, Owner | None, Principal | None]:
    """The tenant of a request made with a player token, a portal key, or both — both must then be valid and of
    one tenant (an ignored credential would mean a request served with rights the client did not mean)."""
    owner, principal = player(), portal()
    if owner is None and principal is None:
        raise MissingPlayerToken("send a player token (Authorization: Bearer) or the portal's key (X-API-Key)")
    if owner is not None and principal is not None and owner.tenant != principal.tenant:
        raise Forbidden("the player token and the key belong to different tenants")
    tenant = owner.tenant if owner is not None else principal.tenant  # type: ignore[union-attr]
    assert tenant is not None
    return tenant, owner, principal


def key_beside(tenant: str | None) -> Principal | None:
    """An ``X-API-Key`` sent on a player's request must hold as anywhere (unknown or revoked: 401; internal or
    without ``matchmaking``: 403) and be of the player's tenant (``tenant``; None: the caller checks it with
    :func:`same_tenant` once the player is known): a credential that does not verify is refused, never ignored
    beside one that does."""
    principal = portal()
    if tenant is not None:
        same_tenant(principal, tenant)
    return principal


def same_tenant(principal: Principal | None, tenant: str) -> None:
    if principal is not None and principal.tenant != tenant:
        raise Forbidden("the player's credential and the key belong to different tenants")


def player_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Authenticate the player before the request's arguments are parsed; the view gets them as ``owner``.
    Placed right under ``@blp.route`` (flask-smorest keeps the documentation of the views below)."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        owner = require_player()
        key_beside(owner.tenant)
        return view(*args, owner=owner, **kwargs)

    return wrapper


def portal_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """As :func:`player_required`, for a portal's key; the view gets the tenant's principal as ``portal``."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return view(*args, portal=require_portal(), **kwargs)

    return wrapper

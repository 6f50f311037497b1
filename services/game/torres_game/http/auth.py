"""Reading credentials from headers; deciding what they allow is the application layer's job."""

from __future__ import annotations

from flask import request

from torres_game.access import Credentials


def credentials() -> Credentials:
    auth = request.headers.get("Authorization", "")
    scheme, _, token = auth.partition(" ")
    return Credentials(
        api_key=request.headers.get("X-API-Key") or None,
        admin_key=request.headers.get("X-Admin-Key") or None,
        token=token.strip() or None if scheme.lower() == "bearer" else None,
    )

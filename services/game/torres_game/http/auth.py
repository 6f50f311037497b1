"""Reading credentials from headers; deciding what they allow is the application layer's job."""

from __future__ import annotations

from flask import request

from torres_game.access import Credentials
from torres_game.errors import ValidationFailed
from torres_service.limits import request_bearer


def credentials() -> Credentials:
    """The keys and the seat token the request carries. ``Authorization`` is read by the kit's one parser
    (:func:`torres_service.limits.request_bearer`, the token the input guard has already read): a header that
    is not ``Bearer <token>`` never gets here (401 ``unsupported_authorization``)."""
    # Straight from the WSGI environ, where ``request.headers.get`` finds them too (``X-API-Key`` is
    # ``HTTP_X_API_KEY``), taken out of the ``request`` proxy once: each attribute looked up on the proxy
    # (``request.headers``) goes through an AttributeError it raises and formats first.
    environ = request._get_current_object().environ  # type: ignore[attr-defined]
    return Credentials(
        api_key=environ.get("HTTP_X_API_KEY") or None,
        admin_key=environ.get("HTTP_X_ADMIN_KEY") or None,
        token=request_bearer(environ),
    )


def stream_ticket(creds: Credentials) -> str | None:
    """The ``stream_ticket`` query parameter of ``/stream`` and ``/ws``: the one credential a browser can give
    them. Not together with a bearer token (400): a request says who it is one way."""
    ticket = request.args.get("stream_ticket") or None
    if ticket is not None and creds.token is not None:
        raise ValidationFailed("send a stream ticket or an Authorization header, not both",
                               errors={"stream_ticket": ["not with an Authorization header"]})
    return ticket

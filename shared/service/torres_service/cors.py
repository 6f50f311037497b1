"""Cross-origin access for browser clients served from another origin (the web client's matchmaking lobby
under `make run`, or a portal's own pages): off unless ``TORRES_CORS_ORIGINS`` lists the allowed origins."""

from __future__ import annotations

from flask import Flask
from flask_cors import CORS

from .settings import Setting, items

ORIGINS = Setting("TORRES_CORS_ORIGINS", "origins allowed to call the API from a browser (unset: no CORS "
                  "headers, same-origin only; `make run` lets the game's origin call the matchmaker)",
                  kind=tuple[str, ...], default=())

#: Request headers a browser client sends: seat token, keys, idempotency.
ALLOWED_HEADERS = ["Content-Type", "Authorization", "X-API-Key", "X-Admin-Key", "Idempotency-Key"]


def allow_cross_origin(app: Flask, origins: str | None = None) -> None:
    """Answer CORS preflights and add ``Access-Control-Allow-Origin`` for the comma-separated ``origins``
    (default: ``TORRES_CORS_ORIGINS``); nothing at all when none are listed, so the default stays same-origin."""
    listed = list(ORIGINS.read() if origins is None else items(origins))
    if listed:
        CORS(app, origins=listed, allow_headers=ALLOWED_HEADERS,
             expose_headers=["Idempotent-Replayed", "Retry-After"], max_age=600)

"""Schema bases: a body with an unknown field is refused (a typo must not be silently ignored); a query string
may carry extras (proxies and caches add some)."""

from __future__ import annotations

from marshmallow import EXCLUDE, RAISE, Schema


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE


class QuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

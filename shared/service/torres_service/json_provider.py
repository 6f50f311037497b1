"""Flask's JSON provider with orjson doing the encoding: response bodies are the largest JSON a service writes
per request, and the standard library's encoder was a measurable share of a game action's CPU.

The wire text stays what Flask's default provider means: insertion-ordered keys (``sort_keys=False``, set by
the apps), compact separators, the trailing newline, and Flask's ``default`` hook for the types it knows
(dates in HTTP format, decimals, UUIDs, dataclasses, ``__html__``). Differences in spelling only, which
every JSON parser reads back as the same value: non-ASCII characters are sent as UTF-8 instead of ``\\uXXXX``
escapes, floats use the shortest round-trip digits (``1e16`` rather than ``1e+16``), and ``dumps()`` without
arguments is compact too (the standard one puts a space after ``,`` and ``:``). Non-finite floats, which JSON
cannot carry (the standard encoder writes the invalid ``NaN``), come out as ``null``. Whatever orjson
refuses (integers beyond 64 bits, say) falls back to the standard encoder, so no body fails that worked
before. Request bodies are not decoded here: :func:`torres_service.limits.request_json` is the one parser of a
body (the standard library's, with hooks that refuse deep nesting, long numbers, NaN and repeated keys).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from flask import Response
from flask.json.provider import DefaultJSONProvider

# Dates and dataclasses are handed to Flask's ``default`` (HTTP dates, ``asdict``) rather than orjson's own
# rendering; non-string keys are converted the way ``json.dumps`` converts them.
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS


def dumps_bytes(obj: Any) -> bytes:
    """Compact JSON bytes of plain data (dicts with string keys, lists, strings, numbers) for storage, such as
    a database driver's JSON parameters: orjson, or the standard encoder for what orjson refuses."""
    try:
        return orjson.dumps(obj)
    except TypeError:  # orjson.JSONEncodeError: e.g. an int beyond 64 bits, a non-string key
        return json.dumps(obj, separators=(",", ":")).encode()


class OrjsonProvider(DefaultJSONProvider):
    """:class:`DefaultJSONProvider` with a fast path for the compact, unsorted output the services use."""

    def _fast(self, obj: Any) -> bytes | None:
        """orjson's bytes for ``obj``, or None when the standard encoder must decide (sorted keys asked for,
        or a value orjson does not encode)."""
        if self.sort_keys:
            return None
        try:
            return orjson.dumps(obj, default=self.default, option=_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError: e.g. an int beyond 64 bits
            return None

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs or kwargs == {"separators": (",", ":")}:
            fast = self._fast(obj)
            if fast is not None:
                return fast.decode()
        return super().dumps(obj, **kwargs)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if (self.compact is None and self._app.debug) or self.compact is False:
            return super().response(*args, **kwargs)  # indented output for humans
        fast = self._fast(self._prepare_response_obj(args, kwargs))
        if fast is None:
            return super().response(*args, **kwargs)
        return self._app.response_class(fast + b"\n", mimetype=self.mimetype)

"""The input guard in front of both services ("Safe on the open internet"): what a request may be
before any parser, schema or view sees it, each refusal a problem response with its own ``code``.

Why a guard and not the schemas: the failures it prevents happened *inside* the standard JSON parser, before
marshmallow ran, and came out as 500s with a logged traceback — an integer of more than 4 300 digits raises
``ValueError`` (a 4.4 kB body), arrays nested 1 000 deep raise ``RecursionError`` (a 2 kB body). Duplicate keys
were silently resolved (the last one won) and a ``text/plain`` body was answered with field errors. So:

* the request head first (:func:`check_head`, before routing and before the path's ids are checked): a request
  target longer than ``max_url_bytes`` is 414 ``uri_too_long``, a header line longer than ``max_header_bytes``
  or more than ``max_headers`` of them 431 ``headers_too_large``, an ``Authorization`` header that is not
  ``Bearer <token>`` 401 ``unsupported_authorization`` (never ignored: a ``Basic`` header beside ``X-API-Key``
  was served with the key's rights);
* then the body (:func:`request_json`, once per request, before the view): longer than ``max_body_bytes`` is
  413 ``payload_too_large``, not JSON 415 ``unsupported_media_type``, and the JSON is parsed by the standard
  library with its hooks (or by orjson where that provably gives the same value: :func:`parse_json`) refusing
  what it would otherwise accept or choke on: 400 ``json_too_deep``,
  ``json_number_too_long``, ``json_not_finite`` (NaN, Infinity, ``1e999``), ``json_duplicate_key``. Syntax
  errors stay 400 ``validation_failed`` as before.

This is the one place a body is parsed: webargs (``ProblemParser.load_json``) and the game service's hot path
both take :func:`request_json`'s value. Each limit is a setting (``TORRES_*``, :data:`VARIABLES`); docs/security.md
lists them with their defaults and answers. The production server's own limits (``infra/gunicorn.conf.py``) sit
above these, so that this guard, not gunicorn, is what answers.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any
from urllib.parse import quote

import orjson
from flask import Request
from marshmallow import missing
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.local import LocalProxy

from torres_service.errors import (
    HeadersTooLarge,
    JsonDuplicateKey,
    JsonNotFinite,
    JsonNumberTooLong,
    JsonTooDeep,
    PayloadTooLarge,
    UnsupportedAuthorization,
    UnsupportedMediaType,
    UriTooLong,
    ValidationFailed,
)
from torres_service.settings import Setting, values

#: The setting of each limit (docs/settings.md; docs/security.md, "Input limits"); the defaults are the fields'.
VARIABLES = {
    "max_body_bytes": Setting("TORRES_MAX_BODY_BYTES", "bytes a request body may have (the matchmaker's default: "
                              "16384); past it 413 `payload_too_large`"),
    "max_json_depth": Setting("TORRES_JSON_MAX_DEPTH", "levels of JSON arrays and objects a body may nest; past it "
                              "400 `json_too_deep`"),
    "max_number_length": Setting("TORRES_JSON_MAX_NUMBER_LENGTH", "characters of one JSON number literal; past "
                                 "it 400 `json_number_too_long`"),
    "max_url_bytes": Setting("TORRES_MAX_URL_BYTES", "bytes of the request target; past it 414 `uri_too_long`"),
    "max_header_bytes": Setting("TORRES_MAX_HEADER_BYTES", "bytes of one header line; past it 431 "
                                "`headers_too_large`"),
    "max_headers": Setting("TORRES_MAX_HEADERS", "headers of one request; past it 431 `headers_too_large`"),
}
#: The environment variable of each limit, named in the errors.
SETTINGS = {name: s.var for name, s in VARIABLES.items()}

@dataclass(frozen=True)
class InputLimits:
    """What one request may be. The defaults fit every request the clients send many times over (an action is
    about 150 bytes, 3 levels deep, its numbers a few digits) and stay below the production server's own limits
    (``infra/gunicorn.conf.py``: a 8 190-byte request line, 16 kB header lines, 128 headers)."""

    max_body_bytes: int = 64 * 1024
    max_json_depth: int = 32
    max_number_length: int = 100
    max_url_bytes: int = 4096
    max_header_bytes: int = 8192
    max_headers: int = 100
    decoder: json.JSONDecoder = field(init=False, repr=False, compare=False)
    #: A run of characters that may make up a number too long for orjson or for the limit (see :func:`_plain_value`)
    long_number: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in SETTINGS:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} ({SETTINGS[name]}) must be at least 1")
        object.__setattr__(self, "decoder", _decoder(self.max_number_length))
        object.__setattr__(self, "long_number", b"1" * min(19, self.max_number_length + 1))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **defaults: int) -> InputLimits:
        """The limits from ``TORRES_*`` variables; ``defaults`` are the service's own where it differs from the
        class's (the matchmaker takes smaller bodies). Read when the app is built, like the CORS origins."""
        return cls(**{**defaults, **values(cls, env, VARIABLES)})


# -- the body ---------------------------------------------------------------------------------------------------

def _decoder(max_number_length: int) -> json.JSONDecoder:
    """The standard library's decoder (its C scanner) with hooks that refuse, as each value is read, what JSON
    does not have or what Python cannot afford: the scanner hands number literals to ``parse_int`` and
    ``parse_float`` as text, so their length is checked before any conversion."""

    def integer(literal: str) -> int:
        if len(literal) > max_number_length:
            raise JsonNumberTooLong(f"a number has {len(literal)} characters; at most {max_number_length}",
                                    limit=max_number_length)
        return int(literal)

    def real(literal: str) -> float:
        if len(literal) > max_number_length:
            raise JsonNumberTooLong(f"a number has {len(literal)} characters; at most {max_number_length}",
                                    limit=max_number_length)
        value = float(literal)
        if not math.isfinite(value):
            raise JsonNotFinite(f"{literal[:40]} is beyond the range of a double")
        return value

    def constant(name: str) -> Any:
        raise JsonNotFinite(f"{name} is not a JSON number")

    def obj(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):  # rare: only then look for the key that came twice
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise JsonDuplicateKey(f"the key {key[:80]!r} appears twice in one object", key=key[:80])
                seen.add(key)
        return result

    return json.JSONDecoder(object_pairs_hook=obj, parse_int=integer, parse_float=real, parse_constant=constant)


# A JSON string, or an unterminated one up to the end of the text (possessive: each `"` is looked at once, so
# hostile text cannot make this quadratic). Strings are the only place where brackets are not structure.
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text``: the running count of brackets outside strings.

    Measured before parsing because the parser cannot be asked: its C scanner recurses once per level and
    has no depth hook (``object_pairs_hook`` runs innermost first, after the recursion). Not a parser: it
    validates nothing, it only bounds how deep the parser will go — wherever the parser gets, the strings
    found here are the ones it reads (a string it refuses stops it there)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _invalid_json(detail: str) -> ValidationFailed:
    # Word for word the answer webargs gave for a body it could not parse: clients see no change there.
    return ValidationFailed(detail, errors={"_body": ["Invalid JSON body."]})


def parse_json(data: bytes, limits: InputLimits) -> Any:
    """The value of a JSON body within ``limits``, or the :class:`ValidationFailed` (or subclass) saying why
    not. UTF-8 only (RFC 8259 8.1).

    The answer is the standard library's with the hooks (:func:`parse_json_slowly`, the definition). orjson
    gives the same value in a sixth of the time for the bodies where it provably can (:func:`_plain_value`), and
    every other body -- one orjson refuses, or one it would read otherwise -- gets the standard library's
    answer, error and all (tests/common/test_limits.py compares the two on hostile and generated bodies)."""
    # Each opening bracket adds at most one level: most bodies have fewer than the limit, and skip the scan. (A
    # bracket is one byte in UTF-8, never part of another character.)
    if data.count(b"[") + data.count(b"{") > limits.max_json_depth:
        depth = nesting_depth(_text(data))
        if depth > limits.max_json_depth:
            raise JsonTooDeep(f"the body nests {depth} levels deep; at most {limits.max_json_depth}",
                              limit=limits.max_json_depth)
    value = _plain_value(data, limits)
    return parse_json_slowly(data, limits) if value is _NOT_PLAIN else value


_NOT_PLAIN = object()
# Each byte that can be part of a JSON number as b"1", every other as b"0": a run of number characters is then a
# run of b"1" (a substring search, where a regular expression took four times as long as orjson's parse).
_NUMBER_CHARACTERS = bytes(49 if byte in b"-+.0123456789eE" else 48 for byte in range(256))


def _plain_value(data: bytes, limits: InputLimits) -> Any:
    """orjson's value of ``data`` where it is the standard library's, else :data:`_NOT_PLAIN`. orjson reads JSON
    as the standard library does (strict: no NaN, no control characters in strings, UTF-8 only), except where
    the hooks differ or it reads differently, each ruled out here:

    * an integer of 20 digits and more it reads as a float, and a number longer than the limit must be refused:
      a body with a run of 19 or more (or more than ``max_number_length``) characters that can make up a number
      goes the standard way (a run inside a string too: only the cheap test is needed);
    * a number beyond a double, a lone surrogate, it refuses: the standard way then says what it says;
    * a key that comes twice it resolves silently: the body's ``:`` are counted against those of the value
      written back. Without a backslash in the body, every string of the value is written back as it came, so
      each member dropped as a duplicate takes at least its own ``:`` with it."""
    if b"\\" in data or limits.long_number in data.translate(_NUMBER_CHARACTERS):
        return _NOT_PLAIN
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _NOT_PLAIN
    if data.count(b":") != orjson.dumps(value).count(b":"):
        return _NOT_PLAIN
    return value


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid_json("the body is not valid JSON") from exc


def parse_json_slowly(data: bytes, limits: InputLimits) -> Any:
    """:func:`parse_json`'s definition: the standard library's decoder with the hooks refusing what the limits
    and JSON refuse (and no depth check: :func:`parse_json` has made it)."""
    try:
        return limits.decoder.decode(_text(data))
    except json.JSONDecodeError as exc:
        raise _invalid_json("the body is not valid JSON") from exc
    except RecursionError:  # only if the depth limit is set near the interpreter's recursion limit
        raise JsonTooDeep("the body nests too deeply for the parser", limit=limits.max_json_depth) from None


_PARSED = "torres_service.json"


def request_json(request: Request, limits: InputLimits) -> Any:
    """The request's JSON body, read and parsed once under ``limits`` (later calls return the same value), or
    ``marshmallow.missing`` when it has none — which the schemas then answer with "missing field" errors, as
    they did for an empty body."""
    if type(request) is LocalProxy:  # flask.request itself: out of the proxy once (see torres_service.metrics)
        request = request._get_current_object()  # type: ignore[attr-defined]
    environ = request.environ
    if _PARSED in environ:
        return environ[_PARSED]
    length = request.content_length
    if length is not None and length > limits.max_body_bytes:
        raise PayloadTooLarge(f"the body has {length} bytes; at most {limits.max_body_bytes}",
                              limit=limits.max_body_bytes)
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    value: Any = missing
    if length or chunked:
        _check_media_type(request)
        try:
            data = request.get_data(cache=True)  # werkzeug stops a chunked body at MAX_CONTENT_LENGTH too
        except RequestEntityTooLarge:
            raise PayloadTooLarge(f"the body has more than {limits.max_body_bytes} bytes",
                                  limit=limits.max_body_bytes) from None
        if data:
            value = parse_json(data, limits)
    environ[_PARSED] = value
    return value


def _check_media_type(request: Request) -> None:
    """JSON (``application/json`` or ``application/*+json``, as webargs reads them) in UTF-8, or 415."""
    if request.environ.get("CONTENT_TYPE") == "application/json":  # what clients send: nothing to parse
        return
    if not request.is_json:
        sent = request.mimetype or "no Content-Type"
        raise UnsupportedMediaType(f"send the body as application/json, not {sent[:80]}")
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise UnsupportedMediaType(f"a JSON body is UTF-8, not {charset[:40]}")


# -- the head ---------------------------------------------------------------------------------------------------

# RFC 6750 2.1: "Bearer" (any case, RFC 9110 11.1), one or more spaces, a b64token. ASCII only, so that no
# Unicode case folding widens what matches.
_BEARER = re.compile(r"bearer +([A-Za-z0-9._~+/-]+=*) *", re.IGNORECASE | re.ASCII)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None without the header. Any other scheme or
    shape is 401 ``unsupported_authorization``: both services understand no other, and an ignored header
    would mean a request served with other rights than the client meant."""
    if authorization is None:
        return None
    match = _BEARER.fullmatch(authorization)
    if match is None:
        scheme = authorization.strip().partition(" ")[0][:20] or "an empty header"
        raise UnsupportedAuthorization(f"Authorization is understood as 'Bearer <token>' only, not {scheme}")
    return match.group(1)


_BEARER_KEY = "torres_service.bearer"


def request_bearer(environ: dict[str, Any]) -> str | None:
    """:func:`bearer_token` of the request's ``Authorization`` header, read once per request: the input guard
    reads it first (:func:`check_head`), and the credentials of the view take the same value from the environ
    (the regular expression cost as much as the rest of the head checks)."""
    if _BEARER_KEY in environ:
        return environ[_BEARER_KEY]  # type: ignore[no-any-return]
    token = environ[_BEARER_KEY] = bearer_token(environ.get("HTTP_AUTHORIZATION"))
    return token


def _request_target(environ: Mapping[str, Any]) -> str:
    """The request target as the client sent it (gunicorn and werkzeug both pass it on), else rebuilt."""
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if raw is not None:
        return str(raw)
    path = quote(environ.get("PATH_INFO", "").encode("latin-1", "replace"))
    query = environ.get("QUERY_STRING", "")
    return f"{path}?{query}" if query else path


def _longest_line(environ: Mapping[str, Any], names: list[str], limit: int) -> None:
    """431 naming the longest header line if it has more than ``limit`` bytes (the first of equals, in the
    environ's order)."""
    lines = {key: len(key) - 3 + len(environ[key]) for key in names}
    lines.update((key, len(key) + 2 + len(environ[key])) for key in ("CONTENT_TYPE", "CONTENT_LENGTH")
                 if key in environ)
    longest = max(lines, key=lines.__getitem__)
    if lines[longest] > limit:
        name = longest.removeprefix("HTTP_").replace("_", "-").title()
        raise HeadersTooLarge(f"the {name} header line has {lines[longest]} bytes; at most {limit}", limit=limit)


def check_head(environ: dict[str, Any], limits: InputLimits) -> None:
    """414, 431 or 401 for a request whose target, header lines or ``Authorization`` the services do not take.

    Header lines are counted as the server passed them on: it joins repeated fields into one, so the count here
    can be lower than on the wire (the server's own ``limit_request_fields`` bounds that)."""
    target = _request_target(environ)
    if len(target) > limits.max_url_bytes:
        raise UriTooLong(f"the request target has {len(target)} bytes; at most {limits.max_url_bytes}",
                         limit=limits.max_url_bytes)
    # This runs on every request, over an environ of 20 to 40 keys: one pass picks the header lines' keys, and
    # one line's size, "Name: value" (an ``HTTP_`` key is 5 longer than its name), is bounded by the longest key
    # plus the longest value, both taken by C functions. Only a head whose bound passes the limit -- none that a
    # client of ours sends -- is measured line by line, for the line to name. (Half the cost of sizing each line.)
    names = [key for key in environ if key[:5] == "HTTP_"]
    values = [*map(environ.__getitem__, names)]
    count = len(names)
    bound = max(map(len, names)) - 3 + max(map(len, values)) if names else 0
    for key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if key in environ:
            count += 1
            bound = max(bound, len(key) + 2 + len(environ[key]))
    if bound > limits.max_header_bytes:
        _longest_line(environ, names, limits.max_header_bytes)
    if count > limits.max_headers:
        raise HeadersTooLarge(f"{count} header fields; at most {limits.max_headers}", limit=limits.max_headers)
    request_bearer(environ)

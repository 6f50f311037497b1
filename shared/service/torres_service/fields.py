"""What a client may put in an identifier, a text field, a boolean or a number: ONE definition for every
service, checked at the edge, so that nothing a store or a driver cannot hold (a NUL byte, a lone surrogate, a
10 kB id, an integer beyond 64 bits) ever gets past the HTTP layer to fail there as a 500.

Every pattern is matched whole (``re.fullmatch``): ``re.match`` with a ``$`` anchor, which accepts a trailing
newline, is the bug this module exists to make impossible. The OpenAPI document is generated from the same
values (``pattern``, ``maxLength``, ``maximum``), so what the document promises and what the edge enforces
cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from marshmallow import ValidationError, fields, validate

# The largest integer any request may carry: exact in a JSON double (JavaScript clients) and in a 64-bit column.
MAX_INT = 2**53 - 1
# The largest version a request may name (nine digits): the store's version columns are 32-bit, and a version
# past that is past any game's end anyway. Query arguments, ``Last-Event-ID`` and the socket's ``?version``.
MAX_VERSION = 999_999_999


@dataclass(frozen=True)
class Kind:
    """A family of strings: the characters allowed (a regex matched whole) and the length range."""

    name: str
    pattern: str
    max_length: int
    min_length: int = 1
    rule: str = ""  # how a person reads the pattern, for error messages

    def __post_init__(self) -> None:
        object.__setattr__(self, "_regex", re.compile(self.pattern, re.DOTALL))

    def accepts(self, value: object) -> bool:
        return (type(value) is str and self.min_length <= len(value) <= self.max_length
                and self._regex.fullmatch(value) is not None)  # type: ignore[attr-defined]

    @property
    def message(self) -> str:
        return f"a {self.name} is {self.min_length}-{self.max_length} characters: {self.rule}"

    def openapi(self) -> dict[str, Any]:
        """JSON Schema of the kind (ECMA regexes have no trailing-newline ``$``, so ``^...$`` is exact there).
        Characters outside printable ASCII are written as ``\\uXXXX`` escapes, which ECMA, Python and Rust
        regexes all read; the lone-surrogate range is left out of the document, as a JSON text in UTF-8 cannot
        carry one anyway (the edge still refuses them)."""
        pattern = self.pattern.replace(_SURROGATES, "")
        escaped = "".join(c if " " <= c <= "~" else f"\\u{ord(c):04x}" for c in pattern)
        return {"type": "string", "pattern": f"^{escaped}$", "minLength": self.min_length,
                "maxLength": self.max_length}


_ID = "[A-Za-z0-9][A-Za-z0-9_.:@-]*"
_ID_RULE = "letters, digits and _.:@- (not first)"

PLAYER_ID = Kind("player id", _ID, 64, rule=_ID_RULE)
GAME_ID = Kind("game id", _ID, 64, rule=_ID_RULE)
COMMAND_ID = Kind("command id", _ID, 200, rule=_ID_RULE)
IDEMPOTENCY_KEY = Kind("idempotency key", _ID, 200, rule=_ID_RULE)
TICKET_ID = Kind("ticket id", "[0-9a-f]{32}", 32, 32, rule="lowercase hex digits")
NAME = Kind("name", "[a-z][a-z0-9_]*", 64, rule="lowercase letters, digits and _ (a letter first)")
# Free text: any Unicode except control characters (NUL included), bidirectional embeddings, overrides and
# isolates (text that displays other than it reads; the marks U+200E/U+200F stay allowed), lone surrogates
# and noncharacters.
_SURROGATES = "\ud800-\udfff"
_NOT_TEXT = f"\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069{_SURROGATES}\ufffe\uffff"
TEXT = Kind("text", f"[^{_NOT_TEXT}]*", 500, 0,
            rule="no control characters, bidirectional overrides or lone surrogates")


class _Matches(validate.Validator):
    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def __call__(self, value: Any) -> Any:
        if not self.kind.accepts(value):
            raise ValidationError(self.kind.message)
        return value


def identifier(kind: Kind, *, description: str = "", **kwargs: Any) -> fields.String:
    """A string field of ``kind``, validated whole and documented with its pattern and lengths."""
    meta = {**kind.openapi(), **({"description": description} if description else {})}
    meta.pop("type")
    return fields.String(validate=_Matches(kind), metadata=meta, **kwargs)


#: What clients call a seat: the game's ``display_name`` and a player token's ``name`` claim, which the matchmaker
#: passes on as its seat's display name (so a name the token carries is one the game service takes).
DISPLAY_NAME = Kind("text", TEXT.pattern, 64, 0, TEXT.rule)


def text(*, max_length: int = TEXT.max_length, description: str = "", **kwargs: Any) -> fields.String:
    """Free text (a reason, a label): printable Unicode up to ``max_length`` characters."""
    return identifier(Kind("text", TEXT.pattern, max_length, 0, TEXT.rule), description=description, **kwargs)


URL = Kind("URL", "https?://[!-~]+", 2000, rule="an http(s) URL in printable ASCII (percent-encode the rest)")


def url(*, description: str = "", **kwargs: Any) -> fields.Url:
    """An http(s) URL the service will call: ASCII only and bounded, on top of marshmallow's URL checks."""
    meta = {**URL.openapi(), "format": "uri", **({"description": description} if description else {})}
    meta.pop("type")
    return fields.Url(schemes={"http", "https"}, require_tld=False, validate=_Matches(URL), metadata=meta,
                      **kwargs)


class StrictBoolean(fields.Boolean):
    """A JSON boolean and nothing else: marshmallow's Boolean also takes "yes", "on", 1 and "TRUE"."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if type(value) is not bool:
            raise self.make_error("invalid")
        return value


def version_text(raw: str) -> int | None:
    """A version written as text (a header, the socket's query string): one to nine ASCII digits, else None.
    Not ``str.isdigit``, which also takes "²" and other digits ``int`` cannot read."""
    return int(raw) if _VERSION_TEXT(raw) else None


_VERSION_TEXT = re.compile(r"[0-9]{1,9}").fullmatch


def integer(*, minimum: int = 0, maximum: int = MAX_INT, strict: bool = False, **kwargs: Any) -> fields.Integer:
    """An integer bounded on both sides (no field may carry more than :data:`MAX_INT`); ``strict`` for JSON
    bodies (no "7" for 7), not for query strings, which are text."""
    return fields.Integer(strict=strict, validate=validate.Range(min=minimum, max=maximum), **kwargs)


_TEXT_BAD = re.compile(f"[{_NOT_TEXT}]").search
_NAME_OK = re.compile(NAME.pattern).fullmatch
# Keys and short strings already found good: actions repeat a small vocabulary ("type", "at", "C3"...), so a
# set lookup replaces the regex on the hot path. Bounded, so that hostile input cannot grow it.
_GOOD_KEYS: set[str] = set()
_GOOD_LEAVES: set[str] = set()
_REMEMBER = 4096


def _good_key(key: Any) -> bool:
    if type(key) is not str:
        return False
    if key in _GOOD_KEYS:
        return True
    if len(key) > NAME.max_length or not _NAME_OK(key):
        return False
    if len(_GOOD_KEYS) < _REMEMBER:
        _GOOD_KEYS.add(key)
    return True


def _good_leaf(item: Any) -> bool:
    """A short text string (the common leaf of an action), remembered once checked."""
    if type(item) is not str:
        return False
    if item in _GOOD_LEAVES:
        return True
    if len(item) > 64 or _TEXT_BAD(item):
        return False
    if len(_GOOD_LEAVES) < _REMEMBER:
        _GOOD_LEAVES.add(item)
    return True


def plain_json(value: Any, *, depth: int = 8, max_items: int = 100) -> str | None:
    """Why ``value`` (a free-form JSON object such as an action) cannot be taken, or None when it can: its
    keys are :data:`NAME` s, its strings :data:`TEXT`, its integers within :data:`MAX_INT`, and it is small
    (``depth`` levels, ``max_items`` per container). On the hot path of every action: plain loops over exact
    types, the two regexes called directly."""
    kind = type(value)
    if kind is str:
        return None if len(value) <= TEXT.max_length and not _TEXT_BAD(value) else \
            f"strings must have {TEXT.rule}, up to {TEXT.max_length} characters"
    if kind is int:
        return None if -MAX_INT <= value <= MAX_INT else f"integers must be within ±{MAX_INT}"
    if kind is bool or kind is float or value is None:
        return None
    if kind is not dict and kind is not list:
        return "not a JSON value"
    if depth <= 0:
        return "nested too deeply"
    if len(value) > max_items:
        return f"at most {max_items} items per object or list"
    if kind is dict:
        for key in value:
            if not _good_key(key):
                return f"keys must be names: {NAME.rule}"
        value = value.values()
    for item in value:
        if _good_leaf(item):
            continue
        problem = plain_json(item, depth=depth - 1, max_items=max_items)
        if problem:
            return problem
    return None


class PlainObject(fields.Dict):
    """A free-form JSON object whose keys and strings are checked by :func:`plain_json`; its document says the
    item cap (OpenAPI 3.0 has no ``propertyNames``: a field using it lists the names it takes)."""

    def __init__(self, **kwargs: Any) -> None:
        metadata = dict(kwargs.pop("metadata", {}))
        metadata["openapi"] = {"maxProperties": 100, **metadata.get("openapi", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        loaded = super()._deserialize(value, attr, data, **kwargs)
        problem = plain_json(loaded)
        if problem:
            raise ValidationError(problem)
        return loaded

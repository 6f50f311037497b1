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
        """JSON Schema of the kind (ECMA regexes have no trailing-newline ``$``, so ``^...$`` is exact there)."""
        return {"type": "string", "pattern": f"^{self.pattern}$", "minLength": self.min_length,
                "maxLength": self.max_length}


_ID = "[A-Za-z0-9][A-Za-z0-9_.:@-]*"
_ID_RULE = "letters, digits and _.:@- (not first)"

PLAYER_ID = Kind("player id", _ID, 64, rule=_ID_RULE)
GAME_ID = Kind("game id", _ID, 64, rule=_ID_RULE)
COMMAND_ID = Kind("command id", _ID, 200, rule=_ID_RULE)
IDEMPOTENCY_KEY = Kind("idempotency key", _ID, 200, rule=_ID_RULE)
TICKET_ID = Kind("ticket id", "[0-9a-f]{32}", 32, 32, rule="lowercase hex digits")
NAME = Kind("name", "[a-z][a-z0-9_]*", 64, rule="lowercase letters, digits and _ (a letter first)")
# Free text: any Unicode except control characters (NUL included), lone surrogates and noncharacters.
TEXT = Kind("text", "[^\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]*", 500, 0,
            rule="no control characters or lone surrogates")


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


def text(*, max_length: int = TEXT.max_length, description: str = "", **kwargs: Any) -> fields.String:
    """Free text (a reason, a label): printable Unicode up to ``max_length`` characters."""
    return identifier(Kind("text", TEXT.pattern, max_length, 0, TEXT.rule), description=description, **kwargs)


class StrictBoolean(fields.Boolean):
    """A JSON boolean and nothing else: marshmallow's Boolean also takes "yes", "on", 1 and "TRUE"."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if type(value) is not bool:
            raise self.make_error("invalid")
        return value


def integer(*, minimum: int = 0, maximum: int = MAX_INT, strict: bool = False, **kwargs: Any) -> fields.Integer:
    """An integer bounded on both sides (no field may carry more than :data:`MAX_INT`); ``strict`` for JSON
    bodies (no "7" for 7), not for query strings, which are text."""
    return fields.Integer(strict=strict, validate=validate.Range(min=minimum, max=maximum), **kwargs)


def plain_json(value: Any, *, depth: int = 8, max_items: int = 100) -> str | None:
    """Why ``value`` (a free-form JSON object such as an action) cannot be taken, or None when it can: its
    keys are names, its strings are text, and it is small (``depth``, ``max_items`` per container)."""
    if depth < 0:
        return "nested too deeply"
    if isinstance(value, str):
        return None if TEXT.accepts(value) or value == "" else f"strings must be {TEXT.rule}, up to 500 characters"
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return None
    if isinstance(value, int):
        return None if -MAX_INT <= value <= MAX_INT else f"integers must be within ±{MAX_INT}"
    if isinstance(value, (list, dict)):
        if len(value) > max_items:
            return f"at most {max_items} items per object or list"
        if isinstance(value, dict):
            for key in value:
                if not NAME.accepts(key):
                    return f"keys must be names: {NAME.rule}"
        for item in value.values() if isinstance(value, dict) else value:
            problem = plain_json(item, depth=depth - 1, max_items=max_items)
            if problem:
                return problem
        return None
    return "not a JSON value"


class PlainObject(fields.Dict):
    """A free-form JSON object whose keys and strings are checked by :func:`plain_json`."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        loaded = super()._deserialize(value, attr, data, **kwargs)
        problem = plain_json(loaded)
        if problem:
            raise ValidationError(problem)
        return loaded

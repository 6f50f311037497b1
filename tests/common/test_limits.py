"""The input guard's parts (torres_service.limits), without a service: the one JSON parser of request
bodies and its limits, the depth scan, the bearer-token reading and the request-head checks."""

from __future__ import annotations

import json
import time
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torres_service.errors import (
    HeadersTooLarge,
    JsonDuplicateKey,
    JsonNotFinite,
    JsonNumberTooLong,
    JsonTooDeep,
    ServiceError,
    UnsupportedAuthorization,
    UriTooLong,
    ValidationFailed,
)
from torres_service.limits import (
    SETTINGS,
    InputLimits,
    bearer_token,
    check_head,
    nesting_depth,
    parse_json,
    parse_json_slowly,
    request_bearer,
)

LIMITS = InputLimits()


def parse(text: str, limits: InputLimits = LIMITS) -> Any:
    return parse_json(text.encode("utf-8", "surrogatepass"), limits)


@pytest.mark.parametrize(("text", "error"), [
    ("[" + "1" * 4301 + "]", JsonNumberTooLong),             # was ValueError (int conversion limit)
    ("[" * 1000 + "]" * 1000, JsonTooDeep),                   # was RecursionError
    ('{"a":' * 1000 + "1" + "}" * 1000, JsonTooDeep),
    ('{"seat": 0, "seat": 1}', JsonDuplicateKey),             # was the last one winning
    ('{"a": {"b": 1, "b": 1}}', JsonDuplicateKey),
    ('[{"x": 1}, {"y": 2, "y": 2}]', JsonDuplicateKey),
    ("[NaN]", JsonNotFinite), ("[Infinity]", JsonNotFinite), ("[-Infinity]", JsonNotFinite),
    ("[1e999]", JsonNotFinite), ("[-1E400]", JsonNotFinite),
    ("[" + "1" * 101 + "]", JsonNumberTooLong), ("[-" + "1" * 100 + "]", JsonNumberTooLong),
    ("[0." + "1" * 99 + "]", JsonNumberTooLong),
    ("{not json", ValidationFailed), ("", ValidationFailed), ("[1] [2]", ValidationFailed),
])
def test_each_hostile_shape_has_its_error(text: str, error: type[ServiceError]) -> None:
    with pytest.raises(error) as raised:
        parse(text)
    assert raised.type is error  # the precise code, not a parent's
    assert raised.value.status == 400


def test_the_limits_are_inclusive() -> None:
    assert parse("[" * 32 + "]" * 32) is not None
    with pytest.raises(JsonTooDeep):
        parse("[" * 33 + "]" * 33)
    assert parse("[" + "9" * 100 + "]") == [int("9" * 100)]
    assert parse("[-" + "9" * 99 + "]") == [-int("9" * 99)]
    assert parse("[1.7976931348623157e308, -0.0, 5e-324]") == [1.7976931348623157e308, -0.0, 5e-324]


def test_the_errors_carry_their_limit_and_key() -> None:
    with pytest.raises(JsonTooDeep) as deep:
        parse("[" * 40 + "]" * 40)
    assert deep.value.extras["limit"] == 32 and "40" in deep.value.detail
    with pytest.raises(JsonNumberTooLong) as long:
        parse("[" + "1" * 200 + "]")
    assert long.value.extras["limit"] == 100
    with pytest.raises(JsonDuplicateKey) as dup:
        parse('{"seat": 0, "x": 1, "seat": 0}')
    assert dup.value.extras["key"] == "seat"


def test_brackets_in_strings_are_not_nesting() -> None:
    text = json.dumps(["[" * 1000, {"k": "{" * 500 + '\\"[[[', "[[": "]]]]"}])
    assert parse(text) == json.loads(text)
    assert nesting_depth(text) == 2
    assert nesting_depth('["\\\\", [["\\"]]"]]]') == 3  # an escaped backslash, then an escaped quote


def test_invalid_utf8_and_encodings_are_invalid_json() -> None:
    for data in (b'{"a": "\xff"}', b'\xef\xbb\xbf{"a": 1}', '{"a": 1}'.encode("utf-16")):
        with pytest.raises(ValidationFailed) as raised:
            parse_json(data, LIMITS)
        assert raised.value.code == "validation_failed" and raised.value.extras == {
            "errors": {"_body": ["Invalid JSON body."]}}


@pytest.mark.parametrize("text", [
    '"' + '\\"' * 30_000,                          # one unterminated string of escaped quotes
    '"' + '\\"' * 30_000 + "\\",                   # ... ending in a lone backslash
    '["' * 20_000,                                 # many strings, none closed
    '"' * 60_000, "[" * 60_000, '[\\"' * 20_000,
])
def test_the_depth_scan_is_linear_on_hostile_text(text: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ValidationFailed):
        parse(text)
    assert time.perf_counter() - started < 0.5


def test_the_recursion_limit_is_a_backstop_not_a_500() -> None:
    """Set far above the interpreter's recursion limit, the depth limit no longer protects the parser: its
    RecursionError is still answered as too deep."""
    with pytest.raises(JsonTooDeep):
        parse("[" * 50_000 + "]" * 50_000, InputLimits(max_json_depth=100_000))


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**99) + 1, 10**99 - 1) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=30)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(value=JSON_VALUES, wrap=st.integers(0, 40))
def test_whatever_json_can_write_parses_as_json_loads_or_is_too_deep(value: Any, wrap: int) -> None:
    """The guard changes nothing for well-formed JSON within the limits, and measures depth exactly."""
    text = "[" * wrap + json.dumps(value) + "]" * wrap
    assert nesting_depth(text) == _depth(value) + wrap
    if _depth(value) + wrap > LIMITS.max_json_depth:
        with pytest.raises(JsonTooDeep):
            parse(text)
    else:
        assert parse(text) == json.loads(text)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=st.text(alphabet=st.sampled_from('[]{}",:\\01eE.-+ aNInfity\x00\u00e9'), max_size=200))
def test_any_text_is_a_value_or_a_400(text: str) -> None:
    """Bracket soup, stray quotes and backslashes: never another exception than the guard's 400s."""
    try:
        parse(text)
    except ValidationFailed as refused:
        assert refused.status == 400


# -- orjson's value where it is the standard library's ------------------------------------------------------------

def _answer(parse_body: Any, data: bytes, limits: InputLimits) -> tuple[Any, ...]:
    """A parse's whole answer: the value's repr (types and all: 1 is not 1.0, -0.0 not 0.0), or the error's class,
    status, detail and extras."""
    try:
        return ("value", repr(parse_body(data, limits)))
    except ServiceError as refused:
        return ("refused", type(refused), refused.status, refused.detail, refused.extras)


def _by_the_standard_library(data: bytes, limits: InputLimits) -> Any:
    """parse_json as it was before orjson answered any body: decode, the depth scan, the decoder with its hooks."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return parse_json_slowly(data, limits)  # the same refusal
    if text.count("[") + text.count("{") > limits.max_json_depth:
        depth = nesting_depth(text)
        if depth > limits.max_json_depth:
            raise JsonTooDeep(f"the body nests {depth} levels deep; at most {limits.max_json_depth}",
                              limit=limits.max_json_depth)
    return parse_json_slowly(data, limits)


def _same_answer(data: bytes, limits: InputLimits = LIMITS) -> None:
    assert _answer(parse_json, data, limits) == _answer(_by_the_standard_library, data, limits), data[:200]


HOSTILE_BODIES = [
    b"[1e999]", b"[-1e400]", b"[1e-400]", b"[5e-324]", b"[1.7976931348623157e308]", b"[-0]", b"[-0.0]", b"[0.1e1]",
    b"[123456789012345678]", b"[1234567890123456789]", b"[12345678901234567890]", b"[18446744073709551616]",
    b"[-9223372036854775808]", b"[-9223372036854775809]", b"[" + b"1" * 100 + b"]", b"[" + b"1" * 101 + b"]",
    b"[0." + b"1" * 99 + b"]", b"[1.00000000000000011102230246251565]", b"[9007199254740993]",
    b'{"a":1,"a":2}', b'{"a":1,"b":{"c":1,"c":1}}', b'{"a":1,"a":2,"b":"\\u003a"}', b'{"a":":","a":1}',
    b'{"a\\u0000":1,"a\\u0000":1}', b'{"\\u0061":1,"a":2}', b'{"a": "x:y", "b": 1}', b'["\\ud800"]', b'["\\udc00x"]',
    b'["\\ud83d\\ude00"]', b'"\\u0000"', b'["a\nb"]', b'["a\x01"]', b'["\xed\xa0\x80"]', b'["\xff"]',
    b"\xef\xbb\xbf[1]", b"[NaN]", b"[Infinity]", b"[-Infinity]", b"[1] [2]", b"[1,]", b'{"a":1,}',
    b"[01]", b"[-]", b"[+1]", b"[.5]", b"[1.]", b"[1e]", b" [1] \n", b"\t{}\r\n", b"[\x0c1]",
    b"[" * 33 + b"]" * 33, b"[" * 32 + b"]" * 32,
    b"[" * 2000, b"true", b"null", b"1", b'"s"', b"tru", b"{}", b"[]", b'{"a":[1,{"b":null}],"c":true}',
]


@pytest.mark.parametrize("data", HOSTILE_BODIES)
def test_hostile_bodies_get_the_standard_librarys_answer(data: bytes) -> None:
    _same_answer(data)
    _same_answer(data, InputLimits(max_number_length=5, max_json_depth=3))


@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(value=JSON_VALUES, dumps=st.sampled_from(["json", "orjson", "compact", "ascii"]),
       duplicate=st.booleans(), number_length=st.sampled_from([100, 5, 18, 19, 20]))
def test_generated_bodies_get_the_standard_librarys_answer(value: Any, dumps: str, duplicate: bool,
                                                           number_length: int) -> None:
    """Whatever JSON a client writes (each encoder's escapes and spacing), a key sent twice in one object, and
    numbers near every length limit: the same value, or the same refusal, as the standard library's."""
    if dumps == "orjson":
        try:
            data = orjson.dumps(value)
        except TypeError:  # an integer past 64 bits
            data = json.dumps(value).encode()
    else:
        data = json.dumps(value, ensure_ascii=dumps == "ascii",
                          separators=(",", ":") if dumps == "compact" else None).encode("utf-8", "surrogatepass")
    if duplicate and data.startswith(b"{") and data != b"{}":
        first = data[1:].split(b",", 1)[0].rstrip(b"}")
        data = b"{" + first + b"," + data[1:]
    _same_answer(data, InputLimits(max_number_length=number_length))


@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(data=st.binary(max_size=60) | st.text(alphabet=st.sampled_from(
    '[]{}",:\\01239eE.-+ aNInfitynul\x00\x1f\u00e9\ud800'), max_size=80).map(
    lambda text: text.encode("utf-8", "surrogatepass")))
def test_any_bytes_get_the_standard_librarys_answer(data: bytes) -> None:
    _same_answer(data)


@pytest.mark.parametrize(("header", "token"), [
    (None, None), ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER  abc  ", "abc"),
    ("Bearer eyJ0eXAi.eyJzdWIi.c2lnbmF0dXJl", "eyJ0eXAi.eyJzdWIi.c2lnbmF0dXJl"), ("Bearer a+b/c==", "a+b/c=="),
    ("Bearer Zm9v-_~.", "Zm9v-_~."),
])
def test_a_bearer_token_is_read(header: str | None, token: str | None) -> None:
    assert bearer_token(header) == token


@pytest.mark.parametrize("header", [
    "", " ", "Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer a b", "Bearer a=b", "Bearer\tabc", "Token abc",
    "Digest username=x", "Bearer ab\u00e9", "Bearer \u212aey", "Bearerabc", "Bearer abc, Basic x",
])
def test_any_other_authorization_is_refused(header: str) -> None:
    with pytest.raises(UnsupportedAuthorization) as refused:
        bearer_token(header)
    assert refused.value.status == 401 and dict(refused.value.headers) == {"WWW-Authenticate": "Bearer"}


def _environ(**extra: str) -> dict[str, str]:
    return {"REQUEST_METHOD": "GET", "PATH_INFO": "/v1/games", "QUERY_STRING": "", "HTTP_HOST": "x", **extra}


def test_the_head_checks() -> None:
    check_head(_environ(RAW_URI="/v1/games?" + "x" * 4000), LIMITS)
    with pytest.raises(UriTooLong):
        check_head(_environ(RAW_URI="/v1/games?" + "x" * 4100), LIMITS)
    with pytest.raises(UriTooLong):  # no RAW_URI / REQUEST_URI: rebuilt from the path, as sent (escaped)
        check_head(_environ(PATH_INFO="/" + "\u00e9" * 1500), LIMITS)
    check_head(_environ(HTTP_X_PAD="x" * (8192 - len("X-Pad: "))), LIMITS)
    with pytest.raises(HeadersTooLarge):
        check_head(_environ(HTTP_X_PAD="x" * (8193 - len("X-Pad: "))), LIMITS)
    with pytest.raises(HeadersTooLarge):
        check_head(_environ(CONTENT_TYPE="x" * 9000), LIMITS)
    check_head(_environ(**{f"HTTP_X_{n}": "x" for n in range(99)}), LIMITS)  # and Host: 100
    with pytest.raises(HeadersTooLarge):
        check_head(_environ(**{f"HTTP_X_{n}": "x" for n in range(100)}), LIMITS)
    with pytest.raises(UnsupportedAuthorization):
        check_head(_environ(HTTP_AUTHORIZATION="Basic x"), LIMITS)


def _head_answer_line_by_line(environ: dict[str, str], limits: InputLimits) -> str | None:
    """What :func:`check_head` answers about the header lines, by sizing each line (the code it replaced, kept
    here as the reference): the message of its 431, or None."""
    lines = {key: len(key) - 3 + len(value) for key, value in environ.items() if key[:5] == "HTTP_"}
    lines.update((key, len(key) + 2 + len(environ[key])) for key in ("CONTENT_TYPE", "CONTENT_LENGTH")
                 if key in environ)
    if lines:
        longest = max(lines, key=lines.__getitem__)
        if lines[longest] > limits.max_header_bytes:
            name = longest.removeprefix("HTTP_").replace("_", "-").title()
            return f"the {name} header line has {lines[longest]} bytes; at most {limits.max_header_bytes}"
    if len(lines) > limits.max_headers:
        return f"{len(lines)} header fields; at most {limits.max_headers}"
    return None


_header_names = st.sampled_from(["HTTP_HOST", "HTTP_X_PAD", "HTTP_X_A", "HTTP_ACCEPT", "HTTP_" + "L" * 40,
                                 "CONTENT_TYPE", "CONTENT_LENGTH", "SERVER_NAME", "wsgi.url_scheme", "HTTP_",
                                 "HTTPX", "X_HTTP_Y"]) | st.text("ABCXY_", min_size=1, max_size=12).map("HTTP_".__add__)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_header_names, st.text("ab", max_size=70), max_size=12),
       st.integers(1, 90), st.integers(1, 12))
def test_the_head_bound_answers_as_sizing_each_line(headers: dict[str, str], max_bytes: int, max_count: int) -> None:
    """The line sizes are bounded by the longest key plus the longest value, and only measured one by one past
    that bound: the answers (accepted, or the 431 and its message) are the line-by-line sizing's, near the limits
    and past them."""
    limits = InputLimits(max_header_bytes=max_bytes, max_headers=max_count)
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/v1/games", **headers}
    expected = _head_answer_line_by_line(environ, limits)
    if expected is None:
        check_head(environ, limits)
    else:
        with pytest.raises(HeadersTooLarge) as refused:
            check_head(environ, limits)
        assert refused.value.detail == expected


def test_the_limits_come_from_the_environment() -> None:
    env = {name: "7" for name in SETTINGS.values()}
    assert InputLimits.from_env(env) == InputLimits(**dict.fromkeys(SETTINGS, 7))
    assert InputLimits.from_env({}, max_body_bytes=1024) == InputLimits(max_body_bytes=1024)
    assert InputLimits.from_env({"TORRES_MAX_BODY_BYTES": "5"}, max_body_bytes=1024).max_body_bytes == 5
    with pytest.raises(ValueError, match="TORRES_JSON_MAX_DEPTH"):
        InputLimits.from_env({"TORRES_JSON_MAX_DEPTH": "0"})


@pytest.mark.parametrize("header", [None, "Bearer abc", "bearer  a+b/c==  ", "Basic x", "Bearer a b", ""])
def test_the_bearer_token_is_read_once_per_request(header: str | None) -> None:
    """request_bearer gives bearer_token's answer, the first time and from the environ after."""
    environ = {} if header is None else {"HTTP_AUTHORIZATION": header}
    try:
        expected: Any = bearer_token(header)
    except UnsupportedAuthorization:
        with pytest.raises(UnsupportedAuthorization):
            request_bearer(environ)
        return
    assert request_bearer(environ) == expected
    environ["HTTP_AUTHORIZATION"] = "Basic changed"  # not read again
    assert request_bearer(environ) == expected

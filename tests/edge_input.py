"""What the edge tests of both services share: the schemathesis settings of the OpenAPI gate, the
hostile strings, and a walk over an OpenAPI document that finds every place a client can put a string.

The walk reads the services' own ``/openapi.json``, so an endpoint, query argument or body field added later
is attacked too without anyone listing it here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode, checks
from schemathesis.core.parameters import ParameterLocation
from werkzeug.exceptions import HTTPException, MethodNotAllowed

# The gate's checks: every check schemathesis has, not a chosen few -- no 5xx, every status and
# content type and header as documented, bodies as their schemas say, invalid input refused and valid input
# accepted, required headers, unsupported methods (405 with Allow), resources usable after creation and gone
# after deletion, and the authentication checks: ``ignored_auth`` (an operation that declares a security
# scheme refuses a request without it, or with an invalid one, with 401/403) and ``object_level_authorization``
# (a no-op unless several identities are configured; our own attacker suites cover that ground, see
# docs/security.md). ``max_response_time`` is left out: it needs a limit, and timing is the benchmarks' job.
checks.load_all_checks()
CHECKS = [checks.CHECKS.get_one(name) for name in checks.CHECKS.get_all_names()]
CHECK_NAMES = checks.CHECKS.get_all_names()

# A bounded, repeatable run: the same examples every time (derandomize), no example database carried between
# runs, a handful per operation so that both services on every backend take a minute or two.
GATE_SETTINGS = settings(
    max_examples=30, derandomize=True, database=None, deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)

HOSTILE = [
    "\x00", "a\x00b", "bad_x\n", "\n", "\r\n", " ", "",
    "\ud800", "a\udfffb",                      # lone surrogates
    "\u202eevil\u202c", "\u200f", "\ufeff",    # RTL override, RTL mark, BOM
    "x" * 10_000, "\u00e9" * 5_000,            # 10 kB
    "../../etc/passwd", "..\\..\\boot.ini", "/", "a/b", "%2F", "%00", "%0A",
    "' OR '1'='1", "'; DROP TABLE events; --", "\"", "\\", "{\"a\": 1}", "[]", "null", "true", "-1",
    "99999999999999999999999", "1e999", "NaN", "Infinity", "0x10", "\u0661",  # Arabic-Indic one
    "<script>alert(1)</script>", "${jndi:ldap://x}", "%s%n", "\t", "\x7f", "\x1b[2J",
]


def hostile_strings() -> st.SearchStrategy[str]:
    """The list above, plus hypothesis' own text (which includes surrogates and control characters)."""
    return st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40),
                     st.text(st.characters(codec="utf-8"), min_size=300, max_size=2000))


@dataclass(frozen=True)
class Slot:
    """One place of one operation where a client puts a string."""

    method: str
    path: str          # the OpenAPI template, e.g. /v1/games/{game_id}/view
    where: str         # "path", "query" or "body"
    name: str

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path} {self.where}:{self.name}"


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def slots(spec: dict[str, Any]) -> Iterator[Slot]:
    """Every path parameter, query argument and top-level body field of every operation of ``spec``."""
    for path, item in spec["paths"].items():
        shared = item.get("parameters", [])
        for method, operation in item.items():
            if method == "parameters":
                continue
            for param in [*shared, *operation.get("parameters", [])]:
                param = _resolve(spec, param)
                if param["in"] in ("path", "query"):
                    yield Slot(method, path, param["in"], param["name"])
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if content:
                for name in _resolve(spec, content["schema"]).get("properties", {}):
                    yield Slot(method, path, "body", name)


def url_quote(value: str) -> str:
    """Percent-encode a path segment or query value as a client would send its bytes (a lone surrogate as the
    bytes Python's ``surrogatepass`` gives, which no decoder accepts)."""
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


# Routes that hold the request open until something happens or their ``timeout`` (query) passes.
HELD_OPEN = ("/wait", "/stream")


def shorten_held_open(case: Any) -> None:
    """A schemathesis case on a long-poll or stream asks for a short ``timeout``, or one case would hold the
    run for a minute. Only a number is shortened: a value a negative case made invalid (a boolean, a word)
    stays, so that the request is refused as the check expects instead of being repaired into a valid one."""
    if case.path.endswith(HELD_OPEN) and isinstance(case.query, dict):
        value = case.query.get("timeout")
        if value is None or (type(value) in (int, float)) or (isinstance(value, str) and _is_number(value)):
            case.query["timeout"] = 0.05


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "inf", "-inf", "infinity", "-infinity")


# werkzeug's client, which schemathesis calls the app with, sends no REMOTE_ADDR (Flask's test client sends
# 127.0.0.1, exempt from the rate limits like every loopback address): without it every request and every probe
# of the authentication checks would count against one unknown address, and a run would end in 429s.
LOOPBACK = {"REMOTE_ADDR": "127.0.0.1"}


def via_wsgi(case: Any, app: Any) -> None:
    """Send the probes of the checks to ``app`` too. The checks that send a request of their own (the
    authentication checks' "the same without credentials", "with an invalid one") use the schema's transport,
    which is the network's (``requests``) for a document loaded with ``from_dict``, even when the case itself was
    sent with ``app=``: the schema is told the app (the backend's, per module fixture) before each call."""
    case.operation.schema.app = app


def security_headers(spec: dict[str, Any]) -> frozenset[str]:
    """The headers that carry a credential of one of the document's security schemes (lower case), and the
    query arguments that do (as ``?name``: the matchmaker's stream ticket)."""
    names = set()
    for scheme in spec.get("components", {}).get("securitySchemes", {}).values():
        if scheme["type"] == "http":
            names.add("authorization")
        elif scheme["type"] == "apiKey" and scheme["in"] == "header":
            names.add(scheme["name"].lower())
        elif scheme["type"] == "apiKey" and scheme["in"] == "query":
            names.add("?" + scheme["name"])
    return frozenset(names)


def _missing_credential(case: Any, credential_headers: frozenset[str]) -> bool:
    """Whether schemathesis' coverage phase made this case to see a credential header left out."""
    data = case.meta.phase.data if case.meta is not None else None
    return (getattr(getattr(data, "scenario", None), "value", None) == "missing_parameter"
            and str(getattr(data, "parameter", "")).lower() in credential_headers)


def _credentials_left_out(case: Any, credential_headers: frozenset[str]) -> bool:
    """Whether schemathesis' fuzzing made this case's headers invalid by leaving every credential header out
    (its report then says the header "violates required (was Authorization)", and expects a refusal)."""
    components = case.meta.components if case.meta is not None else {}
    info = components.get(ParameterLocation.HEADER)
    if info is None or info.mode != GenerationMode.NEGATIVE or not isinstance(case.headers, MutableMapping):
        return False
    present = {name.lower() for name in case.headers}
    return not any(name in present for name in credential_headers if not name.startswith("?"))


def as_caller(case: Any, credentials: dict[str, str], credential_headers: frozenset[str]) -> dict[str, str]:
    """The headers a gate request is sent with: ``credentials``, one real caller's, with two exceptions.

    * A case made to leave a credential header out (``missing_required_header`` then wants 401), or a negative
      case whose headers hold no credential at all, is sent with no credential: schemathesis drops only the
      header it meant to, and another scheme's valid key beside it would rightly make the answer 403
      (authenticated, not allowed), or the caller's own key 200, instead.
    * A case that carries a credential in its query (a stream ticket) is sent with no other: RFC 6750 makes a
      request that "uses more than one method for including an access token" a 400, which the document, whose
      security alternatives are ORed, cannot say.
    * schemathesis fills every declared credential header with a blank value; beside a real credential of
      another scheme that blank is dropped, so the request is the caller's own (the services read a blank key
      as no key). Without credentials the blanks stay: they must be refused like no credential (401).
    """
    if _missing_credential(case, credential_headers) or _credentials_left_out(case, credential_headers):
        return {}
    query = case.query if isinstance(case.query, MutableMapping) else {}
    if any(name.startswith("?") and query.get(name[1:]) is not None for name in credential_headers):
        return {}  # a credential in the query already: one method per request (RFC 6750 3.1: both is a 400)
    if credentials and isinstance(case.headers, MutableMapping):
        for name in [n for n, v in case.headers.items() if n.lower() in credential_headers
                     and n.lower() not in {c.lower() for c in credentials} and not str(v).strip()]:
            del case.headers[name]
    return credentials


def undeclared_schemes_served(case: Any, app: Any, valid: Mapping[str, Mapping[str, str]],
                              credential_headers: frozenset[str]) -> list[str]:
    """The other half of the security a document states: ``ignored_auth`` holds an operation to refusing callers
    without the schemes it declares; this finds schemes it serves without declaring them. ``case`` is sent with
    no credential, then with a valid credential (``valid``: scheme -> headers) of each scheme the operation does
    not name, alone; each answered 2xx where no credential is refused is named in the result. Meaningful on a
    resource no credential opens (a private game, a ticket)."""
    if isinstance(case.headers, MutableMapping):
        for name in [n for n in case.headers if n.lower() in credential_headers]:
            del case.headers[name]
    declared = {scheme for requirement in case.operation.definition.raw.get("security", []) for scheme in requirement}
    anonymous = case.call(app=app, environ_base=LOOPBACK).status_code
    served = []
    for scheme, headers in valid.items():
        if scheme not in declared and not 200 <= anonymous < 300:
            status = case.call(app=app, headers=dict(headers), environ_base=LOOPBACK).status_code
            if 200 <= status < 300:
                served.append(f"{case.operation.label} served {scheme} ({status}; {anonymous} without a "
                              f"credential), which its security does not declare: {sorted(declared)}")
    return served


def hostile_request(slot: Slot, value: str, *, path_values: dict[str, str], body: dict[str, Any]) -> tuple[
        str, str, bytes | None]:
    """(method, url, body bytes) of a request that is well-formed except for ``value`` in ``slot``."""
    url = slot.path
    for name, real in path_values.items():
        url = url.replace("{" + name + "}", url_quote(value if slot.where == "path" and slot.name == name
                                                       else real))
    if slot.where == "query":
        url += f"?{slot.name}={url_quote(value)}"
    if slot.path.endswith(HELD_OPEN) and slot.name != "timeout":
        url += ("&" if "?" in url else "?") + "timeout=0.01"  # a long-poll or stream must not hold the run
    data = None
    if slot.method in ("post", "put", "patch"):
        sent = dict(body)
        if slot.where == "body":
            sent[slot.name] = value
        data = json.dumps(sent).encode("utf-8", "surrogatepass")  # JSON escapes: lone surrogates stay escaped
    return slot.method.upper(), url, data


def doc_slots(spec: dict[str, Any]) -> list[Slot]:
    """:func:`slots` as a list, sorted so that hypothesis draws from the same sequence every run."""
    return sorted(set(slots(spec)), key=str)


# -- hostile bodies: what the input guard (torres_service.limits) must refuse before any parser fails --

PROBLEM_JSON = "application/problem+json"
_HOLE = "hole-7f3a9c"


def with_raw(good: dict[str, Any], key: str, raw: str) -> bytes:
    """``good`` as JSON text with the value of ``key`` replaced by the raw text ``raw`` (which need not be JSON)."""
    return json.dumps({**good, key: _HOLE}).replace(json.dumps(_HOLE), raw).encode()


def with_repeated_key(good: dict[str, Any], key: str) -> bytes:
    """``good`` as JSON text with ``key`` written a second time, with the same value: refused all the same."""
    text = json.dumps(good)
    return (text[:-1] + f", {json.dumps(key)}: {json.dumps(good[key])}" + "}").encode()


@dataclass(frozen=True)
class HostileBody:
    """A body, its Content-Type, and the answer the guard gives it (status and code)."""

    name: str
    data: bytes
    content_type: str
    status: int
    code: str


def hostile_bodies(good: dict[str, Any], key: str) -> list[HostileBody]:
    """The hostile bodies (docs/security.md, "Input limits"), each spoiling an otherwise well-formed ``good``
    request in one way: an integer of 4 301 digits (the standard parser's ValueError), 1 000 nested arrays (its
    RecursionError), a repeated key (which it takes, the last one winning), NaN and its kin (accepted by Python's
    parser), a body sent as text/plain (which the schemas would answer with field errors) or in another charset."""
    as_json = "application/json"
    return [
        HostileBody("4301-digit integer", with_raw(good, key, "1" * 4301), as_json, 400, "json_number_too_long"),
        HostileBody("101-digit integer", with_raw(good, key, "1" * 101), as_json, 400, "json_number_too_long"),
        HostileBody("1000 levels deep", with_raw(good, key, "[" * 1000 + "]" * 1000), as_json, 400, "json_too_deep"),
        HostileBody("33 objects deep", with_raw(good, key, '{"a":' * 33 + "1" + "}" * 33), as_json, 400,
                    "json_too_deep"),
        HostileBody("repeated key", with_repeated_key(good, key), as_json, 400, "json_duplicate_key"),
        HostileBody("NaN", with_raw(good, key, "NaN"), as_json, 400, "json_not_finite"),
        HostileBody("-Infinity", with_raw(good, key, "-Infinity"), as_json, 400, "json_not_finite"),
        HostileBody("1e999", with_raw(good, key, "1e999"), as_json, 400, "json_not_finite"),
        HostileBody("text/plain", json.dumps(good).encode(), "text/plain", 415, "unsupported_media_type"),
        HostileBody("form", b"seat=0", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
        HostileBody("latin-1 JSON", json.dumps(good).encode(), "application/json; charset=latin-1", 415,
                    "unsupported_media_type"),
        HostileBody("not JSON", b"{" + json.dumps(good).encode(), as_json, 400, "validation_failed"),
        HostileBody("not UTF-8", json.dumps(good).encode()[:-1] + b'\xff}', as_json, 400, "validation_failed"),
    ]


def json_shapes(field_names: list[str]) -> st.SearchStrategy[str]:
    """JSON-like text shaped to hurt a parser: objects with the endpoint's own keys and odd ones (repeated,
    empty, 10 kB, surrogates), numbers of up to 6 000 digits, NaN/Infinity/1e999, nesting up to 1 500 levels
    deep, and now and then a broken bracket. Text, not values, so that what ``json.dumps`` cannot write (a
    repeated key, NaN) is in it."""
    numbers = st.one_of(
        st.integers().map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.integers(1, 6000).map(lambda n: "9" * n),
        st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1E400", "0.1e-400", "-0", "1" + "0" * 99,
                         "-" + "9" * 100, "0x10", "01", "1.", ".5", "+1"]),
    )
    keys = st.one_of(st.sampled_from([*field_names, "", "__proto__", "constructor", "k" * 10_000]),
                     hostile_strings()).map(json.dumps)
    leaves = st.one_of(numbers, hostile_strings().map(json.dumps), st.sampled_from(["true", "false", "null"]))

    def grow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        arrays = st.lists(children, max_size=5).map(lambda items: "[" + ",".join(items) + "]")
        objects = st.lists(st.tuples(keys, children), max_size=5).map(
            lambda pairs: "{" + ",".join(f"{k}:{v}" for k, v in pairs) + "}")
        levels = st.one_of(st.integers(1, 40), st.integers(900, 1500))  # around the limit, and the old crash
        deep = st.tuples(levels, children, st.booleans()).map(
            lambda t: ("[" * t[0] + t[1] + "]" * t[0]) if t[2] else ('{"a":' * t[0] + t[1] + "}" * t[0]))
        return st.one_of(arrays, objects, arrays, objects, deep)

    values = st.recursive(leaves, grow, max_leaves=12)
    top = st.lists(st.tuples(st.sampled_from(field_names).map(json.dumps) | keys, values), max_size=6).map(
        lambda pairs: "{" + ",".join(f"{k}:{v}" for k, v in pairs) + "}")
    broken = st.tuples(st.one_of(top, values), st.sampled_from(["", "]", "}", "{", '"', ",", "\\"])).map(
        lambda t: t[0] + t[1])
    return st.one_of(top, top, values, broken)


def body_content_types() -> st.SearchStrategy[str]:
    """Mostly JSON, sometimes what a confused or hostile client sends."""
    return st.one_of(st.just("application/json"), st.just("application/json"), st.just("application/json"),
                     st.sampled_from([
        "application/json; charset=utf-8", "application/merge-patch+json", "text/plain", "text/json", "",
        "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
        "application/json; charset=utf-16"]))


def check_405s(app: Any, client: Any, url_of: Callable[[Any], str], problem: Callable[[Any, int, str], Any],
               headers: dict[str, str] | None = None) -> int:
    """Every route of ``app`` (a concrete URL of it from ``url_of``), every method it does not take (standard or
    not): ``client`` gets 405 problem details (checked by ``problem``; a HEAD answer has no body) whose ``Allow``
    lists what the URL does take (RFC 9110 15.5.6). Returns how many (URL, method) pairs were checked."""
    adapter = app.url_map.bind("localhost")
    checked = 0
    for rule in app.url_map.iter_rules():
        url = url_of(rule)
        for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "TRACE", "PROPFIND"):
            try:
                adapter.match(url, method)
                continue  # some route of this URL takes it
            except MethodNotAllowed as refused:
                allowed = set(refused.valid_methods or ())
            except HTTPException:  # a redirect (strict slashes): another URL's business
                continue
            response = client.open(url, method=method, headers=headers)
            assert response.status_code == 405, (url, method, response.status_code)
            if method != "HEAD":
                problem(response, 405, "method_not_allowed")
            assert {m.strip() for m in response.headers["Allow"].split(",")} == allowed, (url, method)
            checked += 1
    return checked

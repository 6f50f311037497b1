"""What the edge tests of both services share (issue 10): the schemathesis settings of the OpenAPI gate, the
hostile strings, and a walk over an OpenAPI document that finds every place a client can put a string.

The walk reads the services' own ``/openapi.json``, so an endpoint, query argument or body field added later
is attacked too without anyone listing it here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from schemathesis import checks

# The gate's checks: no 5xx, every status documented for its operation, every body as its schema says.
CHECKS = [checks.not_a_server_error, checks.status_code_conformance, checks.response_schema_conformance]

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
    run for a minute."""
    if case.path.endswith(HELD_OPEN) and isinstance(case.query, dict):
        case.query["timeout"] = 0.05


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

"""Request-head limits under the production server: gunicorn with ``infra/gunicorn.conf.py``.

gunicorn parses the request head before the app sees it and refuses past its own limits by itself. Its limits are
set above the input guard's, so a request target, header line or header count just past the guard's limit is
answered by the app (problem+json with the ``limit``); far past them (a 100 kB path), gunicorn answers, and its
answer is problem+json too (the configuration replaces its HTML error page). Both with the same codes.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from torres_service import serving
from torres_service.limits import InputLimits
from torres_service.problems import _HTTP_CODES

from .conftest import SERVICE
from .servers import GUNICORN_CONF, Server, gunicorn

LIMITS = InputLimits()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    url = f"sqlite:///{tmp_path_factory.mktemp('served') / 'limits.sqlite3'}"
    with gunicorn(url) as server:
        yield server


def raw_request(port: int, head: bytes, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """Send ``head`` (request line and headers, without the blank line) as is; the status, headers and body of
    the answer. Raw bytes, so that nothing on the client side shortens or refuses what is sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(head + b"\r\nConnection: close\r\n\r\n" + body)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    raw_head, _, payload = data.partition(b"\r\n\r\n")
    status_line, *lines = raw_head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, payload


def problem_of(answer: tuple[int, dict[str, str], bytes], status: int, code: str) -> dict[str, Any]:
    got, headers, payload = answer
    assert got == status, (got, payload[:300])
    assert headers["content-type"].split(";")[0] == "application/problem+json", headers
    body = json.loads(payload)
    assert body["status"] == status and body["code"] == code and body["type"] == f"urn:torres:problem:{code}"
    assert body["title"] and body["detail"]
    return body


def get(path: str, *headers: str) -> bytes:
    return "\r\n".join([f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *headers]).encode("latin-1")


def test_a_url_past_the_guards_limit_is_the_apps_414(served: Server) -> None:
    body = problem_of(raw_request(served.port, get("/v1/games?pad=" + "x" * 5000)), 414, "uri_too_long")
    assert body["limit"] == LIMITS.max_url_bytes  # the app's answer: it names its limit


def test_a_100kb_path_is_gunicorns_414_as_problem_json(served: Server) -> None:
    """A 100 kB request line: past gunicorn's 8 190-byte request line, gunicorn answers, in problem+json."""
    body = problem_of(raw_request(served.port, get("/v1/games/" + "a" * 100_000)), 414, "uri_too_long")
    assert "limit" not in body and "8190" in body["detail"]


def test_header_lines_past_the_guards_limits_are_the_apps_431(served: Server) -> None:
    wide = problem_of(raw_request(served.port, get("/v1/games", "X-Padding: " + "x" * 9000)), 431,
                      "headers_too_large")
    assert wide["limit"] == LIMITS.max_header_bytes
    many = problem_of(raw_request(served.port, get("/v1/games", *(f"X-Pad-{n}: x" for n in range(110)))), 431,
                      "headers_too_large")
    assert many["limit"] == LIMITS.max_headers


def test_header_lines_past_gunicorns_limits_are_its_431_as_problem_json(served: Server) -> None:
    problem_of(raw_request(served.port, get("/v1/games", "X-Padding: " + "x" * 20_000)), 431, "headers_too_large")
    problem_of(raw_request(served.port, get("/v1/games", *(f"X-Pad-{n}: x" for n in range(200)))), 431,
               "headers_too_large")


def test_gunicorns_other_refusals_are_problem_json(served: Server) -> None:
    problem_of(raw_request(served.port, b"GET /v1/games HTTP/1.1\r\nHost: x\r\nBad Header: x"), 400, "bad_request")


def test_requests_within_the_limits_are_served(served: Server) -> None:
    # the padding parameter on a view, not a list (a list refuses a parameter it does not know)
    status, _, _ = raw_request(served.port, get("/healthz?pad=" + "x" * 3000, "X-Padding: " + "x" * 7000,
                                                f"X-API-Key: {SERVICE['X-API-Key']}",
                                                *(f"X-Pad-{n}: x" for n in range(79))))
    assert status == 200


def test_hostile_bodies_and_headers_under_the_production_server(served: Server) -> None:
    """Bodies that break the JSON parser, through gunicorn: the guard's 400s; a Basic header beside the key: 401."""
    deep = b'{"seats": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    big = b'{"seats": ' + b"1" * 4301 + b"}"
    key = f"X-API-Key: {SERVICE['X-API-Key']}"
    for body, code in ((deep, "json_too_deep"), (big, "json_number_too_long")):
        head = "\r\n".join(["POST /v1/games HTTP/1.1", "Host: x", key, "Content-Type: application/json",
                            f"Content-Length: {len(body)}"]).encode()
        problem_of(raw_request(served.port, head, body), 400, code)
    good = b'{"seats": [{"kind": "human"}, {"kind": "human"}]}'
    head = "\r\n".join(["POST /v1/games HTTP/1.1", "Host: x", key, "Authorization: Basic dXNlcjpwYXNz",
                        "Content-Type: application/json", f"Content-Length: {len(good)}"]).encode()
    problem_of(raw_request(served.port, head, good), 401, "unsupported_authorization")
    assert served.client.get("/v1/games", headers=SERVICE).get_json()["games"] == []


def test_the_servers_codes_are_the_services_codes() -> None:
    """``infra/gunicorn.conf.py`` names the statuses gunicorn answers itself without importing the services:
    where both name one, it is the same code; and its limits sit above the guard's defaults."""
    text = Path(GUNICORN_CONF).read_text()
    match = re.search(r"_PROBLEM_CODES = (\{.*?\})", text, re.DOTALL)
    assert match is not None
    codes = eval(match[1])  # a dict literal of ints and strings
    assert {status: code for status, code in codes.items() if status in _HTTP_CODES} == \
        {status: code for status, code in _HTTP_CODES.items() if status in codes}

    for name in ("limit_request_line", "limit_request_field_size", "limit_request_fields"):
        assert re.search(rf"^{name} = serving\.{name.upper()}\.read\(\)$", text, re.MULTILINE), name
    assert serving.LIMIT_REQUEST_LINE.default > LIMITS.max_url_bytes + len("DELETE  HTTP/1.1")
    assert serving.LIMIT_REQUEST_FIELD_SIZE.default > LIMITS.max_header_bytes + 2
    assert serving.LIMIT_REQUEST_FIELDS.default > LIMITS.max_headers

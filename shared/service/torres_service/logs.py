"""Structured JSON logging: one JSON object per line, with any ``extra=`` fields included."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from flask import Flask, g, request
from werkzeug.serving import WSGIRequestHandler

from .settings import Setting

#: Every process's log level (the AI worker's ``--loglevel`` wins over it).
LOG_LEVEL = Setting("LOG_LEVEL", "the log level (`DEBUG`, `INFO`, `WARNING`, `ERROR`; the AI worker's "
                    "`--loglevel` wins); each request is one line, at `DEBUG` for a successful probe, metrics "
                    "scrape or `/v1/notifications` poll", default="INFO")

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


#: The fields every line has, which a record's ``extra=`` must not overwrite: an alert on ``"level": "error"``
#: would otherwise miss an error logged with an ``extra`` field named ``level`` (an AI level, say).
RESERVED = frozenset({"ts", "level", "logger", "msg", "exc"})


class JsonFormatter(logging.Formatter):
    """Render records as JSON so log pipelines need no parsing rules. An ``extra=`` field named like one of the
    :data:`RESERVED` ones is kept, as ``extra_<name>``."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                doc[f"extra_{key}" if key in RESERVED else key] = value
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str)


def configure_logging(logger_name: str, level: str = "INFO", json_logs: bool = True) -> None:
    """Install one stdout handler on a service's top logger (idempotent)."""
    logger = logging.getLogger(logger_name)
    logger.setLevel(level.upper())
    if any(getattr(h, "_torres", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stdout)
    handler._torres = True  # type: ignore[attr-defined]
    handler.setFormatter(JsonFormatter() if json_logs else logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.propagate = False


#: Requests that a healthy deployment makes all the time -- probes, scrapes and the matchmaker's look for news every
#: second -- logged at DEBUG while they succeed, so that the default level shows what players and portals did.
ROUTINE_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


def request_logging(app: Flask, log: logging.Logger, routine: frozenset[str] = ROUTINE_PATHS) -> None:
    """One log line per request: method, path, status and milliseconds; a successful GET of a ``routine`` path at
    DEBUG, every other request at INFO."""

    @app.before_request
    def _start() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def _log(response: Any) -> Any:
        quiet = request.method == "GET" and request.path in routine and response.status_code < 400
        level = logging.DEBUG if quiet else logging.INFO
        if log.isEnabledFor(level):
            log.log(level, "request", extra={
                "method": request.method, "path": request.path, "status": response.status_code,
                "ms": round((time.perf_counter() - g.get("started", time.perf_counter())) * 1000, 2),
            })
        return response


class QuietRequestHandler(WSGIRequestHandler):
    """The development server's handler without its own access line: :func:`request_logging` writes the one line a
    request gets (werkzeug's would repeat it in another format). Errors the server meets are still logged."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass

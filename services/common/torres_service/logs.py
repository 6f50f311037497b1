"""Structured JSON logging: one JSON object per line, with any ``extra=`` fields included."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from flask import Flask, g, request

from .settings import Setting

#: Every process's log level (the AI worker's ``--loglevel`` wins over it).
LOG_LEVEL = Setting("LOG_LEVEL", "the log level (`DEBUG`, `INFO`, `WARNING`, `ERROR`; the AI worker's "
                    "`--loglevel` wins)", default="INFO")

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


def request_logging(app: Flask, log: logging.Logger) -> None:
    """One log line per request: method, path, status and milliseconds."""

    @app.before_request
    def _start() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def _log(response: Any) -> Any:
        if log.isEnabledFor(logging.INFO):
            log.info("request", extra={
                "method": request.method, "path": request.path, "status": response.status_code,
                "ms": round((time.perf_counter() - g.get("started", time.perf_counter())) * 1000, 2),
            })
        return response

"""The JSON log line: a record's ``extra=`` fields never overwrite the fields every line has."""

from __future__ import annotations

import json
import logging

import pytest

from torres_service.logs import RESERVED, JsonFormatter


def _line(levelno: int, extra: dict[str, object]) -> dict[str, object]:
    logger = logging.getLogger("torres_test.logs")
    record = logger.makeRecord(logger.name, levelno, __file__, 1, "bot failed", None, None, extra=extra)
    return dict(json.loads(JsonFormatter().format(record)))


@pytest.mark.parametrize("name", sorted(RESERVED - {"msg"}))  # logging itself refuses an extra "msg"
def test_an_extra_field_named_like_a_reserved_one_keeps_both(name: str) -> None:
    line = _line(logging.ERROR, {name: "hard"})
    assert line["level"] == "error" and line["logger"] == "torres_test.logs" and line["msg"] == "bot failed"
    assert line[f"extra_{name}"] == "hard"
    assert line.get(name) != "hard"


def test_other_extra_fields_are_written_as_given() -> None:
    line = _line(logging.INFO, {"game_id": "g1", "seat": 2})
    assert (line["game_id"], line["seat"], line["level"]) == ("g1", 2, "info")

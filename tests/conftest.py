"""Suite-wide hooks.

Tests of the event store, Celery and matchmaking use the machine's real PostgreSQL and Redis servers and skip
when one is unreachable, so that a developer without them can still run the rest. CI must never pass by
skipping them: with TORRES_REQUIRE_SERVICES=1 (set by .ci/run) such a skip is reported as a failure.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("TORRES_REQUIRE_SERVICES") == "1" and report.skipped and "not reachable" in str(report.longrepr):
        report.outcome = "failed"

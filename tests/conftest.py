"""Suite-wide hooks.

Tests of the event store, Celery and matchmaking use the machine's real PostgreSQL and Redis servers, and some
need a tool (Chromium, kubectl, hadolint, checkov, redis-server): each skips when what it needs is missing, so
that a developer without it can still run the rest. Every such skip says "<what> not reachable ...", and that
wording does two things: the run ends with a loud summary of those skips, grouped by what was missing, with how
to run them (`pytest_terminal_summary`); and with TORRES_REQUIRE_SERVICES=1 (set by .ci/run) such a skip is
reported as a failure, so CI never passes by skipping them.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # imported where used: tests/test_skip_summary.py runs this file alone, in another folder
    from private_redis import PrivateRedis

#: The wording of every skip for a missing server or tool (the summary and TORRES_REQUIRE_SERVICES match it).
MISSING = "not reachable"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("TORRES_REQUIRE_SERVICES") == "1" and report.skipped and MISSING in str(report.longrepr):
        report.outcome = "failed"

#: Set to the xdist worker's name once that worker's Redis URLs are in the environment: a pytest run a test starts
#: in a subprocess inherits them and must not move them again.
REDIS_WORKER = "TORRES_TEST_REDIS_WORKER"


def _use_the_workers_redis() -> None:
    """Under pytest-xdist, point this worker's TEST_REDIS_URL and TEST_MM_REDIS_URL at databases of its own:
    the matchmaking tests flush theirs. Done when this file is imported, before any test module or conftest reads
    the variables."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker or os.environ.get(REDIS_WORKER) == worker:
        return
    from redis_databases import worker_redis_urls

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    os.environ.update(worker_redis_urls(os.environ, int(worker.removeprefix("gw")), workers))
    os.environ[REDIS_WORKER] = worker


_use_the_workers_redis()

#: Tests that share one costly thing a session or module fixture starts, by the start of their path: under
#: `--dist loadscope` each such set is one scope, run on one xdist worker, so that it is started once, not once per
#: worker; and the sets come first, in this order, so that the longest are not left to the end of the run. The web
#: tests share `make run`'s stack and one Chromium; the image tests one `make image` (buildah, as root); the fault
#: tests their Patroni cluster and Sentinels.
SHARED = ("tests/deploy/test_image.py", "tests/web/", "tests/faults/")
#: Modules whose tests share nothing, each a long run of its own: each test is a scope, so that they spread over
#: the workers (one worker would run the benchmarks' smoke runs one after another for longer than the rest).
SPLIT = ("tests/test_benchmarks.py", "tests/rules/test_pure_build.py")


def _shared_set(nodeid: str) -> str | None:
    return next((shared for shared in SHARED if nodeid.startswith(shared)), None)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadscope` as xdist has it (a module's tests on one worker, its module fixtures started once), with
    each SHARED set as one scope and each test of a SPLIT module a scope of its own. (xdist's `loadgroup` marks
    name a test's group in its node id, which pytest 9 no longer lets a plugin change.)"""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedSetScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(SPLIT):
                return nodeid
            return _shared_set(nodeid) or super()._split_scope(nodeid)

    return SharedSetScheduling(config, log)


#: On an xdist worker, how many collected tests share this test's node id, where more than one.
SHARES_ITS_ID = pytest.StashKey[int]()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if SHARES_ITS_ID in item.stash:
        pytest.fail(f"{item.stash[SHARES_ITS_ID]} tests have the node id {item.nodeid}: pytest-xdist runs only one "
                    "of them. Give them ids of their own (a parameter), or run their module without -n.")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the SHARED sets first, then the SPLIT modules (every worker collects the same order; the
    scheduler hands out scopes in it, with `--no-loadscope-reorder`). Tests that share a node id fail (the one
    of them xdist runs): xdist hands out tests by node id, so it would drop the others without a word
    (schemathesis' tests, one per API operation, share their function's id under pytest 9 unless a parameter
    follows the operation's: tests/matchmaking/test_edge.py's gate_app)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        counts = Counter(item.nodeid for item in items)
        for item in items:
            if counts[item.nodeid] > 1:
                item.stash[SHARES_ITS_ID] = counts[item.nodeid]
        rank = {shared: n for n, shared in enumerate(SHARED)}

        def place(item: pytest.Item) -> int:
            shared = _shared_set(item.nodeid)
            return rank[shared] if shared else len(SHARED) if item.nodeid.startswith(SPLIT) else len(SHARED) + 1

        items.sort(key=place)


#: How to make each missing thing reachable, by the start of its skip text (lower case; first match wins).
HOW_TO_RUN = (
    ("postgresql", "PostgreSQL on 127.0.0.1:5432 with `trust` auth for user postgres, or point the tests at a "
                   "server: TEST_DATABASE_URL=postgresql://user:pass@host:5432/postgres (a role that may "
                   "CREATE DATABASE)"),
    ("redis cluster", "the redis-server and redis-cli binaries (apt-get install redis-server); the tests start "
                      "their own servers"),
    ("redis-server", "the redis-server binary (apt-get install redis-server); the tests start their own server"),
    ("redis", "Redis on 127.0.0.1:6379, or TEST_REDIS_URL (Celery, AI and ops tests; default "
              "redis://127.0.0.1:6379/13) and TEST_MM_REDIS_URL (matchmaking; default redis://127.0.0.1:6379/14)"),
    ("buildah", "root, with buildah and debootstrap (apt-get install -y buildah debootstrap): the image tests run "
                "`make image` and start the stack from it"),
    ("chromium", "apt-get install -y chromium-headless-shell, or TORRES_CHROMIUM=/path/to/chromium"),
    ("playwright", "make install (it comes with requirements.lock)"),
    ("kubectl", "kubectl on PATH (the manifests are rendered with `kubectl kustomize`)"),
    ("hadolint", "make install (it comes with requirements.lock)"),
    ("checkov", "make policy-tools (make test builds it)"),
    ("node.js", "Node.js >= 18 with npm on PATH (apt-get install -y nodejs npm); `make test` then installs the "
                "TypeScript SDK's packages from sdk/typescript/package-lock.json (`make sdk-tools`)"),
)


def _redacted(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ***."""
    return re.sub(r"://([^:/@\s]*):[^@/\s]+@", r"://\1:***@", text)


def _skip_text(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return _redacted(" ".join(text.removeprefix("Skipped: ").split()))


def _missing(text: str) -> tuple[str, str | None]:
    """"Redis not reachable at redis://host:6379/13: Error 111 ..." -> ("Redis", "redis://host:6379/13")."""
    found = re.match(r"(.+?) not reachable(?: at (\S+?)(?=:\s|[,;)]|\s|$))?", text)
    return (found[1], found[2]) if found else (text, None)


def _how_to_run(what: str) -> str:
    return next((how for start, how in HOW_TO_RUN if what.lower().startswith(start)), "see the reason above")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> Generator[None]:
    """After pytest's own summary: the tests that did not run because a server or tool was missing, loudly."""
    yield
    missing: dict[str, list[tuple[str, str]]] = {}  # what is missing -> (test, skip text)
    places: dict[str, list[str]] = {}  # what is missing -> where the tests looked for it
    other: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        text = _skip_text(report)
        if MISSING in text:
            what, where = _missing(text)
            missing.setdefault(what, []).append((report.nodeid, text))
            if where and where not in places.setdefault(what, []):
                places[what].append(where)
        else:
            other[text] = other.get(text, 0) + 1
    if not missing:
        return
    write = terminalreporter.write_line
    total = sum(len(tests) for tests in missing.values())
    terminalreporter.section(f"{total} TESTS DID NOT RUN: a server or tool they need is missing", sep="!",
                             red=True, bold=True)
    write("This is not a full pass. Skipped for lack of:", red=True, bold=True)
    for what, tests in sorted(missing.items(), key=lambda item: -len(item[1])):
        at = f" at {', '.join(places[what])}" if places.get(what) else ""
        write(f"  {what}{at}: {len(tests)} test(s), e.g. {tests[0][0]}", bold=True)
        write(f"      why:    {tests[0][1][:300]}")
        write(f"      to run: {_how_to_run(what)}")
    if other:
        write("Also skipped, for other reasons: " + "; ".join(f"{n} x {text}" for text, n in other.items()))
    write("`.ci/run` starts PostgreSQL and Redis, installs Chromium and Node.js and runs "
          "`TORRES_REQUIRE_SERVICES=1 make test`; TORRES_REQUIRE_SERVICES=1 turns every skip above into a failure.",
          red=True, bold=True)
    return None


ADMIN_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="session")
def throwaway_database() -> Callable[..., contextlib.AbstractContextManager[str]]:
    """`with throwaway_database("prefix") as url:`, `throwaway_database("prefix", template=url)` for a copy of the
    database at ``url`` -- see `_throwaway_database`."""
    return _throwaway_database


@contextlib.contextmanager
def _throwaway_database(prefix: str, template: str | None = None) -> Iterator[str]:
    """A uniquely named database on the real PostgreSQL server (TEST_DATABASE_URL is the admin connection),
    dropped afterwards, so that concurrent developers and CI runs never collide; with ``template`` (a database's
    URL) a copy of that database. Skips when the server is unreachable (a failure under TORRES_REQUIRE_SERVICES=1,
    see above)."""
    import psycopg

    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"PostgreSQL not reachable at {_redacted(ADMIN_URL)}: {exc}")
    with admin:
        copied = f' TEMPLATE "{template.rpartition("/")[2]}"' if template else ""
        admin.execute(f'CREATE DATABASE "{name}"{copied}')
    try:
        yield f"{ADMIN_URL.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A redis-server of the test's own, started (tests/private_redis.py); killed at the end."""
    from private_redis import PrivateRedis

    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()

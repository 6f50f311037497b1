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
from collections.abc import Callable, Generator, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest

if TYPE_CHECKING:  # imported where used: tests/test_skip_summary.py runs this file alone, in another folder
    from private_redis import PrivateRedis

#: The wording of every skip for a missing server or tool (the summary and TORRES_REQUIRE_SERVICES match it).
MISSING = "not reachable"

#: The shared Redis databases the tests use, by variable, with their defaults (README.md, "make test").
REDIS_DATABASES = (("TEST_REDIS_URL", "redis://127.0.0.1:6379/13"), ("TEST_MM_REDIS_URL", "redis://127.0.0.1:6379/14"))
#: Set to the xdist worker's name once that worker's Redis URLs are in the environment: a pytest run a test starts
#: in a subprocess inherits them and must not move them again.
REDIS_WORKER = "TORRES_TEST_REDIS_WORKER"


def _with_database(url: str, shift: int) -> tuple[str, str, int]:
    """``url`` with its database number lowered by ``shift``, the server it names, and that number."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if "db" in query:  # redis://host?db=3, unix:///run/redis.sock?db=3
        db = int(query["db"][0]) - shift
        parts = parts._replace(query=urlencode({**query, "db": [str(db)]}, doseq=True))
    else:  # redis://host:6379/3, or no number: database 0
        db = int(parts.path.strip("/") or 0) - shift
        parts = parts._replace(path=f"/{db}")
    return urlunsplit(parts), f"{parts.scheme}://{parts.netloc}{parts.path if parts.scheme == 'unix' else ''}", db


def worker_redis_urls(environ: Mapping[str, str], worker: int, workers: int) -> dict[str, str]:
    """The Redis URLs of xdist worker number ``worker`` (of ``workers``): each variable's database (the developer's
    or the default) lowered by 2 per worker, so that worker 0 has 13 and 14 and worker 3 has 7 and 8, and no
    worker flushes another's. Raises ValueError, naming the variables, where the numbers would run below 0 or two
    workers would share one."""
    taken: dict[tuple[str, int], str] = {}
    mine: dict[str, str] = {}
    for n in range(workers):
        for variable, default in REDIS_DATABASES:
            url, server, db = _with_database(environ.get(variable, default), 2 * n)
            owner = f"{variable} of worker {n}"
            if db < 0 or (server, db) in taken:
                raise ValueError(
                    f"{workers} test workers need {2 * workers} Redis databases, 2 below each other per worker from "
                    f"TEST_REDIS_URL and TEST_MM_REDIS_URL: {owner} would be database {db}"
                    + (f", as {taken[server, db]}" if (server, db) in taken else "")
                    + ". Start them higher (redis://127.0.0.1:6379/13 and /14 give 7 workers) or use fewer workers.")
            taken[server, db] = owner
            if n == worker:
                mine[variable] = url
    return mine


def _use_the_workers_redis() -> None:
    """Under pytest-xdist, point this worker's TEST_REDIS_URL and TEST_MM_REDIS_URL at databases of its own:
    the matchmaking tests flush theirs. Done when this file is imported, before any test module or conftest reads
    the variables."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker or os.environ.get(REDIS_WORKER) == worker:
        return
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    os.environ.update(worker_redis_urls(os.environ, int(worker.removeprefix("gw")), workers))
    os.environ[REDIS_WORKER] = worker


_use_the_workers_redis()

#: Tests that share one costly thing a session or module fixture starts, by the start of their path: each such set
#: runs on one xdist worker (`--dist loadgroup`), so that it is started once, not once per worker, and first, so
#: that the longest sets are not left to the end of the run. The web tests share `make run`'s stack and one
#: Chromium; the image tests one `make image` (buildah, as root); the fault tests their Patroni cluster and
#: Sentinels; the benchmarks' runs measure, so they run one at a time.
SHARED = ("tests/deploy/test_image.py", "tests/web/", "tests/faults/", "tests/test_benchmarks.py")


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup`, each test's group: its SHARED set, or else its module (a module's fixtures are
    then started once, as with `--dist loadscope`). The SHARED sets are put first, in that order; the order of the
    tests within a group is kept."""
    if getattr(config.option, "dist", "no") != "loadgroup":
        return
    rank = {shared: n for n, shared in enumerate(SHARED)}
    groups: dict[str, str] = {}
    for item in items:
        path = item.path.relative_to(config.rootpath).as_posix() if item.path.is_relative_to(config.rootpath) \
            else str(item.path)
        mark = item.get_closest_marker("xdist_group")
        if mark is None:
            name = next((shared for shared in SHARED if path.startswith(shared)), path)
            item.add_marker(pytest.mark.xdist_group(name))
        else:
            name = str(mark.kwargs.get("name", mark.args[0] if mark.args else "default"))
        groups[item.nodeid] = name
    items.sort(key=lambda item: rank.get(groups[item.nodeid], len(SHARED)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("TORRES_REQUIRE_SERVICES") == "1" and report.skipped and MISSING in str(report.longrepr):
        report.outcome = "failed"


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
    ("chromium", "apt-get install -y chromium, or TORRES_CHROMIUM=/path/to/chromium"),
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
def throwaway_database() -> Callable[[str], contextlib.AbstractContextManager[str]]:
    """`with throwaway_database("prefix") as url:` -- see `_throwaway_database`."""
    return _throwaway_database


@contextlib.contextmanager
def _throwaway_database(prefix: str) -> Iterator[str]:
    """A uniquely named database on the real PostgreSQL server (TEST_DATABASE_URL is the admin connection),
    dropped afterwards, so that concurrent developers and CI runs never collide. Skips when the server is
    unreachable (a failure under TORRES_REQUIRE_SERVICES=1, see above)."""
    import psycopg

    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"PostgreSQL not reachable at {_redacted(ADMIN_URL)}: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
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

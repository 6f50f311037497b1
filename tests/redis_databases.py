"""The shared Redis databases of a test run split between pytest-xdist's workers (tests/conftest.py puts each
worker's pair in its environment): the matchmaking tests flush theirs, so no two workers may share one."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

#: The variables that name them, with their defaults (README.md, "make test").
REDIS_DATABASES = (("TEST_REDIS_URL", "redis://127.0.0.1:6379/13"), ("TEST_MM_REDIS_URL", "redis://127.0.0.1:6379/14"))


def lowered(url: str, by: int) -> tuple[str, str, int]:
    """``url`` with its database number lowered by ``by``; the server it names; that number."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if "db" in query:  # redis://host?db=3, unix:///run/redis.sock?db=3
        db = int(query["db"][0]) - by
        parts = parts._replace(query=urlencode({**query, "db": [str(db)]}, doseq=True))
        server = f"{parts.scheme}://{parts.netloc}{parts.path}"
    else:  # redis://host:6379/3, or no number: database 0
        db = int(parts.path.strip("/") or 0) - by
        parts = parts._replace(path=f"/{db}")
        server = f"{parts.scheme}://{parts.netloc}"
    return urlunsplit(parts), server, db


def worker_redis_urls(environ: Mapping[str, str], worker: int, workers: int) -> dict[str, str]:
    """{variable: URL} of worker number ``worker`` of ``workers``: each variable's database (the developer's or the
    default) lowered by 2 per worker, so that with the defaults worker 0 has 13 and 14, worker 3 has 7 and 8.
    Raises ValueError, saying what to change, where a number would run below 0 or two workers would share one."""
    taken: dict[tuple[str, int], str] = {}
    mine: dict[str, str] = {}
    for n in range(workers):
        for variable, default in REDIS_DATABASES:
            url, server, db = lowered(environ.get(variable, default), 2 * n)
            owner = f"{variable} of worker {n}"
            if db < 0 or (server, db) in taken:
                clash = f", which is {taken[server, db]}'s" if (server, db) in taken else ""
                raise ValueError(
                    f"{workers} test workers need {2 * workers} Redis databases, each worker's pair 2 below the "
                    f"last one's, from TEST_REDIS_URL's and TEST_MM_REDIS_URL's: {owner} would be database "
                    f"{db}{clash}. Give the two adjacent numbers, high enough (the defaults, 13 and 14, serve 7 "
                    f"workers), or run fewer workers (-n).")
            taken[server, db] = owner
            if n == worker:
                mine[variable] = url
    return mine

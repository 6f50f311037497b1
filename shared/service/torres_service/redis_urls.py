"""One way to name a Redis in every setting that takes one (``CELERY_BROKER_URL``, the matchmaker's
``REDIS_URL``): a plain ``redis://host:port/db`` URL, or a master watched by Redis Sentinel,
``redis+sentinel://sentinel1:26379,sentinel2:26379/<master name>`` (``?db=N`` for another database than 0;
``redis+sentinel://:password@...`` when the servers want one).

Why one form for all: flask-limiter's storage (the rate-limit counts) already takes exactly this URL, Kombu
(Celery's broker) wants the same thing spelt ``sentinel://h1:p1;sentinel://h2:p2`` with the master's name in its
transport options, and redis-py has no URL for it at all (``Sentinel(...).master_for(name)``). Each consumer gets
its own spelling from here, so an operator writes one URL and every process finds the current master: after a
failover a command on a lost connection fails once (``redis.ConnectionError``), and the next connection is
opened to the master Sentinel names then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from redis.sentinel import Sentinel

SCHEME = "redis+sentinel"
#: Seconds a question to one sentinel may take before the next sentinel is asked.
SENTINEL_TIMEOUT = 1.0


@dataclass(frozen=True)
class SentinelAddress:
    """Where the sentinels are and which master of theirs is meant."""

    sentinels: tuple[tuple[str, int], ...]
    master: str
    db: int = 0
    password: str | None = None


def sentinel_address(url: str) -> SentinelAddress | None:
    """The sentinels, master and database a ``redis+sentinel://`` URL names; None for any other URL. A URL of that
    scheme without a sentinel or a master name is refused (``ValueError``, at start)."""
    parts = urlsplit(url)
    if parts.scheme != SCHEME:
        return None
    hosts = parts.netloc.rpartition("@")[2]
    sentinels = []
    for location in filter(None, hosts.split(",")):
        host, _, port = location.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"{SCHEME} URL: {location!r} is not host:port")
        sentinels.append((host, int(port)))
    master = parts.path.strip("/")
    if not sentinels or not master or "/" in master:
        raise ValueError(f"a {SCHEME} URL names sentinels and one master: {SCHEME}://h1:26379,h2:26379/mymaster")
    db = parse_qs(parts.query).get("db", ["0"])[0]
    if not db.isdigit():
        raise ValueError(f"{SCHEME} URL: db={db!r} is not a database number")
    return SentinelAddress(tuple(sentinels), master, int(db), unquote(parts.password) if parts.password else None)


def client(url: str, **kwargs: Any) -> Any:
    """A redis-py client for ``url``: the current master of a ``redis+sentinel://`` URL (looked up again for every
    new connection, so a failover costs the commands in flight on the lost connections), else
    ``redis.Redis.from_url``. ``kwargs`` are the client's (``decode_responses``, ``socket_timeout``...)."""
    found = sentinel_address(url)
    if found is None:
        return redis.Redis.from_url(url, **kwargs)
    sentinel = Sentinel(list(found.sentinels), password=found.password, sentinel_kwargs={
        "socket_timeout": SENTINEL_TIMEOUT, "socket_connect_timeout": SENTINEL_TIMEOUT})
    return sentinel.master_for(found.master, db=found.db, **kwargs)


def celery_broker(url: str) -> tuple[str, dict[str, Any]]:
    """Kombu's broker URL and the transport options it needs for ``url`` (none for a plain Redis URL)."""
    found = sentinel_address(url)
    if found is None:
        return url, {}
    auth = f":{found.password}@" if found.password else ""
    broker = ";".join(f"sentinel://{auth}{host}:{port}/{found.db}" for host, port in found.sentinels)
    options: dict[str, Any] = {"master_name": found.master, "sentinel_kwargs": {
        "socket_timeout": SENTINEL_TIMEOUT, "socket_connect_timeout": SENTINEL_TIMEOUT}}
    if found.password:
        options["sentinel_kwargs"]["password"] = found.password
    return broker, options


def limits_storage(url: str) -> str:
    """flask-limiter's storage URI for ``url``: it takes ``redis+sentinel://`` itself, less the ``?db=``
    (its counts go to the master's database 0, under their own key prefix)."""
    return url.split("?", 1)[0] if sentinel_address(url) is not None else url
